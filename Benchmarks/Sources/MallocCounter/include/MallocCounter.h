#ifndef KILO_BENCH_MALLOC_COUNTER_H
#define KILO_BENCH_MALLOC_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// The number of heap allocations (malloc, calloc, realloc, and the aligned variants) that the
/// calling thread has made since it started. Reading it costs a thread-local load.
uint64_t kilo_bench_thread_allocations(void);

/// Starts or stops counting, over the whole process, the heap blocks handed out and not yet
/// freed (see kilo_bench_live_blocks). While it is off, each allocation and free costs the
/// check of this switch only.
void kilo_bench_count_live_blocks(bool on);

/// The heap blocks allocated minus those freed while counting was on (see
/// kilo_bench_count_live_blocks), by every thread; a block made before counting started and freed
/// during it counts -1. A count, not a size: one small block leaked per request shows as one per
/// request. 0 where unavailable.
int64_t kilo_bench_live_blocks(void);

/// The heap blocks handed out (malloc, calloc, realloc of NULL, the aligned variants) by every
/// thread while counting was on (see kilo_bench_count_live_blocks); a realloc that moves or
/// resizes a block is not counted. 0 where unavailable.
int64_t kilo_bench_process_allocations(void);

/// Bytes that malloc has handed out and not had back, over all arenas (glibc's mallinfo2); -1
/// where unavailable. A size, not a count of allocations.
int64_t kilo_bench_heap_in_use(void);

/// Returns free heap memory to the system (glibc's malloc_trim), so RSS reflects live memory.
void kilo_bench_trim(void);

#endif
