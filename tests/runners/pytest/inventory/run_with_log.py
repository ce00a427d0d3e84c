"""Flask-style app start-up: logs a line, then runs pytest in-process.

The log line lands on stderr before pytest's session header, which is what
CI logs of `python run_with_log.py` look like.
"""
import logging
import sys

import pytest

logging.basicConfig(
    format="[%(asctime)s] %(levelname)s in core: %(message)s",
    level=logging.INFO,
)
logging.getLogger("core").warning(
    "INVENTORY_DSN not set, falling back to sqlite:///inventory.db"
)
sys.exit(pytest.main(sys.argv[1:]))
