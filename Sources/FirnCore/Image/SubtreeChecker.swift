import Dispatch

/// Checks a packed image's subtrees on another thread while the rest of
/// the image is still being packed, so that verifying the copy does not
/// read it all again once it is written (issue 28's compact row).
///
/// The packer tells it each level-1 page of a named tree it seals, and how
/// far it has handed pages to the output (`PackedImageObserver`). Once a
/// subtree's root is handed over, the checker walks the subtree with every
/// check a walk from the root makes inside it (`Verifier.precheck`),
/// reading the pages from the output's buffers, which keep them meanwhile
/// (`WriteBehindFile.retain(from:busy:)`), or from the file. The clean
/// subtrees (`finish()`) go to the verification of the whole copy, which
/// takes each where its parent references it, after checking what crosses
/// its edge (`Verifier.takePrechecked`), and walks everything else itself:
/// a subtree with a finding is read again there and reported in place.
package final class SubtreeChecker: PackedImageObserver, @unchecked Sendable {
    private struct Submission {
        let tree: String
        let root: PageRef
        let level: Int
        let firstPage: UInt64
    }
    private struct State {
        var queue: [Submission] = []
        /// Pages before this one are handed to the output.
        var handedOver: UInt64 = 0
        var finishing = false
        var checked: [PageRef: PrecheckedSubtree] = [:]
    }
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let output: WriteBehindFile
    private let pageSize: UInt64
    /// Used by the checking thread only.
    private var verifier: Verifier
    private var thread: SideThread<Void>?

    /// A checker of `snapshot`'s packed image as it is written to `output`;
    /// nil when no thread could be started (the copy's verification then
    /// walks every page itself). Its owner ends it with `finish()` or
    /// `cancel()` (the thread holds it until then).
    package init?(snapshot: Snapshot, output: WriteBehindFile) {
        self.output = output
        pageSize = UInt64(snapshot.store.pageSize)
        let pageSize = self.pageSize, count = snapshot.store.pageSize
        verifier = Verifier(subtreesOf: snapshot, reading: HeldPages(output)) { [unowned output] page in
            output.heldBytes(at: page &* pageSize, count: count)
        }
        output.retain(from: 2 * pageSize, busy: false)
        guard let thread = SideThread({ self.checkSubmitted() }) else {
            output.retain(from: .max, busy: false)
            return nil
        }
        self.thread = thread
    }

    package func sealedSubtree(tree: String, root: PageRef, level: Int, firstPage: UInt64) {
        state.withLock { $0.queue.append(Submission(tree: tree, root: root, level: level, firstPage: firstPage)) }
        wake.signal()
    }

    package func handedOver(before page: UInt64) {
        state.withLock { $0.handedOver = max($0.handedOver, page) }
        wake.signal()
    }

    /// Checks what was submitted, stops the thread, and returns the
    /// subtrees found clean by root (idempotent). The output keeps no
    /// buffers for the checker afterwards.
    package func finish() -> [PageRef: PrecheckedSubtree] {
        if let thread {
            self.thread = nil
            state.withLock { $0.finishing = true }
            wake.signal()
            thread.join()
            output.retain(from: .max, busy: false)
        }
        return state.withLock { $0.checked }
    }

    /// Stops without checking what is still queued (the image failed).
    package func cancel() {
        state.withLock { $0.queue.removeAll() }
        _ = finish()
    }

    /// The thread: each submitted subtree in turn, once its root is handed over.
    private func checkSubmitted() {
        // The pages the next subtree will start at, when none is queued.
        var nextStart: UInt64 = 2
        while true {
            let (taken, done, handed) = state.withLock { s -> (Submission?, Bool, UInt64) in
                guard let first = s.queue.first else { return (nil, s.finishing, s.handedOver) }
                guard first.root.page < s.handedOver || s.finishing else { return (nil, false, s.handedOver) }
                s.queue.removeFirst()
                return (first, false, s.handedOver)
            }
            if done { return }
            guard let job = taken else {
                // Waiting for the packer: it may reuse any buffer it needs.
                let waitingFrom = state.withLock { $0.queue.first?.firstPage } ?? nextStart
                output.retain(from: waitingFrom &* pageSize, busy: false)
                wake.wait()
                continue
            }
            // Busy on pages already handed over: the packer waits for it
            // rather than reuse a buffer holding them.
            output.retain(from: job.firstPage &* pageSize, busy: true)
            if let subtree = verifier.precheck(job.root, level: job.level, tree: job.tree, pages: handed) {
                state.withLock { $0.checked[job.root] = subtree }
            }
            nextStart = job.root.page &+ 1
        }
    }
}

/// The image as the checker reads it: from the output's held buffers, else
/// from the file (pages written and no longer held).
private final class HeldPages: FileIO, @unchecked Sendable {
    private let output: WriteBehindFile
    init(_ output: WriteBehindFile) { self.output = output }
    var path: String { output.path }
    var descriptor: Int32 { output.descriptor }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        let held = output.readHeld(into: buffer, at: offset)
        return held > 0 ? held : try output.readWritten(into: buffer, at: offset)
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        throw FirnError.misuse("\(path): the subtree checker only reads")
    }
    func sync() throws(FirnError) {}
    func extend(to size: UInt64) throws(FirnError) {
        throw FirnError.misuse("\(path): the subtree checker only reads")
    }
    func size() throws(FirnError) -> UInt64 { throw FirnError.misuse("\(path): the subtree checker only reads") }
    func close() {}
}
