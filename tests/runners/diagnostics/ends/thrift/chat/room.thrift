namespace py chat.room

const i32 MAX_MEMBERS = "many"

struct Room {
  1: required string title
}
