"""Weather readings with deliberate bugs for the pytest-xdist / json-report captures."""
import statistics


def c_to_f(c):
    return c * 9 / 5 + 32


def mean_temp(readings):
    return statistics.mean(r["t"] for r in readings)


def parse_metar(s):
    parts = s.split()
    wind = parts[2]
    return {"station": parts[0], "wind_kt": int(wind[3:5])}


def gusts(readings):
    return [r for r in readings if r["wind"] > 25]   # BUG: ignores missing wind
