% A small graph, loaded with `swipl -g halt edges.pl paths.pl`.
edge(a, b).
edge(b, c).
edge(c, d).
:- check_edges.
:- edge(d, a).
node(N) :- edge(N, _) ; edge(_, N).
