#define _GNU_SOURCE
#include "firn_shims.h"

#include <errno.h>
#include <fcntl.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <pthread.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// MARK: CRC32C

static uint32_t crc_table[8][256];
static int crc_mode = -1; // -1 unknown, 0 software, 1 hardware

static void crc_init_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = crc_table[0][i];
        for (int t = 1; t < 8; t++) {
            c = crc_table[0][c & 0xff] ^ (c >> 8);
            crc_table[t][i] = c;
        }
    }
}

static uint32_t crc_software(uint32_t crc, const unsigned char *p, size_t len) {
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        v ^= crc;
        crc = crc_table[7][v & 0xff] ^ crc_table[6][(v >> 8) & 0xff] ^
              crc_table[5][(v >> 16) & 0xff] ^ crc_table[4][(v >> 24) & 0xff] ^
              crc_table[3][(v >> 32) & 0xff] ^ crc_table[2][(v >> 40) & 0xff] ^
              crc_table[1][(v >> 48) & 0xff] ^ crc_table[0][v >> 56];
        p += 8;
        len -= 8;
    }
    while (len--) crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

// Shifting a raw CRC state over n zero bytes is linear over GF(2): the
// operator is a 32x32 bit matrix, kept as four byte tables so one shift is
// four lookups. Three streams over adjacent blocks of equal length are
// joined as crc(A|B) = shift_|B|(crc(A)) ^ crc(B from 0).
#define CRC_LONG 1344   // 3 blocks cover a 4 KiB page's checksummed tail (4064 bytes) but 32
#define CRC_SHORT 256
static uint32_t crc_shift_long[4][256];
static uint32_t crc_shift_short[4][256];

static void crc_init_shift(uint32_t table[4][256], size_t zeros) {
    uint32_t column[32];
    for (int bit = 0; bit < 32; bit++) {
        uint32_t c = 1u << bit;
        for (size_t i = 0; i < zeros; i++) c = crc_table[0][c & 0xff] ^ (c >> 8);
        column[bit] = c;
    }
    for (int k = 0; k < 4; k++) {
        for (int b = 0; b < 256; b++) {
            uint32_t v = 0;
            for (int bit = 0; bit < 8; bit++) if (b & (1 << bit)) v ^= column[8 * k + bit];
            table[k][b] = v;
        }
    }
}

static inline uint32_t crc_shift(const uint32_t table[4][256], uint32_t c) {
    return table[0][c & 0xff] ^ table[1][(c >> 8) & 0xff] ^ table[2][(c >> 16) & 0xff] ^ table[3][c >> 24];
}

#if defined(__x86_64__)
// The crc32 instruction has a latency of three cycles and a throughput of
// one: one dependent stream uses a third of it, three use all of it.
__attribute__((target("sse4.2")))
static uint32_t crc_hardware_blocks(uint32_t crc, const unsigned char **pp, size_t *plen, size_t block,
                                    const uint32_t table[4][256]) {
    const unsigned char *p = *pp;
    size_t len = *plen;
    while (len >= 3 * block) {
        uint64_t c0 = crc, c1 = 0, c2 = 0;
        const unsigned char *end = p + block;
        while (p < end) {
            uint64_t v0, v1, v2;
            memcpy(&v0, p, 8);
            memcpy(&v1, p + block, 8);
            memcpy(&v2, p + 2 * block, 8);
            c0 = __builtin_ia32_crc32di(c0, v0);
            c1 = __builtin_ia32_crc32di(c1, v1);
            c2 = __builtin_ia32_crc32di(c2, v2);
            p += 8;
        }
        crc = crc_shift(table, (uint32_t)c0) ^ (uint32_t)c1;
        crc = crc_shift(table, crc) ^ (uint32_t)c2;
        p += 2 * block;
        len -= 3 * block;
    }
    *pp = p;
    *plen = len;
    return crc;
}

