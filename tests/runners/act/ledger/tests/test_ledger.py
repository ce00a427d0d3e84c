from ledger import balance, close, round_cents, split


def test_balance_sums_postings():
    assert balance([{"amount": 70}, {"amount": 48}]) == 120


def test_round_cents_half_up():
    assert str(round_cents(2.675)) == "2.67"


def test_split_keeps_the_total():
    assert sum(split(101, 2)) == 101


def test_close_reads_the_closing_balance():
    assert close({"2026-11": {"opening": 3}}, "2026-11") == 3


def test_posting_count():
    assert len([1, 2, 3]) == 3
