import json


class LedgerError(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError:
        raise LedgerError(path)


def post(entry):
    if not entry:
        raise LedgerError("an empty entry cannot be posted")
    if "amount" not in entry:
        raise LedgerError("an entry without an amount cannot be posted")
    return entry["amount"]


def check(entry):
    if entry.get("amount", 0) < 0:
        raise Exception


def settle(items):
    try:
        total = sum(i["amount"] for i in items)
        return total
    except Exception:
        return None
