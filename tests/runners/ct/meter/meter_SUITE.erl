%% A parking meter with deliberate failing cases (issue 46 captures).
-module(meter_SUITE).
-include_lib("common_test/include/ct.hrl").
-export([all/0, charge/1, coins/1, receipt/1, jam/1, refund/1]).

all() -> [charge, coins, receipt, jam, refund].

charge(_) -> 150 = 3 * 50.
coins(_) -> [5, 10, 25] = lists:sort([25, 5, 20]).
receipt(_) -> <<"paid">> = list_to_binary("unpaid").
jam(_) -> erlang:error({coin_jammed, slot_3}).
refund(_) -> ct:fail("refund of ~p cents exceeds deposit", [275]).
