#include <stdlib.h>
#include <string.h>

const char *relay_home(void) {
    char *home = getenv("RELAY_HOME");
    return home ? home : "/var/lib/relay";
}

int run_hook(const char *hook) {
    return system(hook);
}
