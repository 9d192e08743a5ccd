#ifndef KILO_BENCH_MALLOC_COUNTER_H
#define KILO_BENCH_MALLOC_COUNTER_H

#include <stdint.h>

/// The number of heap allocations (malloc, calloc, realloc, and the aligned variants) that the
/// calling thread has made since it started. Reading it costs a thread-local load.
uint64_t kilo_bench_thread_allocations(void);

/// Bytes that malloc has handed out and not had back, over all arenas (glibc's mallinfo2); -1
/// where unavailable. A size, not a count of allocations.
int64_t kilo_bench_heap_in_use(void);

/// Returns free heap memory to the system (glibc's malloc_trim), so RSS reflects live memory.
void kilo_bench_trim(void);

#endif
