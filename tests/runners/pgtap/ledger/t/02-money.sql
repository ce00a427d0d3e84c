BEGIN;
SELECT plan(4);
SELECT is(deposit(1, 50), 150::numeric, 'a deposit adds to the balance');
SELECT is(deposit(2, -10), -5::numeric, 'a negative deposit is a withdrawal');
SELECT is(fee(125), 2.50, 'the fee is two percent');
SELECT throws_ok('SELECT deposit(99, 1)', 'P0002', NULL, 'depositing to an unknown account raises');
SELECT * FROM finish();
ROLLBACK;
