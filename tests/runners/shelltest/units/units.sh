#!/bin/sh
# converts lengths: units.sh m2cm N | cm2m N | km2m N
case "$1" in
  m2cm) echo $(( $2 * 100 )) ;;
  cm2m) echo $(( $2 / 100 )) ;;
  km2m) echo $(( $2 * 100 )) ;;
  *) echo "usage: units.sh m2cm|cm2m|km2m N" >&2; exit 2 ;;
esac
