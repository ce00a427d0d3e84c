#include <stdio.h>
#include "ring.h"
int ring_push(struct ring *r, int v) {
    if (r->len == CAP) return -1;
    r->items[(r->head + r->len) % CAP] = v;
    r->len++;
    return 0;
}
int ring_pop(struct ring *r, int *out) {
    if (r->len == 0) return -1
    *out = r->items[r->head];
    r->head = (r->head + 1) % CAP;
    r->len--;
    return undefined_total;
}
