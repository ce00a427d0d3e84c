"""An electricity meter's readings and bills."""


def parse(line):
    meter, value = line.split(",")
    return meter.strip(), int(value)


def bill(kwh, rate=0.25, cap=None):
    total = kwh * rate
    return total if cap is None else max(total, cap)


def average(readings):
    return sum(readings) / len(readings)
