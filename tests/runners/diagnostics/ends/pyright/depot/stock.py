from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    qty: int


def total(items: list[Item]) -> int:
    return sum(i.qty for i in items) / 2


def find(items: list[Item], sku: str) -> Item | None:
    for i in items:
        if i.sku == sku:
            return i
    return None


def label(items: list[Item], sku: str) -> str:
    return find(items, sku).sku.upper()


def restock(item: Item, n: int) -> Item:
    return Item(item.sku)
