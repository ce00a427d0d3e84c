import unittest

from billing import currency, invoice_total, line_total, load_config


class TestInvoice(unittest.TestCase):
    def test_line_total(self):
        self.assertEqual(line_total(3, 5), 15)

    def test_invoice_total_with_tax(self):
        self.assertEqual(invoice_total([(2, 50), (1, 20)], 0.2), 144.0,
                         "invoice INV-2291 total off")

    def test_line_totals_per_quantity(self):
        for qty, expected in [(1, 10), (2, 20), (3, 31)]:
            with self.subTest(qty=qty):
                self.assertEqual(line_total(qty, 10), expected)


class TestConfig(unittest.TestCase):
    def test_load_config(self):
        load_config({"port": "8080"})

    def test_currency_symbols(self):
        self.assertEqual(currency("GBP"), "£")

    @unittest.skip("rates service not mocked yet")
    def test_exchange(self):
        pass
