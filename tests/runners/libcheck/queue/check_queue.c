#include <check.h>
#include <stdlib.h>
#include <string.h>

static int q[4], head, len;
static void push(int v) { q[(head + len) % 4] = v; len++; }
static int pop(void) { int v = q[head]; head = (head + 1) % 3; len--; return v; }
static void reset(void) { head = 0; len = 0; }

START_TEST(test_push_pop)
{
    reset();
    push(1); push(2);
    ck_assert_int_eq(pop(), 1);
    ck_assert_int_eq(pop(), 2);
}
END_TEST

START_TEST(test_wraps)
{
    reset();
    for (int i = 0; i < 4; i++) push(i);
    for (int i = 0; i < 3; i++) pop();
    push(9);
    ck_assert_int_eq(pop(), 3);
    ck_assert_int_eq(pop(), 9);
}
END_TEST

START_TEST(test_len_after_drain)
{
    reset();
    push(5);
    pop();
    ck_assert_msg(len == 1, "queue drained to %d, wanted one left over", len);
}
END_TEST

START_TEST(test_name)
{
    const char *name = "ring-v2";
    ck_assert_str_eq(name, "ring-v1");
}
END_TEST

Suite *queue_suite(void)
{
    Suite *s = suite_create("Queue");
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_push_pop);
    tcase_add_test(core, test_wraps);
    suite_add_tcase(s, core);
    TCase *edge = tcase_create("Edge");
    tcase_add_test(edge, test_len_after_drain);
    tcase_add_test(edge, test_name);
    suite_add_tcase(s, edge);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(queue_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
