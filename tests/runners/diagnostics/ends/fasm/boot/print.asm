format ELF64
section '.text' executable
print:
        mov     al, 300
        ret
