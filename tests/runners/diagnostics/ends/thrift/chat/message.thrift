namespace py chat.message

include "user.thrift"

struct Message {
  1: required i64 id,
  2: required user.User author,
  3: required string body,
  3: optional list<string> reactions
}
