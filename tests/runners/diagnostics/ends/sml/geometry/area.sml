(* Areas of shapes, with type errors on purpose. *)
datatype shape = Circle of real | Square of real | Rect of real * real
fun area (Circle r) = 3.14159 * r * r
  | area (Square s) = s * s
fun label s = "area=" ^ area s
fun total xs = foldl (fn (s, acc) => acc + area s) 0 xs
