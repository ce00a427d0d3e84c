% Feeding times.
feeds(Keeper, Animal, Time) :- keeper(Keeper, Animal).
time_ok(T) :- T >= 6, T =< 18.
schedule(A, T) :- feeds(_, A, T) time_ok(T).
