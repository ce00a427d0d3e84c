BEGIN;
SELECT plan(2);
SELECT is_empty('SELECT sku FROM item WHERE price < 0', 'no price is negative');
SELECT cmp_ok((SELECT max(price) FROM item), '<', 10::numeric, 'prices stay under ten');
SELECT * FROM finish();
ROLLBACK;
