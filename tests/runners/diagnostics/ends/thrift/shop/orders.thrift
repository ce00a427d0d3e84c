namespace py shop.orders

enum Status {
  OPEN = 1,
  PAID = 2,
  SHIPPED = 2
}

struct Order {
  1: required i64 id,
  2: required Status status = "open"
}
