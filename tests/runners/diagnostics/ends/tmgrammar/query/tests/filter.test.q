-- SYNTAX TEST "source.query" "filters"
where age > 30 and city = 'Oslo'
--          ^^ constant.numeric.integer.query
--             ^^^ keyword.control.query
--                         ^^^^^^ string.quoted.double.query
