import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A new file written front to back by one producer (a compaction's packed
/// image): each write is copied into one of a few buffers and written by
/// another thread, so the device's writes overlap with building the next
/// pages, and the final `sync()` finds little left to flush (issue 28's
/// compact row).
///
/// With `direct`, the writer thread writes through a second descriptor
/// opened with `O_DIRECT`: no copy into the page cache (a third of a
/// compaction's CPU went there). A file system without direct I/O, or a
/// write it refuses (EINVAL: an unaligned size), is written through the
/// page cache instead, that write and every later one; without `direct`,
/// the writer starts each range's writeback as it goes.
///
/// A reader on another thread (`SubtreeChecker`) can read what was handed
/// over from the buffers (`readHeld`) while they are held: queued, being
/// written, or written and kept because they lie at or past `retain(from:)`.
/// The producer recycles the oldest kept buffer when it needs one, and waits
/// for the reader only while the reader says it is busy on pages already
/// handed over (`retain(from:busy:)`), so neither can wait for the other forever.
///
/// The first failed write is kept and thrown by the next call that waits
/// for the writer (`write` once the buffers are full, `sync`, `read`,
/// `size`, `extend`, `finish`). Reads, sizes and extensions first wait for
/// every write handed over: they see the file as written so far.
package final class WriteBehindFile: FileIO, LeasingOutput, @unchecked Sendable {
    package var path: String { file.path }
    package var descriptor: Int32 { file.descriptor }
    private let file: POSIXFile
    /// A write handed to the writer thread: its buffer and where it goes.
    private struct Job {
        let buffer: Int
        let count: Int
        let offset: UInt64
        var end: UInt64 { offset + UInt64(count) }
    }
    private struct State {
        var queue: [Job] = []
        var freeBuffers: [Int]
        /// Every buffer not free (queued, being written, or kept), by buffer.
        var held: [Job?]
        /// Written buffers kept for the reader, oldest first.
        var kept: [Job] = []
        /// Written bytes at or past this offset are kept (`UInt64.max`: none).
        var retainFrom = UInt64.max
        /// The reader is busy on pages already handed over: the producer
        /// waits for it rather than take a buffer it keeps.
        var readerBusy = false
        var pending = 0
        var failure: FirnError? = nil
        var finished = false
        /// The `O_DIRECT` descriptor while direct writes work, else -1.
        var direct: Int32 = -1
    }
    private let state: Locked<State>
    private let buffers: [UnsafeMutableRawBufferPointer]
    /// Signalled once per job queued (and once at the end).
    private let queued = DispatchSemaphore(value: 0)
    /// Signalled once per buffer given back or freed for reuse.
    private let returned = DispatchSemaphore(value: 0)
    private var writer: SideThread<Void>?

    /// The size of a buffer: a write larger than a buffer is split. Three
    /// buffers without a reader (the producer fills one while another is
    /// written); a reader that checks what was written needs the pages of
    /// the subtree it walks kept (`keptBufferCount`).
    package static let bufferCount = 3
    package static let keptBufferCount = 6
    static let bufferBytes = 1 << 20

    /// Takes over `file` (closed by `close()`). `direct`: write with
    /// `O_DIRECT` where the file system allows. `buffers`: how many (more
    /// when a reader keeps pages). Nil when no writer thread could be
    /// started: the caller writes `file` directly.
    package init?(_ file: POSIXFile, direct: Bool = false, buffers count: Int = WriteBehindFile.bufferCount) {
        self.file = file
        let count = max(2, count)
        buffers = (0..<count).map { _ in
            UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferBytes, alignment: 4096)
        }
        var initial = State(freeBuffers: Array(0..<count), held: Array(repeating: nil, count: count))
        if direct, case let .success(fd) = SystemCall.openDirectWriter(file.path) { initial.direct = fd }
        state = Locked(initial)
        guard let thread = SideThread({ [unowned self] in self.writeQueued() }) else {
            for buffer in buffers { buffer.deallocate() }
            let fd = state.withLock { $0.direct }
            if fd >= 0 { Glibc.close(fd) }
            return nil
        }
        writer = thread
    }

    deinit {
        finishWriter()
        for buffer in buffers { buffer.deallocate() }
    }

    /// Whether writes still bypass the page cache.
    package var writesDirect: Bool { state.withLock { $0.direct >= 0 } }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        var done = 0
        while done < bytes.count {
            let lease = try lease()
            let count = min(Self.bufferBytes, bytes.count - done)
            if let base = bytes.baseAddress { lease.bytes.baseAddress?.copyMemory(from: base + done, byteCount: count) }
            submit(lease, count: count, at: offset + UInt64(done))
            done += count
        }
    }

    // LeasingOutput: the packer fills the buffers in place (no copy).
    package var leaseBytes: Int { Self.bufferBytes }

    /// A free buffer to fill (waits for one as `write` does).
    package func lease() throws(FirnError) -> OutputLease {
        let buffer = try takeBuffer()
        return OutputLease(index: buffer, bytes: buffers[buffer])
    }

    /// Hands over the first `count` bytes of `lease`'s buffer, to be written at `offset`.
    package func submit(_ lease: OutputLease, count: Int, at offset: UInt64) {
        let job = Job(buffer: lease.index, count: min(max(0, count), Self.bufferBytes), offset: offset)
        state.withLock { s in
            s.queue.append(job)
            s.held[job.buffer] = job
            s.pending += 1
        }
        queued.signal()
    }

    /// Gives back a leased buffer unused.
    package func giveBack(_ lease: OutputLease) {
        state.withLock { $0.freeBuffers.append(lease.index) }
        returned.signal()
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        try drain()
        return try file.read(into: buffer, at: offset)
    }

    /// Copies into `buffer` the bytes from `offset` that held buffers have
    /// (handed over, not yet reused), as far as they run without a gap; 0
    /// when none has the byte at `offset`. Does not wait for the writer.
    package func readHeld(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        // Under the lock: a buffer found here cannot be reused while its bytes are copied.
        return state.withLock { s in
            var done = 0
            while done < buffer.count {
                let at = offset + UInt64(done)
                guard let job = s.held.lazy.compactMap({ $0 }).first(where: { $0.offset <= at && at < $0.end }),
                      let source = buffers[job.buffer].baseAddress else { break }
                let start = Int(at - job.offset)
                let count = min(buffer.count - done, job.count - start)
                (base + done).copyMemory(from: source + start, byteCount: count)
                done += count
            }
            return done
        }
    }

    /// The bytes `offset..<offset + count` in place in a held buffer, while
    /// the reader is busy and the buffer lies past `retain(from:)`: the
    /// producer cannot reuse it until the reader's next `retain`. Nil
    /// otherwise (then `readHeld` or `readWritten` copy them).
    package func heldBytes(at offset: UInt64, count: Int) -> UnsafeRawPointer? {
        state.withLock { s in
            guard s.readerBusy, let job = s.held.lazy.compactMap({ $0 }).first(where: {
                $0.offset <= offset && offset + UInt64(count) <= $0.end && $0.end > s.retainFrom
            }), let base = buffers[job.buffer].baseAddress else { return nil }
            return UnsafeRawPointer(base + Int(offset - job.offset))
        }
    }

    /// Reads `offset` from the file itself, not waiting for the writer (a
    /// range not yet written reads short or stale: the reader's checks see it).
    package func readWritten(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        try file.read(into: buffer, at: offset)
    }

    /// Keeps written bytes at or past `offset` (`UInt64.max`: none) for
    /// `readHeld`. `busy`: the reader is walking pages already handed over
    /// and needs nothing more from the producer, which then waits for it
    /// rather than reuse a kept buffer.
    package func retain(from offset: UInt64, busy: Bool) {
        state.withLock { s in
            s.retainFrom = offset
            s.readerBusy = busy
        }
        returned.signal()
    }

    package func sync() throws(FirnError) {
        try drain()
        try file.sync()
    }

    package func extend(to size: UInt64) throws(FirnError) {
        try drain()
        try file.extend(to: size)
    }

    package func size() throws(FirnError) -> UInt64 {
        try drain()
        return try file.size()
    }

    package func close() {
        finishWriter()
        let fd = state.withLock { s -> Int32 in
            let fd = s.direct
            s.direct = -1
            return fd
        }
        if fd >= 0 { Glibc.close(fd) }
        file.close()
    }

    /// A free buffer: a free one, else the oldest kept one the reader does
    /// not need, else (the reader not busy) the oldest kept one anyway;
    /// otherwise waits. Throws the writer's failure.
    private func takeBuffer() throws(FirnError) -> Int {
        while true {
            let taken = state.withLock { s -> Result<Int?, FirnError> in
                if let failure = s.failure { return .failure(failure) }
                if let free = s.freeBuffers.popLast() { return .success(free) }
                guard let oldest = s.kept.first, oldest.end <= s.retainFrom || !s.readerBusy else { return .success(nil) }
                s.kept.removeFirst()
                s.held[oldest.buffer] = nil
                return .success(oldest.buffer)
            }
            switch taken {
            case let .failure(error): throw error
            case let .success(buffer?): return buffer
            case .success(nil): returned.wait()
            }
        }
    }

    /// Waits until every write handed over is written; throws the first failure.
    private func drain() throws(FirnError) {
        while true {
            let (pending, failure) = state.withLock { ($0.pending, $0.failure) }
            if let failure { throw failure }
            if pending == 0 { return }
            returned.wait()
        }
    }

    /// Stops the writer thread after the writes queued (idempotent).
    private func finishWriter() {
        guard let writer else { return }
        self.writer = nil
        state.withLock { $0.finished = true }
        queued.signal()
        writer.join()
    }

    /// Writes one job: through the `O_DIRECT` descriptor while it works,
    /// else through the page cache with its writeback started.
    private func write(_ job: Job) throws(FirnError) {
        let bytes = UnsafeRawBufferPointer(rebasing: buffers[job.buffer][0..<job.count])
        let direct = state.withLock { $0.direct }
        if direct >= 0 {
            guard let error = SystemCall.writeAll(direct, bytes, at: job.offset) else { return }
            guard error.code == EINVAL else {
                throw FirnError.io(path: file.path, operation: "pwrite (O_DIRECT) at offset \(job.offset)", errno: error.code)
            }
            // Refused (alignment, or no direct I/O after all): through the
            // page cache from here on, this job again from its start.
            state.withLock { $0.direct = -1 }
            Glibc.close(direct)
        }
        try file.write(bytes, at: job.offset)
        // Only a hint: a file system without it still syncs at the end.
        _ = SystemCall.startWriteback(file.descriptor, offset: job.offset, count: UInt64(job.count))
    }

    /// The writer thread: writes each job, then keeps its buffer for the
    /// reader or gives it back; after a failure it only gives buffers back.
    private func writeQueued() {
        while true {
            queued.wait()
            let next = state.withLock { s -> Job? in s.queue.isEmpty ? nil : s.queue.removeFirst() }
            guard let job = next else {
                if state.withLock({ $0.finished && $0.queue.isEmpty }) { return }
                continue
            }
            let failed = state.withLock { $0.failure != nil }
            var failure: FirnError? = nil
            if !failed {
                do throws(FirnError) { try write(job) } catch { failure = error }
            }
            state.withLock { s in
                if s.failure == nil, let failure { s.failure = failure }
                if s.failure == nil, job.end > s.retainFrom {
                    s.kept.append(job)
                } else {
                    s.held[job.buffer] = nil
                    s.freeBuffers.append(job.buffer)
                }
                s.pending -= 1
            }
            returned.signal()
        }
    }
}
