// The portable half of ColdCode: where ColdCode.S has no machine code, the call does nothing.
#include "ColdCode.h"

#if !(defined(__x86_64__) && defined(__ELF__))
void kilo_bench_cold_code(int lines) { (void)lines; }
#endif
