format ELF64
section '.text' executable
nothing:
        ret
