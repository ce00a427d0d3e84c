import pytest


@pytest.fixture
def ledger_db():
    raise RuntimeError("ledger database refused connection on port 5433")


@pytest.fixture
def scratch_file(tmp_path):
    path = tmp_path / "scratch.txt"
    path.write_text("x")
    yield path
    raise OSError("teardown could not unlink scratch.txt: 3 handles still open")
