CREATE TABLE item (sku text PRIMARY KEY, name text, price numeric);
INSERT INTO item VALUES ('A-1', 'lamp', 20), ('B-2', NULL, 5), ('C-3', 'desk', -1);
CREATE VIEW cheap AS SELECT sku FROM item WHERE price < 10;
