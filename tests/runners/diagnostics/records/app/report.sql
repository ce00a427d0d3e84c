select id,name from users where active=1
SELECT count(*) FROM orders o JOIN users u on o.user_id=u.id
