import pytest


@pytest.fixture
def station_db():
    raise ConnectionError("station database at 127.0.0.1:6543 refused connection")
