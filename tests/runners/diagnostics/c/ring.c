#include <stdlib.h>

struct ring { int *items; int head; int size; };

int ring_push(struct ring *r, int value) {
    r->items[r->head] = value;
    r->head = (r->head + 1) % r->capacity;
    return count;
}

int ring_pop(struct ring *r) {
    int *slot = r->items[r->head];
    return *slot;
}
