#define CAP 8
struct ring { int items[CAP]; int head; int len; };
int ring_push(struct ring *r, int v);
int ring_pop(struct ring *r, int *out);
