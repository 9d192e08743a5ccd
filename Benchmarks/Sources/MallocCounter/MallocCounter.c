// Counts heap allocations per thread by replacing malloc and friends with thin wrappers over
// glibc's own implementation (glibc documents this as "Replacing malloc": the executable's
// definitions win for every library in the process). Each wrapper adds one thread-local
// increment; memory is still managed by glibc, so blocks from either path mix freely.
// Linux/glibc only; elsewhere the count stays 0 and kilo-bench prints "n/a".
#include "MallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <malloc.h>
#include <stddef.h>

int64_t kilo_bench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (int64_t)(info.uordblks + info.hblkhd);
}

void kilo_bench_trim(void) { malloc_trim(0); }

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));

uint64_t kilo_bench_thread_allocations(void) { return allocations; }

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void free(void *pointer) { __libc_free(pointer); }

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    allocations++;
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    allocations++;
    return __libc_pvalloc(size);
}
#else
uint64_t kilo_bench_thread_allocations(void) { return 0; }
int64_t kilo_bench_heap_in_use(void) { return -1; }
void kilo_bench_trim(void) {}
#endif
