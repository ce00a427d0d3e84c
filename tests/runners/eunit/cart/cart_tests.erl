-module(cart_tests).
-include_lib("eunit/include/eunit.hrl").

empty_total_test() -> ?assertEqual(0, cart:total(cart:new())).
add_free_item_test() -> cart:add(sticker, 0, cart:new()).
remove_test() -> ?assertEqual(#{}, cart:remove(pen, cart:add(pen, 2, cart:new()))).
discount_test() -> ?assertEqual(90, cart:discount(100, 10)).
keeps_items_test() -> ?assert(maps:is_key(pen, cart:add(pen, 2, cart:new()))).
match_test() -> ?assertMatch({ok, _}, {error, cart:total(cart:new())}).