__attribute__((target("sse4.2")))
static uint32_t crc_hardware(uint32_t crc, const unsigned char *p, size_t len) {
    crc = crc_hardware_blocks(crc, &p, &len, CRC_LONG, crc_shift_long);
    crc = crc_hardware_blocks(crc, &p, &len, CRC_SHORT, crc_shift_short);
    uint64_t c = crc;
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        len -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (len--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}
#endif

static void crc_detect(void) {
    crc_init_table();
    crc_init_shift(crc_shift_long, CRC_LONG);
    crc_init_shift(crc_shift_short, CRC_SHORT);
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc_mode = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
    crc_mode = 0;
#endif
}

static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

uint32_t firn_crc32c(uint32_t crc, const void *data, size_t len) {
    pthread_once(&crc_once, crc_detect);
    crc = ~crc;
#if defined(__x86_64__)
    if (crc_mode == 1) return ~crc_hardware(crc, data, len);
#endif
    return ~crc_software(crc, data, len);
}

uint32_t firn_crc32c_portable(uint32_t crc, const void *data, size_t len) {
    pthread_once(&crc_once, crc_detect);
    return ~crc_software(~crc, data, len);
}

int firn_crc32c_hardware(void) {
    pthread_once(&crc_once, crc_detect);
    return crc_mode == 1;
}

// MARK: futex

int firn_futex_wait(uint32_t *addr, uint32_t expected, int64_t timeout_ns) {
    struct timespec ts, *tsp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = timeout_ns / 1000000000;
        ts.tv_nsec = timeout_ns % 1000000000;
        tsp = &ts;
    }
    long r = syscall(SYS_futex, addr, FUTEX_WAIT, expected, tsp, NULL, 0);
    if (r == 0) return 0;
    if (errno == EAGAIN) return 0;
    return errno;
}

int firn_futex_wake_all(uint32_t *addr) {
    long r = syscall(SYS_futex, addr, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
    return r < 0 ? 0 : (int)r;
}

// MARK: atomics

uint64_t firn_atomic_load_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
void firn_atomic_store_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
uint64_t firn_atomic_add_u64(uint64_t *p, uint64_t v) { return __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST); }
int firn_atomic_cas_u64(uint64_t *p, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
uint32_t firn_atomic_load_u32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
void firn_atomic_store_u32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
uint32_t firn_atomic_add_u32(uint32_t *p, uint32_t v) { return __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST); }
int firn_atomic_cas_u32(uint32_t *p, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

// MARK: robust mutex

size_t firn_mutex_size(void) { return sizeof(pthread_mutex_t); }

int firn_mutex_init(pthread_mutex_t *m) {
    pthread_mutexattr_t a;
    int r = pthread_mutexattr_init(&a);
    if (r) return r;
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    r = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return r;
}

int firn_mutex_lock(pthread_mutex_t *m, int64_t timeout_ns, int *recovered) {
    int r;
    *recovered = 0;
    if (timeout_ns < 0) {
        r = pthread_mutex_lock(m);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t ns = ts.tv_nsec + timeout_ns % 1000000000;
        ts.tv_sec += timeout_ns / 1000000000 + ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        r = pthread_mutex_timedlock(m, &ts);
    }
    if (r == EOWNERDEAD) {
        pthread_mutex_consistent(m);
        *recovered = 1;
        return 0;
    }
    return r;
}

int firn_mutex_trylock(pthread_mutex_t *m, int *recovered) {
    *recovered = 0;
    int r = pthread_mutex_trylock(m);
    if (r == EOWNERDEAD) {
        pthread_mutex_consistent(m);
        *recovered = 1;
        return 0;
    }
    return r;
}

int firn_mutex_unlock(pthread_mutex_t *m) { return pthread_mutex_unlock(m); }

// MARK: OFD locks

static int ofd(int fd, int cmd, int type, int64_t start, int64_t len) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type == 0 ? F_RDLCK : (type == 1 ? F_WRLCK : F_UNLCK);
    fl.l_whence = SEEK_SET;
    fl.l_start = start;
    fl.l_len = len;
    if (fcntl(fd, cmd, &fl) == 0) return 0;
    return errno;
}

int firn_ofd_lock(int fd, int type, int64_t start, int64_t len) {
    return ofd(fd, F_OFD_SETLK, type, start, len);
}

int firn_ofd_lock_wait(int fd, int type, int64_t start, int64_t len) {
    return ofd(fd, F_OFD_SETLKW, type, start, len);
}

int firn_ofd_probe(int fd, int type, int64_t start, int64_t len) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type == 0 ? F_RDLCK : F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = start;
    fl.l_len = len;
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return -errno;
    return fl.l_type == F_UNLCK ? 0 : 1;
}

