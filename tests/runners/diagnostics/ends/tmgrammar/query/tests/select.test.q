-- SYNTAX TEST "source.query" "select statements"
select name from users where id = 3
-- <------ keyword.control.query
--          ^^^^ keyword.control.query
--                                ^ constant.numeric.query
SELECT name FROM users
-- <------ keyword.control.query
select 'a' as x
--     ^^^ string.quoted.single.query
--         ^^ keyword.control.query
