BEGIN;
SELECT plan(4);
SELECT results_eq('SELECT sku FROM cheap ORDER BY sku', ARRAY['B-2'], 'only B-2 is cheap');
SELECT is_empty('SELECT sku FROM item WHERE name IS NULL', 'every item has a name');
SELECT bag_eq('SELECT sku FROM item', ARRAY['A-1','B-2','C-3','D-4'], 'the catalogue holds four items');
SELECT ok((SELECT count(*) FROM item) = 3, 'three items');
SELECT * FROM finish();
ROLLBACK;
