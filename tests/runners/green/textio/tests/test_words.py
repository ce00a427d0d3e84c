import json
import unittest


def words(text):
    return text.split(" ")


class WordsTest(unittest.TestCase):
    def test_splits_on_spaces(self):
        self.assertEqual(words("a b"), ["a", "b"])

    def test_collapses_runs_of_spaces(self):
        self.assertEqual(words("a  b"), ["a", "b"])

    def test_counts_words(self):
        self.assertEqual(len(words("one two three four")), 3, "four words counted")


class ConfigTest(unittest.TestCase):
    def test_reads_json(self):
        self.assertEqual(json.loads('{"depth": 3}')["depth"], 3)

    def test_rejects_trailing_comma(self):
        json.loads('{"depth": 3,}')
