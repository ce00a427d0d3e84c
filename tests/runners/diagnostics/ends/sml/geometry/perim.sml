(* Perimeters, with an unbound name on purpose. *)
fun perimeter (w, h) = 2.0 * (w + h)
val p = perimeter (3.0, 4.0)
val q = perimiter (1.0, 2.0)
