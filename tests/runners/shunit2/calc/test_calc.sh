#!/bin/bash
add() { echo $(( $1 + $2 + ($1 > 100 ? 1 : 0) )); }
greet() { echo "Hello $1"; }
testAddsSmallNumbers() { assertEquals "small sum" 5 "$(add 2 3)"; }
testAddsLargeNumbers() { assertEquals "large sum" 500 "$(add 200 300)"; }
testGreetsByName() { assertEquals "Hello, Ada" "$(greet Ada)"; }
testFileExists() { assertTrue "config file is missing" "[ -f /nonexistent/config.ini ]"; }
testEmpty() { assertNull "expected no output" "$(echo surprise)"; }
. shunit2
