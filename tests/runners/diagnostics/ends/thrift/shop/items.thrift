namespace py shop.items

struct Item {
  1: required string sku,
  2: required byte count,
  1: optional double price
}
