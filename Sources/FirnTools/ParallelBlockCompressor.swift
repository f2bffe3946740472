import FirnCore
import Dispatch

/// Compresses a stream of bytes into LZ4 frame blocks (`LZ4BlockFrame`) on
/// several threads and writes the blocks in the order they were submitted.
/// The submitting thread (export's packer) copies each piece into a free
/// job and goes on; a worker compresses the job and goes on to the next
/// one, and whichever worker finds the oldest unwritten job compressed
/// writes it, and the compressed ones after it, and frees them: a worker
/// never waits for another's block (when it did, with two workers on two
/// cores beside the packer, one core often sat idle). At most `inFlight` jobs
/// exist, each holding one block in and one block out, so memory is
/// bounded (4 jobs of 1 MiB: about 8 MiB) and the packer waits when the
/// workers fall behind. The packer can also fill a job's input in place
/// (`LeasingOutput`): a block's pages are then never copied.
final class ParallelBlockCompressor: LeasingOutput, @unchecked Sendable {
    /// One block's worth of work: its input and its encoded output.
    private final class Job: @unchecked Sendable {
        let index: Int
        let input: UnsafeMutableRawBufferPointer
        let output: UnsafeMutableRawBufferPointer
        var count = 0
        /// The encoded block's size, once compressed (under `state`'s lock).
        var encoded: Int? = nil

        init(index: Int, blockSize: Int) {
            self.index = index
            input = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 64)
            output = UnsafeMutableRawBufferPointer.allocate(byteCount: LZ4BlockFrame.bound(blockSize), alignment: 64)
        }

