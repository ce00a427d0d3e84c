DELETE from sessions WHERE expires < now()
select  a , b from t
