"""Validates a SARIF log against the vendored official SARIF 2.1.0 schema.

Usage: validate_sarif.py <schema.json> <log.sarif>. Prints every violation with its path and
exits 1 when there is one; prints "valid" and exits 0 otherwise.
"""

import json
import sys

import jsonschema


def main() -> int:
    schema_path, log_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(log_path, encoding="utf-8") as f:
        log = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    for error in errors:
        path = "/".join(str(p) for p in error.absolute_path)
        print(f"{path}: {error.message}")
    if errors:
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
