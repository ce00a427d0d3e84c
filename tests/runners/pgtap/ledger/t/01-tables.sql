BEGIN;
SELECT plan(5);
SELECT has_table('account');
SELECT has_column('account', 'owner');
SELECT col_not_null('account', 'owner', 'owners are required');
SELECT col_type_is('account', 'balance', 'integer', 'balance is a whole number');
SELECT has_column('account', 'opened_at', 'accounts know when they opened');
SELECT * FROM finish();
ROLLBACK;
