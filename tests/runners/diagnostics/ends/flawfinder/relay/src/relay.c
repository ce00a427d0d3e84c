#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny message relay: reads a header, copies the payload, forwards it. */
int relay(const char *line, char *out) {
    char name[32];
    char payload[128];
    if (sscanf(line, "%s %s", name, payload) != 2) {
        return -1;
    }
    strcpy(out, name);
    strcat(out, ": ");
    strcat(out, payload);
    return (int)strlen(out);
}

void announce(const char *who) {
    char banner[64];
    sprintf(banner, "relay for %s", who);
    printf(banner);
}
