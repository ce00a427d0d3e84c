%% EUnit capture project (issue 46): URL slugs with bugs.
-module(slug).
-export([make/1, words/1, limit/2]).

make(Title) -> string:join(words(Title), "_").
words(Title) -> string:tokens(string:lowercase(Title), " ").
limit(Slug, Max) when length(Slug) > Max -> lists:sublist(Slug, Max - 1);
limit(Slug, _Max) -> Slug.
