#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* Spool files land in a temporary folder before delivery. */
FILE *open_spool(void) {
    char path[L_tmpnam];
    tmpnam(path);
    return fopen(path, "w");
}

int label(char *dst, const char *queue, int n) {
    char tag[16];
    strncpy(tag, queue, sizeof tag);
    return sprintf(dst, "%s-%d", tag, n);
}

void greet(const char *user) {
    char line[40];
    strcpy(line, user);
    fputs(line, stdout);
}