        deinit {
            input.deallocate()
            output.deallocate()
        }
    }

    private let blockSize: Int
    /// Encodes one block into a job's output (`LZ4BlockFrame.encode` at
    /// the level asked for; tests slow chosen blocks down with their own).
    typealias Encoder = @Sendable (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) -> Int
    private let encode: Encoder
    private let write: (UnsafeRawBufferPointer) throws(ToolError) -> Void
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    /// The workers: threads of their own, not Dispatch's global queue,
    /// whose threads (one a core) a worker blocked on a semaphore holds.
    private var threads: [SideThread<Void>] = []
    /// Workers that could not get a thread of their own run there instead.
    private let fallback = DispatchGroup()
    private let workerCount: Int
    private struct State {
        var idle: [Job] = []
        var queued: [Job?] = []
        /// Dispatched jobs not yet written, oldest first.
        var unwritten: [Job] = []
        /// A worker is writing: the others leave the writes to it.
        var writing = false
        var failure: ToolError?
        var written: UInt64 = 0
    }
    private let state = Locked(State())
    /// Every job, by index (a lease names its job by index).
    private let jobs: [Job]
    private var filling: Job?
    private var finished = false

    /// `write` is called from the workers, one call at a time, in order.
    convenience init(
        workers: Int, inFlight: Int, blockSize: Int, level: Int32,
        write: @escaping (UnsafeRawBufferPointer) throws(ToolError) -> Void
    ) {
        self.init(workers: workers, inFlight: inFlight, blockSize: blockSize,
                  encoder: { LZ4BlockFrame.encode($0, level: level, into: $1) }, write: write)
    }

    init(
        workers: Int, inFlight: Int, blockSize: Int, encoder: @escaping Encoder,
        write: @escaping (UnsafeRawBufferPointer) throws(ToolError) -> Void
    ) {
        precondition(blockSize > 0 && blockSize <= LZ4BlockFrame.maxBlockSize && inFlight >= 1 && workers >= 1)
        self.blockSize = blockSize
        encode = encoder
        self.write = write
        workerCount = workers
        // Start at 0 and signal up: libdispatch traps when a semaphore is
        // freed below its initial value, which an early exit would leave.
        free = DispatchSemaphore(value: 0)
        jobs = (0..<inFlight).map { Job(index: $0, blockSize: blockSize) }
        state.withLock { [jobs] in $0.idle = jobs }
        for _ in 0..<inFlight { free.signal() }
        for _ in 0..<workers {
            if let thread = SideThread({ self.work() }) {
                threads.append(thread)
            } else {
                DispatchQueue.global().async(group: fallback) { self.work() }
            }
        }
    }

    /// The first error of a worker (compression never fails; writing may).
    var failure: ToolError? { state.withLock { $0.failure } }

    /// Records a failure from outside the workers (the first one is kept).
    func fail(_ error: ToolError) { state.withLock { if $0.failure == nil { $0.failure = error } } }

    /// Appends `bytes` to the stream: whole blocks go to the workers, the
    /// rest waits for more. Throws a worker's failure, so packing stops early.
    func submit(_ bytes: UnsafeRawBufferPointer) throws(ToolError) {
        if let failure { throw failure }
        var start = 0
        while start < bytes.count {
            let job: Job
            if let filling { job = filling } else {
                let taken = takeIdle()
                filling = taken
                job = taken
            }
            let take = min(blockSize - job.count, bytes.count - start)
            UnsafeMutableRawBufferPointer(rebasing: job.input[job.count..<(job.count + take)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + take)]))
            job.count += take
            start += take
            if job.count == blockSize { dispatch(job) }
        }
    }

    /// Compresses what is left, waits for every block to be written, and
    /// returns the bytes written (the blocks, not the end mark).
    func finish() throws(ToolError) -> UInt64 {
        if let filling, filling.count > 0 { dispatch(filling) }
        stop()
        if let failure { throw failure }
        return state.withLock { $0.written }
    }

    /// Ends the workers after the jobs already given (also on a failure path).
    func stop() {
        guard !finished else { return }
        finished = true
        filling = nil
        state.withLock { state in
            for _ in 0..<workerCount { state.queued.append(nil) }
        }
        for _ in 0..<workerCount { ready.signal() }
        for thread in threads { thread.join() }
        threads = []
        fallback.wait()
    }

    // LeasingOutput: a job's input, filled by the packer in place.
    var leaseBytes: Int { blockSize }

    func lease() throws(FirnError) -> OutputLease {
        if failure != nil { throw Self.stopped }
        // Bytes submitted by copy go out before the lent block.
        if let filling, filling.count > 0 { dispatch(filling) }
        let job = filling ?? takeIdle()
        filling = nil
        return OutputLease(index: job.index, bytes: job.input)
    }

    func submit(_ lease: OutputLease, count: Int, at offset: UInt64) throws(FirnError) {
        let job = jobs[lease.index]
        job.count = min(max(0, count), blockSize)
        dispatch(job)
        if failure != nil { throw Self.stopped }
    }

    func giveBack(_ lease: OutputLease) {
        state.withLock { [jobs] in $0.idle.append(jobs[lease.index]) }
        free.signal()
    }

    /// What the packer is told when a worker failed (export throws the
    /// worker's own error, `failure`).
    private static let stopped = FirnError.misuse("export stopped: compression failed")

    /// A free job, emptied (waits for one).
    private func takeIdle() -> Job {
        free.wait()
        guard let taken = state.withLock({ $0.idle.popLast() }) else {
            preconditionFailure("a free slot without an idle job")
        }
        taken.count = 0
        return taken
    }

    private func dispatch(_ job: Job) {
        filling = nil
        state.withLock {
            job.encoded = nil
            $0.queued.append(job)
            $0.unwritten.append(job)
        }
        ready.signal()
    }

    private func work() {
        while true {
            ready.wait()
            guard let job = state.withLock({ $0.queued.removeFirst() }) else { return }
            // After a failure nothing more is written: the job is only freed.
            let size = failure == nil
                ? encode(UnsafeRawBufferPointer(rebasing: job.input[0..<job.count]), job.output)
                : 0
            state.withLock { _ in job.encoded = size }
            writeInOrder()
        }
    }

    /// Writes the oldest unwritten jobs while they are compressed, unless
    /// another worker is at it (it looks again after each write, so a job
    /// compressed meanwhile is not left behind), and frees them.
    private func writeInOrder() {
        while true {
            let next: (job: Job, size: Int)? = state.withLock { state in
                guard !state.writing, let head = state.unwritten.first, let size = head.encoded else { return nil }
                state.writing = true
                state.unwritten.removeFirst()
                return (head, size)
            }
            guard let (job, size) = next else { return }
            if failure == nil {
                do throws(ToolError) {
                    try write(UnsafeRawBufferPointer(rebasing: job.output[0..<size]))
                    state.withLock { $0.written += UInt64(size) }
                } catch {
                    fail(error)
                }
            }
            state.withLock {
                $0.writing = false
                $0.idle.append(job)
            }
            free.signal()
        }
    }
}
