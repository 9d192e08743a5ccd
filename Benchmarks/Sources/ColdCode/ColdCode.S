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
    .set .Lcold_line, 0
    .rept 635
    .p2align 6
    decl %edi
    jz cold_done
    jmp cold_blocks + (.Lcold_line + 389) * 64
    .set .Lcold_line, .Lcold_line + 1
    .endr
    // Blocks 635 ..< 1024 wrap around to line - 635.
    .rept 389
    .p2align 6
    decl %edi
    jz cold_done
    jmp cold_blocks + (.Lcold_line - 635) * 64
    .set .Lcold_line, .Lcold_line + 1
    .endr

#endif

#if defined(__ELF__)
// Every ELF object, even one left empty by the guard above, says that it needs no executable
// stack; without the note, the linker would make the whole program's stack executable.
    .section .note.GNU-stack, "", @progbits
#endif
