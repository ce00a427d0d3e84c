namespace py chat.user

struct User {
  1: required i64 id,
  2: required string name
}
