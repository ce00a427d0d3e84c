#include <check.h>
#include <stdlib.h>
#include <math.h>

static double km(double miles) { return miles * 1.6; }
static double cm(double inches) { return inches * 2.54; }
static int grams(const char *spec) { return spec ? atoi(spec) : -1; }

START_TEST(test_km)
{
    ck_assert_double_eq_tol(km(1.0), 1.609, 0.001);
}
END_TEST

START_TEST(test_cm)
{
    ck_assert_double_eq_tol(cm(10.0), 25.4, 0.001);
}
END_TEST

START_TEST(test_grams_null)
{
    ck_assert_int_eq(grams(NULL), 0);
}
END_TEST

START_TEST(test_grams_suffix)
{
    int g = grams("12kg");
    ck_assert_msg(g == 12000, "12kg read as %d grams", g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("Units");
    TCase *length = tcase_create("Length");
    tcase_add_test(length, test_km);
    tcase_add_test(length, test_cm);
    suite_add_tcase(s, length);
    TCase *mass = tcase_create("Mass");
    tcase_add_test(mass, test_grams_null);
    tcase_add_test(mass, test_grams_suffix);
    suite_add_tcase(s, mass);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
