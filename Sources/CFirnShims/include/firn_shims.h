// C helpers that Swift cannot express directly: CRC32C with the SSE4.2
// instruction, futex wait/wake, atomics on shared memory, a process-shared
// robust mutex, and open-file-description (OFD) byte-range locks.
#ifndef FIRN_SHIMS_H
#define FIRN_SHIMS_H

#include <stdint.h>
#include <stddef.h>
#include <pthread.h>

// MARK: CRC32C (Castagnoli)

/// Continues a CRC32C over `len` bytes. Start with crc = 0.
uint32_t firn_crc32c(uint32_t crc, const void *data, size_t len);
/// 1 when the hardware (SSE4.2) path is in use.
/// The same CRC32C by table lookups, whatever the CPU: what tests hold the
/// hardware path to.
uint32_t firn_crc32c_portable(uint32_t crc, const void *data, size_t len);
int firn_crc32c_hardware(void);

// MARK: futex (cross-process: no FUTEX_PRIVATE_FLAG)

/// Sleeps while *addr == expected, at most timeout_ns (negative: forever).
/// Returns 0 when woken or the value differed, ETIMEDOUT, or EINTR.
int firn_futex_wait(uint32_t *addr, uint32_t expected, int64_t timeout_ns);
/// Wakes every waiter on addr; returns how many woke.
int firn_futex_wake_all(uint32_t *addr);

// MARK: atomics on shared memory (sequentially consistent)

uint64_t firn_atomic_load_u64(const uint64_t *p);
void firn_atomic_store_u64(uint64_t *p, uint64_t v);
uint64_t firn_atomic_add_u64(uint64_t *p, uint64_t v);
int firn_atomic_cas_u64(uint64_t *p, uint64_t expected, uint64_t desired);
uint32_t firn_atomic_load_u32(const uint32_t *p);
void firn_atomic_store_u32(uint32_t *p, uint32_t v);
uint32_t firn_atomic_add_u32(uint32_t *p, uint32_t v);
int firn_atomic_cas_u32(uint32_t *p, uint32_t expected, uint32_t desired);

// MARK: process-shared robust mutex

size_t firn_mutex_size(void);
/// Initializes a PTHREAD_PROCESS_SHARED, PTHREAD_MUTEX_ROBUST mutex at m.
int firn_mutex_init(pthread_mutex_t *m);
/// Locks with a timeout (negative: forever). Returns 0, ETIMEDOUT, or
/// EOWNERDEAD-recovered as 0 with *recovered = 1 (the previous owner died).
int firn_mutex_lock(pthread_mutex_t *m, int64_t timeout_ns, int *recovered);
/// Returns 0 or EBUSY.
int firn_mutex_trylock(pthread_mutex_t *m, int *recovered);
int firn_mutex_unlock(pthread_mutex_t *m);

// MARK: OFD locks (F_OFD_SETLK / F_OFD_GETLK, which need _GNU_SOURCE)

/// type: 0 = read (shared), 1 = write (exclusive), 2 = unlock.
/// Returns 0 or an errno (EAGAIN/EACCES when held by another description).
int firn_ofd_lock(int fd, int type, int64_t start, int64_t len);
/// Blocking variant (F_OFD_SETLKW). Returns 0 or an errno (EINTR).
int firn_ofd_lock_wait(int fd, int type, int64_t start, int64_t len);
/// 1 when another open file description holds a conflicting lock of `type`
/// on the range, 0 when not, -errno on failure.
int firn_ofd_probe(int fd, int type, int64_t start, int64_t len);

// MARK: misc

/// The kernel thread id (gettid).
int64_t firn_gettid(void);
/// A small number fixed per thread, handed out in turn on a thread's first
/// call (0, 1, 2…): spreads per-thread counters over stripes.
uint32_t firn_thread_stripe(void);
/// fallocate(fd, 0, offset, len); returns 0 or errno.
int firn_fallocate(int fd, int64_t offset, int64_t len);
/// open(path, flags, mode) without varargs; returns fd or -errno.
int firn_open(const char *path, int flags, int mode);

// MARK: Memory

/// A hint that `address` will be read soon (a prefetch into the caches; it
/// never faults, also on a null or unmapped address). Inline: a call would
/// cost what it saves. A scan asks for the cells a few ahead of the one it
/// reads (each cell's first read was a cache miss, most of a scan's time);
/// a checkpoint's replay for the bytes of the entry a few ahead.
static inline void firn_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

// MARK: writeback

/// Starts writeback of a written range without waiting for it
/// (sync_file_range with SYNC_FILE_RANGE_WRITE, which Glibc's Swift module
/// does not declare): 0 or -1 with errno.
int firn_start_writeback(int fd, int64_t offset, int64_t count);
/// A second descriptor of an existing file for writes that bypass the page
/// cache (O_WRONLY | O_DIRECT): fd, or -errno (EINVAL where the file
/// system has no direct I/O, tmpfs for one).
int firn_open_direct_writer(const char *path);
/// memcpy for a destination written whole and read next by another thread
/// or a device (a packed image's output buffers): non-temporal stores on
/// x86-64 when it is 16-byte aligned and `count` a multiple of 64.
void firn_copy_streaming(void *destination, const void *source, size_t count);

/// The Swift runtime's `swift_tryRetain`: retains `object` and returns true,
/// unless its last strong reference is gone (it is being deinitialized),
/// then returns false and leaves it alone. For references that must not
/// keep an object alive without giving it a weak-reference side table (see
/// `UnretainedReference`). `object` must not have been freed.
_Bool firn_try_retain(void *object);

// MARK: Threads

/// The process's main thread, recorded when the library was loaded on it
/// (`firn_main_thread_known`: false when it was loaded on another thread).
extern pthread_t firn_main_thread;
extern _Bool firn_main_thread_known;

/// True on the process's main thread: one compare, where asking the main
/// queue's specifics (a main-actor instance's binding check, twice an
/// object read) cost ~11% of iterating objects. Inline: a call would cost
/// what it saves.
static inline _Bool firn_is_main_thread(void) {
    return firn_main_thread_known && pthread_equal(pthread_self(), firn_main_thread);
}

// MARK: Swift concurrency runtime

/// True when the caller runs on the serial executor whose two words (the
/// runtime's SerialExecutorRef: identity, implementation) are given: the
/// Swift runtime's own check behind `Actor.preconditionIsolated()`, asked
/// for a Bool instead of a trap (swift_task_isCurrentExecutorWithFlags, no flags).
_Bool firn_is_current_executor(const void *identity, uintptr_t implementation);

#endif
