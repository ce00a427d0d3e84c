namespace py shop.cart

struct Line {
  1: required string sku
  2 required i32 quantity
}
