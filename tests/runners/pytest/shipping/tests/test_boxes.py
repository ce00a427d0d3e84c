from shipping import label, split


def test_split_keeps_order():
    assert split([2, 3, 4], 5) == [[2, 3], [4]]


def test_split_heavy_first():
    assert split([9, 1], 5) == [[9], [1]]


def test_label_needs_postcode():
    assert label({"line1": "12 Rue Oberkampf", "postcode": ""}).startswith("12")
