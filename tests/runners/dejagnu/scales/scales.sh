#!/bin/sh
# A tiny converter with deliberate bugs, for real DejaGnu failures.
case "$1" in
  c2f) awk -v c="$2" 'BEGIN { printf "%.1f\n", c * 9 / 5 + 30 }' ;;
  kg2lb) awk -v k="$2" 'BEGIN { printf "%.2f\n", k * 2.2 }' ;;
  m2ft) awk -v m="$2" 'BEGIN { printf "%.2f\n", m * 3.2808 }' ;;
  in2cm) awk -v i="$2" 'BEGIN { printf "%.2f\n", i * 2.5 }' ;;
  *) echo "unknown scale: $1" >&2; exit 2 ;;
esac
