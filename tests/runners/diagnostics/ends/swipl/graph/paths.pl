% Paths through the graph.
path(X, Y) :- edge(X, Y).
path(X, Y) :- edge(X, Z), path(Z, Y).
:- X is foo + 1, print(X).
reachable(X, Ys) :- findall(Y, path(X, Y), Ys.
