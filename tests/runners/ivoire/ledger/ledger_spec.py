from ivoire import describe
from ledger import Ledger

with describe(Ledger) as it:
    @it.before
    def before(test):
        test.ledger = Ledger()

    with it("sums what was posted") as test:
        test.ledger.post(10, "rent")
        test.ledger.post(5, "food")
        test.assertEqual(test.ledger.balance(), 15)

    with it("remembers the last memo") as test:
        test.ledger.post(1, "a")
        test.assertEqual(test.ledger.last_memo(), "a")

    with it("has no memo when empty") as test:
        test.assertIsNone(test.ledger.last_memo())

    with it("lists credits only") as test:
        test.ledger.post(-3, "refund")
        test.ledger.post(0, "zero")
        test.assertEqual(test.ledger.credits(), [])

    with it("starts at zero") as test:
        test.assertEqual(test.ledger.balance(), 0)
