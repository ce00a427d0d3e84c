(* Accounts, with errors on purpose. *)
type account = {owner : string, balance : int}
fun deposit (a : account) n = {owner = #owner a, balance = #balance a + n}
fun describe (a : account) = #owner a ^ ": " ^ #balance a
