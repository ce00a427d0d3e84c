def test_ledger_total(ledger_db):
    assert ledger_db.total() == 100


def test_scratch_write(scratch_file):
    assert scratch_file.read_text() == "x"
