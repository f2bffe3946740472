#if canImport(Glibc)
import Glibc
#endif

/// The `LD_PRELOAD` shim that makes every engine's `fsync` and `fdatasync`
/// behave like a device that really flushes: each call sleeps
/// `FIRN_BENCH_SYNC_DELAY_US` microseconds (the commit rows use 0 and 1000)
/// and then calls the real one. A write through a descriptor opened with
/// `O_DSYNC` or `O_SYNC` is a sync too (LMDB writes its meta page that way,
/// after an fdatasync of its data pages), and gets the same delay. It also counts the calls and, at exit,
/// writes the count to `FIRN_BENCH_SYNC_COUNT_FILE`, so syncs per commit are
/// measured the same way for Firn, LMDB and SQLite. Built by the bench with
/// `cc` into the scratch directory: the same shared object for all three.
enum SyncDelayShim {
    static let source = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <fcntl.h>
    #include <stdarg.h>
    #include <sys/types.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <time.h>
    #include <unistd.h>

    static long delay_us = -1;
    static unsigned long calls;

    static void pause_for_device(void) {
        if (delay_us < 0) {
            const char *s = getenv("FIRN_BENCH_SYNC_DELAY_US");
            delay_us = s ? atol(s) : 1000;
        }
        __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
        if (delay_us > 0) {
            struct timespec t = { delay_us / 1000000, (delay_us % 1000000) * 1000 };
            while (nanosleep(&t, &t) != 0) {}
        }
    }

    /* Descriptors opened with O_DSYNC or O_SYNC: every write is a sync. */
    #define MAX_FD 65536
    static unsigned char sync_fd[MAX_FD];

    static void note_open(int fd, int flags) {
        if (fd >= 0 && fd < MAX_FD) sync_fd[fd] = (flags & (O_DSYNC | O_SYNC)) != 0;
    }

    int open(const char *path, int flags, ...) {
        static int (*real)(const char *, int, ...);
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
        va_list ap; va_start(ap, flags); mode_t mode = va_arg(ap, mode_t); va_end(ap);
        int fd = real(path, flags, mode);
        note_open(fd, flags);
        return fd;
    }

    int open64(const char *path, int flags, ...) {
        static int (*real)(const char *, int, ...);
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
        va_list ap; va_start(ap, flags); mode_t mode = va_arg(ap, mode_t); va_end(ap);
        int fd = real(path, flags, mode);
        note_open(fd, flags);
        return fd;
    }

    ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
        static ssize_t (*real)(int, const void *, size_t, off_t);
        if (!real) real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
        ssize_t r = real(fd, buf, n, off);
        if (fd >= 0 && fd < MAX_FD && sync_fd[fd]) pause_for_device();
        return r;
    }

    ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
        static ssize_t (*real)(int, const void *, size_t, off64_t);
        if (!real) real = (ssize_t (*)(int, const void *, size_t, off64_t))dlsym(RTLD_NEXT, "pwrite64");
        ssize_t r = real(fd, buf, n, off);
        if (fd >= 0 && fd < MAX_FD && sync_fd[fd]) pause_for_device();
        return r;
    }

    ssize_t write(int fd, const void *buf, size_t n) {
        static ssize_t (*real)(int, const void *, size_t);
        if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
        ssize_t r = real(fd, buf, n);
        if (fd >= 0 && fd < MAX_FD && sync_fd[fd]) pause_for_device();
        return r;
    }

    int fsync(int fd) {
        static int (*real)(int);
        if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
        pause_for_device();
        return real(fd);
    }

    int fdatasync(int fd) {
        static int (*real)(int);
        if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
        pause_for_device();
        return real(fd);
    }

    __attribute__((destructor)) static void report_calls(void) {
        const char *path = getenv("FIRN_BENCH_SYNC_COUNT_FILE");
        if (!path) return;
        FILE *f = fopen(path, "w");
        if (!f) return;
        fprintf(f, "%lu\n", __atomic_load_n(&calls, __ATOMIC_RELAXED));
        fclose(f);
    }
    """#

    /// Compiles the shim into `scratch` and returns the path of the .so.
    static func build(scratch: String) throws -> String {
        let c = "\(scratch)/sync-delay-shim.c", so = "\(scratch)/sync-delay-shim.so"
        guard let f = fopen(c, "w") else { throw EngineError(description: "cannot write \(c)") }
        fputs(source, f)
        fclose(f)
        try runChild(["cc", "-shared", "-fPIC", "-O2", "-o", so, c, "-ldl"], scratch: scratch)
        return so
    }
}
