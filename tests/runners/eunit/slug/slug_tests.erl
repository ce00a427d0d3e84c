-module(slug_tests).
-include_lib("eunit/include/eunit.hrl").

make_test() -> ?assertEqual("hello-world", slug:make("Hello World")).
words_test() -> ?assertEqual(["a", "b", "c"], slug:words("A  B")).
crash_test() -> slug:make(42).
limit_test_() ->
    [?_assertEqual("abc", slug:limit("abcdef", 3)),
     ?_assertEqual("ab", slug:limit("ab", 3))].
throw_test() -> throw(not_ready).
