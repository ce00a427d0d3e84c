"""A tiny ledger: postings, balances, rounding."""
from decimal import Decimal, ROUND_HALF_UP


def round_cents(amount):
    return Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def balance(postings):
    return sum(p["amount"] for p in postings)


def split(amount, ways):
    share = amount // ways
    return [share] * ways


def close(periods, name):
    return periods[name]["closing"]
