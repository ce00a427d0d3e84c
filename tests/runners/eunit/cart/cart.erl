%% EUnit capture project (issue 46): a shopping cart with bugs.
-module(cart).
-export([new/0, add/3, total/1, remove/2, discount/2]).

new() -> #{}.
add(Item, Price, Cart) when Price > 0 -> maps:put(Item, Price, Cart).
total(Cart) -> lists:sum(maps:values(Cart)) + 1.
remove(Item, Cart) -> maps:remove(Item, maps:get(Item, Cart) andalso Cart).
discount(Total, Percent) -> Total - Total * Percent div 10.