// MARK: misc

// The kernel thread id, asked of the kernel once per thread: every write
// transaction and pin records it, and the system call was a few percent of
// a grouped commit. A forked child's thread has a new id but inherits the
// forking thread's cache, so the child forgets it (pthread_atfork).
static _Thread_local int64_t cached_tid = 0;
static pthread_once_t tid_fork_handler_once = PTHREAD_ONCE_INIT;
static void forget_tid_in_child(void) { cached_tid = 0; }
static void install_tid_fork_handler(void) { pthread_atfork(NULL, NULL, forget_tid_in_child); }

int64_t firn_gettid(void) {
    if (cached_tid == 0) {
        pthread_once(&tid_fork_handler_once, install_tid_fork_handler);
        cached_tid = (int64_t)syscall(SYS_gettid);
    }
    return cached_tid;
}

uint32_t firn_thread_stripe(void) {
    static uint32_t next = 0;
    static _Thread_local uint32_t stripe = UINT32_MAX;
    if (stripe == UINT32_MAX) stripe = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED) & 0x7fffffff;
    return stripe;
}

int firn_fallocate(int fd, int64_t offset, int64_t len) {
    if (fallocate(fd, 0, offset, len) == 0) return 0;
    return errno;
}

int firn_open(const char *path, int flags, int mode) {
    int fd = open(path, flags | O_CLOEXEC, mode);
    return fd < 0 ? -errno : fd;
}

// MARK: Swift concurrency runtime

// libswift_Concurrency's SerialExecutorRef, and its check with the Swift
// calling convention. Flags 0: answer false instead of trapping (the
// runtime's default for swift_task_isCurrentExecutor is to trap when
// asked about the main executor from another one).
typedef struct {
    const void *identity;
    uintptr_t implementation;
} firn_serial_executor_ref;

__attribute__((swiftcall)) _Bool swift_task_isCurrentExecutorWithFlags(firn_serial_executor_ref executor, uint64_t flags);

_Bool firn_is_current_executor(const void *identity, uintptr_t implementation) {
    firn_serial_executor_ref executor = { identity, implementation };
    return swift_task_isCurrentExecutorWithFlags(executor, 0);
}

// MARK: writeback

int firn_start_writeback(int fd, int64_t offset, int64_t count) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)count, SYNC_FILE_RANGE_WRITE);
}

void firn_copy_streaming(void *destination, const void *source, size_t count) {
#if defined(__x86_64__)
    // Non-temporal stores: the destination is written whole and read next by
    // another core or a device, so reading its lines in first (what a cached
    // store does) would only cost a miss per line.
    if (((uintptr_t)destination & 15) == 0 && (count & 63) == 0) {
        char *d = destination;
        const char *s = source;
        for (size_t i = 0; i < count; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
            _mm_stream_si128((__m128i *)(d + i), a);
            _mm_stream_si128((__m128i *)(d + i + 16), b);
            _mm_stream_si128((__m128i *)(d + i + 32), c);
            _mm_stream_si128((__m128i *)(d + i + 48), e);
        }
        // Ordered before any later store (the hand-over to the writer thread).
        _mm_sfence();
        return;
    }
#endif
    memcpy(destination, source, count);
}

int firn_open_direct_writer(const char *path) {
    int fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

// MARK: References

// Exported by the Swift runtime with the C calling convention (every Swift
// program links it). This toolchain's returns the object, retained, or NULL
// when its strong count already reached zero (older runtimes returned a
// bool); UnretainedReferenceTests fail if that changes.
extern void *swift_tryRetain(void *object);

_Bool firn_try_retain(void *object) {
    return swift_tryRetain(object) != 0;
}

// MARK: Threads

pthread_t firn_main_thread;
_Bool firn_main_thread_known = 0;

/// Runs when the library is loaded: on the main thread (its thread id is
/// the process id) unless a library holding Firn was opened from another
/// thread, in which case `firn_is_main_thread` stays false everywhere and
/// the binding checks take their slower lookup.
__attribute__((constructor)) static void firn_note_main_thread(void) {
    if ((pid_t)syscall(SYS_gettid) == getpid()) {
        firn_main_thread = pthread_self();
        firn_main_thread_known = 1;
    }
}
