format ELF64
section '.text' executable
mul2:
        imul    rax, rbx, rcx, rdx
        ret
