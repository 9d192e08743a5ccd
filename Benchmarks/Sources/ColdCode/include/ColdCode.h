#ifndef KILO_BENCH_COLD_CODE_H
#define KILO_BENCH_COLD_CODE_H

/// Runs `lines` blocks of machine code, each in a 64-byte cache line of its own, out of 1,024
/// lines (64 KiB) that follow one another 389 lines apart, so that no line is next to the one
/// before it; above 1,024 it comes back to lines it has run. Each block is three instructions (a
/// decrement and two branches, one taken): with warm caches a call costs about a cycle per line;
/// with cold ones, a fetch per line. It measures what executing that much code of one's own costs
/// per request, once URLSession, libcurl and the kernel have had the CPU (the `--experiments` rows
/// of section b). x86_64 ELF only; elsewhere it does nothing.
void kilo_bench_cold_code(int lines);

#endif
