#!/bin/bash
# Checks on a scratch folder: some pass, some fail in the middle of a test (not its last
# command), so shunit2 prints no ERROR line for them.
setUp() { SCRATCH=$(mktemp -d); printf 'alpha\nbeta\n' > "$SCRATCH/words.txt"; }
tearDown() { rm -rf "$SCRATCH"; }
testCountsLines() { assertEquals "line count" 3 "$(wc -l < "$SCRATCH/words.txt")"; }
testFindsAlpha() { grep -q alpha "$SCRATCH/words.txt"; assertTrue "alpha is there" $?; }
testNoGamma() {
  assertFalse "gamma must not be there" "grep -q beta $SCRATCH/words.txt"
  echo "checked for gamma"
}
testSortedOrder() {
  sorted=$(sort -r "$SCRATCH/words.txt" | head -1)
  assertSame "first sorted word" alpha "$sorted"
  true
}
. shunit2
