%% A bookshelf with deliberate failing cases (issue 46 captures).
-module(shelf_SUITE).
-include_lib("common_test/include/ct.hrl").
-export([all/0, count/1, order/1, lookup/1, width/1]).

all() -> [count, order, lookup, width].

count(_) -> 12 = length(lists:seq(1, 11)).
order(_) -> true = (atom_to_list(zebra) < "aardvark").
lookup(_) -> {ok, _} = maps:find(isbn_4471, #{isbn_1 => a}).
width(_) -> ok = case 3 of 3 -> ok end.
