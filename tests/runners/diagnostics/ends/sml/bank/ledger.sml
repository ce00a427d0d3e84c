(* A ledger's helpers, with incomplete matches on purpose. *)
fun first (x :: _) = x
fun sign n = case Int.compare (n, 0) of LESS => ~1 | GREATER => 1
val total = foldl op+ 0 [1, 2, 3]
