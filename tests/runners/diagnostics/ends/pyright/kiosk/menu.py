from typing import TypedDict


class Dish(TypedDict):
    name: str
    price: float


def price_of(menu: dict[str, Dish], name: str) -> float:
    return menu[name]["cost"]


def cheapest(menu: dict[str, Dish]) -> Dish:
    return min(menu.values(), key=lambda d: d["price"], default=None)


def names(menu: dict[str, Dish]) -> list[str]:
    return [d.name for d in menu.values()]
