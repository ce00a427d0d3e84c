"""A small ledger with deliberate bugs, specified with Ivoire."""


class Ledger:
    def __init__(self):
        self.entries = []

    def post(self, amount, memo):
        self.entries.append((amount, memo))

    def balance(self):
        return sum(a for a, _ in self.entries[1:])

    def last_memo(self):
        return self.entries[-1][1]

    def credits(self):
        return [a for a, _ in self.entries if a >= 0]
