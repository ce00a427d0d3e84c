format ELF64
section '.text' executable
add3:
        addd    rax, rbx
        ret
