"""Unit conversions with deliberate type errors (issue 46 captures)."""


def to_celsius(fahrenheit: float) -> float:
    return (fahrenheit - 32) * 5 / 9


def describe(degrees: float) -> str:
    return f"{degrees:.1f} C"


reading: str = to_celsius(98.6)
describe("warm")
to_celsius(1, 2)
