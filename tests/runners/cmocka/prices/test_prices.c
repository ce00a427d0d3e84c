#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

static int cents(double euros) { return (int)(euros * 100); }
static const char *currency(int code) { return code == 978 ? "EUR" : NULL; }

static void rounds_cents(void **state) {
    (void)state;
    assert_int_equal(cents(0.29), 29);
}

static void knows_dollars(void **state) {
    (void)state;
    assert_non_null(currency(840));
}

static void whole_euros(void **state) {
    (void)state;
    assert_int_equal(cents(3.0), 300);
}

static void discount_applies(void **state) {
    (void)state;
    int price = cents(10.0);
    assert_true(price < 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rounds_cents),
        cmocka_unit_test(knows_dollars),
        cmocka_unit_test(whole_euros),
        cmocka_unit_test(discount_applies),
    };
    return cmocka_run_group_tests_name("prices", tests, NULL, NULL);
}
