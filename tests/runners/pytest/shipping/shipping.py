"""Parcel pricing with deliberate bugs for the pytest-xdist / json-report captures."""

ZONES = {"domestic": 4.5, "eu": 9.0, "world": 17.0}


def price(weight_kg, zone):
    base = ZONES[zone]
    return round(base + 1.2 * max(0, weight_kg - 1), 2)


def volumetric_kg(l_cm, w_cm, h_cm):
    return l_cm * w_cm * h_cm / 6000          # BUG-free


def label(addr):
    if not addr.get("postcode"):
        raise ValueError(
            "address rejected by carrier:\n"
            f"  line1: {addr.get('line1')!r}\n"
            "  reason: postcode is required for zone eu (field 'postcode')"
        )
    return f"{addr['line1']} / {addr['postcode']}"


def split(items, max_kg):
    boxes, cur = [], []
    for w in items:
        if sum(cur) + w > max_kg:              # BUG: an empty box is appended for a heavy item
            boxes.append(cur)
            cur = []
        cur.append(w)
    boxes.append(cur)
    return boxes
