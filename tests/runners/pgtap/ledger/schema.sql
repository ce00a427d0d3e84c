CREATE TABLE account (id serial PRIMARY KEY, owner text, balance numeric NOT NULL DEFAULT 0);
CREATE FUNCTION deposit(acct int, amount numeric) RETURNS numeric LANGUAGE sql AS $$
  UPDATE account SET balance = balance + abs(amount) WHERE id = acct RETURNING balance $$;
CREATE FUNCTION fee(amount numeric) RETURNS numeric LANGUAGE sql AS $$ SELECT round(amount * 0.02, 1) $$;
INSERT INTO account (owner, balance) VALUES ('ana', 100), ('bo', 5), (NULL, 0);
