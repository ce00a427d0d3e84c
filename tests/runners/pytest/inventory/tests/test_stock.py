import logging
import warnings

import pytest

log = logging.getLogger("inventory")

STOCK = {"apple": 3, "pear": 0, "plum": 12}


def reserve(item, qty):
    have = STOCK[item]
    if qty > have:
        raise ValueError(f"cannot reserve {qty} {item}: only {have} left")
    return have - qty


def test_reserve_apple():
    assert reserve("apple", 2) == 1


def test_reserve_pear():
    log.warning("pear stock is empty, reservation will fail")
    assert reserve("pear", 1) == 0


def test_unknown_sku():
    assert reserve("quince", 1) == 0


@pytest.mark.parametrize("item,qty,left", [("plum", 2, 10), ("plum", 5, 8), ("apple", 1, 2)])
def test_reserve_many(item, qty, left):
    assert reserve(item, qty) == left


class TestReport:
    def test_header(self):
        warnings.warn("report column 'sku' will be renamed to 'code'", UserWarning)
        assert "SKU,QTY".split(",") == ["SKU", "QTY"]

    def test_totals(self):
        total = sum(STOCK.values())
        assert total == 16, f"stock total drifted to {total}"
