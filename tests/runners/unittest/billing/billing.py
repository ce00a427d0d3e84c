"""Invoicing with deliberate bugs for the unittest captures."""


def line_total(qty, unit_price):
    return qty * unit_price


def invoice_total(lines, tax_rate):
    net = sum(line_total(q, p) for q, p in lines)
    return round(net * tax_rate, 2)          # BUG: forgot to add the net


def load_config(cfg):
    problems = []
    if "region" not in cfg:
        problems.append("- missing key 'region'")
    if not isinstance(cfg.get("port"), int):
        problems.append(f"- port must be a number, got {type(cfg.get('port')).__name__}")
    if problems:
        raise ValueError("config invalid:\n" + "\n".join(problems))
    return cfg


def currency(code):
    return {"EUR": "€", "USD": "$"}[code]
