#if canImport(Glibc)
import Glibc
#endif

/// The `LD_PRELOAD` shim that makes every engine's `fsync` and `fdatasync`
/// behave like a device that really flushes: each call sleeps
/// `FIRN_BENCH_SYNC_DELAY_US` microseconds (the commit rows use 0 and 1000)
/// and then calls the real one. It also counts the calls and, at exit,
/// writes the count to `FIRN_BENCH_SYNC_COUNT_FILE`, so syncs per commit are
/// measured the same way for Firn, LMDB and SQLite. Built by the bench with
/// `cc` into the scratch directory: the same shared object for all three.
enum SyncDelayShim {
    static let source = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
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
