from ivoire import describe
import words

with describe(words.title) as it:
    with it("capitalises every word") as test:
        test.assertEqual(words.title("red fox"), "Red Fox")

    with it("leaves one word alone") as test:
        test.assertEqual(words.title("Fox"), "Fox")

with describe(words.count) as it:
    with it("ignores double spaces") as test:
        test.assertEqual(words.count("a  b"), 2)

with describe(words.initials) as it:
    with it("skips empty parts") as test:
        test.assertEqual(words.initials("ada  lovelace"), "AL")
