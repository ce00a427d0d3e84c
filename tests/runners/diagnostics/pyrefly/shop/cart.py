"""A cart with deliberate type errors (issue 46 captures)."""
from dataclasses import dataclass


@dataclass
class Item:
    name: str
    cents: int


def total(items: list[Item]) -> int:
    return sum(i.cents for i in items)


def label(item: Item) -> str:
    return item.name.upper()


basket = [Item(name="tea", cents="350")]
count: int = label(basket[0])
print(basket[0].price)
total("not a list")
