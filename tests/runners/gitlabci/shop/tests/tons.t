RUN: sh -c 'echo "overflow: 1e9 tons exceeds the table" >&2; exit 3'
