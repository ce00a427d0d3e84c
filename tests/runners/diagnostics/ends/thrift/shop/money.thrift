namespace py shop.money

typedef i64 Cents

struct Money {
  1: required Cents amount,
  2: required string currency
}
