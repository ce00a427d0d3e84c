"""Keywords for the cart suite."""


def cart_total(a, b):
    return a + b + 1


def apply_discount(price, percent):
    return price - percent * 0.5


def checkout(card):
    raise ConnectionError(f"payment gateway timed out for {card}")
