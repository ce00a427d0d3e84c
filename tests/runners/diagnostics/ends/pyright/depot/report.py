from stock import Item, total


def summary(items: list[Item]) -> str:
    count: int = "many"
    return "items: " + total(items)


def first(items: list[Item]) -> Item:
    return items[0].skew
