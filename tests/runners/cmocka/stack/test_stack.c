#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

static int items[4];
static int top;
static void push(int v) { items[top++ % 4] = v; }
static int pop(void) { return items[--top]; }

static void pushes_and_pops(void **state) {
    (void)state;
    top = 0;
    push(4);
    assert_int_equal(pop(), 4);
}

static void overflow_wraps(void **state) {
    (void)state;
    top = 0;
    for (int i = 0; i < 5; i++) push(i);
    assert_int_equal(top, 4);
}

static void peek_name(void **state) {
    (void)state;
    assert_string_equal("stack-b", "stack-a");
}

static void depth_in_range(void **state) {
    (void)state;
    top = 9;
    assert_in_range(top, 0, 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pushes_and_pops),
        cmocka_unit_test(overflow_wraps),
        cmocka_unit_test(peek_name),
        cmocka_unit_test(depth_in_range),
    };
    return cmocka_run_group_tests_name("stack", tests, NULL, NULL);
}
