import pytest

from weather import c_to_f, gusts, mean_temp, parse_metar


def test_boiling():
    assert c_to_f(100) == 212


def test_mean_of_empty():
    assert mean_temp([]) is None


def test_metar_wind():
    assert parse_metar("LFPG 011200Z 27015G25KT")["wind_kt"] == 15


def test_metar_gust_parsed():
    assert parse_metar("EDDB 011200Z 09012G31KT").get("gust_kt") == 31


def test_gusts_skip_missing(station_db):
    assert gusts([{"wind": 30}, {}]) == [{"wind": 30}]


class TestConvert:
    def test_freezing(self):
        assert c_to_f(0) == 32

    def test_negative_forty(self):
        assert c_to_f(-40) == -41, "the -40 crossover"
