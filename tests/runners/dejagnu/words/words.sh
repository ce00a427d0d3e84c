#!/bin/sh
# A tiny text tool with deliberate bugs, for real DejaGnu failures.
case "$1" in
  count) echo "$2" | wc -w | tr -d ' ' ;;
  upper) echo "$2" | tr 'a-y' 'A-Y' ;;
  first) echo "$2" | cut -d' ' -f2 ;;
  *) echo "no such command: $1" >&2; exit 64 ;;
esac
