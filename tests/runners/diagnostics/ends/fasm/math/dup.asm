format ELF64
section '.data' writeable
total dq 0
total dq 1
