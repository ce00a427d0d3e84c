RUN: test "$(echo 'scale=2; 5 / 1.609' | bc)" = 3.11
