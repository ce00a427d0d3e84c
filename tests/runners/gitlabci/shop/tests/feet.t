RUN: echo 'scale=1; 10 * 3.28' | bc | grep -qx 32.9
RUN: echo 'scale=1; 1 * 3.28' | bc | grep -qx 3.2
