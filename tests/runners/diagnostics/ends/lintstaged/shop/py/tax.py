"""lint-staged capture project (issue 46): tax rules with type errors pyright finds."""


def rate(region: str) -> float:
    rates = {"north": 0.2, "south": 0.1}
    return rates.get(region, "none")


def with_tax(amount: float, region: str) -> float:
    return amount + amount * rate(region, True)


def label(amount: float) -> str:
    return amount.upper()
