#!/usr/bin/env bash
# String helpers with deliberate bugs for the bats captures.
upper() { tr '[:lower:]' '[:upper:]' <<<"$1"; }
trim() { local s=$1; s=${s#" "}; printf '%s' "${s%" "}"; }     # BUG: trims one space only
slug() { tr ' ' '-' <<<"$1"; }                                     # BUG: no lower-casing
repeat() { local out=; for ((i = 0; i < $2; i++)); do out+=$1; done; echo "$out"; }
