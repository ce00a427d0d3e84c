RUN: test "$(echo '3 * 1000' | bc)" = 3000
