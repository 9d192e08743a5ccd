// kilo_bench_cold_code: see include/ColdCode.h. The blocks are laid out in order (block j at
// cold_blocks + 64 j); block j jumps to block (j + 389) mod 1024, so a call visits distinct
// lines, none adjacent to the last (389 and 1,024 are coprime).
#if defined(__x86_64__) && defined(__ELF__)
    .text
    .globl kilo_bench_cold_code
    .type kilo_bench_cold_code, @function
    .p2align 6
kilo_bench_cold_code:
    testl %edi, %edi
    jle cold_done
    jmp cold_blocks
cold_done:
    ret
    .size kilo_bench_cold_code, . - kilo_bench_cold_code

    .p2align 6
cold_blocks:
    // Blocks 0 ..< 635 jump forward by 389 lines.
    .set cold_line, 0
    .rept 635
    .p2align 6
    decl %edi
    jz cold_done
    jmp cold_blocks + (cold_line + 389) * 64
    .set cold_line, cold_line + 1
    .endr
    // Blocks 635 ..< 1024 wrap around to line - 635.
    .rept 389
    .p2align 6
    decl %edi
    jz cold_done
    jmp cold_blocks + (cold_line - 635) * 64
    .set cold_line, cold_line + 1
    .endr

    .section .note.GNU-stack, "", @progbits
#endif
