// Counts heap allocations per thread by replacing malloc and friends with thin wrappers over
// glibc's own implementation (glibc documents this as "Replacing malloc": the executable's
// definitions win for every library in the process). Each wrapper adds one thread-local
// increment; memory is still managed by glibc, so blocks from either path mix freely.
// While the memory check asks for it, the wrappers also count the blocks handed out and not yet
// freed, over the whole process; otherwise that costs them one relaxed load. (glibc's own
// reallocarray, strdup and the like allocate through these wrappers too.)
// Linux/glibc only; elsewhere the counts stay 0: kilo-bench prints "n/a" for allocations per
// operation, and its memory check has only the heap figure, which is -1 there.
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

static int counting_live_blocks;
static int64_t live_blocks;
static int64_t process_allocations;

uint64_t kilo_bench_thread_allocations(void) { return allocations; }

void kilo_bench_count_live_blocks(bool on) { __atomic_store_n(&counting_live_blocks, on, __ATOMIC_SEQ_CST); }

int64_t kilo_bench_live_blocks(void) { return __atomic_load_n(&live_blocks, __ATOMIC_SEQ_CST); }

int64_t kilo_bench_process_allocations(void) { return __atomic_load_n(&process_allocations, __ATOMIC_SEQ_CST); }

/// Adds `change` to the live blocks while they are counted.
static inline void count_blocks(int64_t change) {
    if (__atomic_load_n(&counting_live_blocks, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&live_blocks, change, __ATOMIC_RELAXED);
    }
}

/// Returns `pointer`, counting it as a new live block, and an allocation by the process, unless
/// it is NULL.
static inline void *counted(void *pointer) {
    if (pointer != NULL && __atomic_load_n(&counting_live_blocks, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&live_blocks, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&process_allocations, 1, __ATOMIC_RELAXED);
    }
    return pointer;
}

void *malloc(size_t size) {
    allocations++;
    return counted(__libc_malloc(size));
}

void free(void *pointer) {
    if (pointer != NULL) {
        count_blocks(-1);
    }
    __libc_free(pointer);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return counted(__libc_calloc(count, size));
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    if (pointer == NULL) {
        return counted(__libc_realloc(NULL, size));
    }
    void *result = __libc_realloc(pointer, size);
    if (size == 0 && result == NULL) {
        count_blocks(-1);  // glibc frees the block and returns NULL
    }
    return result;  // moved or resized: still one block; on failure the old one stays
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return counted(__libc_memalign(alignment, size));
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return counted(__libc_memalign(alignment, size));
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
    *result = counted(pointer);
    return 0;
}

void *valloc(size_t size) {
    allocations++;
    return counted(__libc_valloc(size));
}

void *pvalloc(size_t size) {
    allocations++;
    return counted(__libc_pvalloc(size));
}
#else
uint64_t kilo_bench_thread_allocations(void) { return 0; }
void kilo_bench_count_live_blocks(bool on) { (void)on; }
int64_t kilo_bench_live_blocks(void) { return 0; }
int64_t kilo_bench_process_allocations(void) { return 0; }
int64_t kilo_bench_heap_in_use(void) { return -1; }
void kilo_bench_trim(void) {}
#endif
