; Boot entry with an error on purpose.
format ELF64
section '.text' executable
public _start
_start:
        mov     rdi, stack_top
        ret
