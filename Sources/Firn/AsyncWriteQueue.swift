import Dispatch
import FirnCore
import Foundation

/// Identifies one `beginAsyncWrite` / `writeAsync` request or one
/// `commitAsyncWrite` callback of an instance, for `cancelAsyncWrite`.
public typealias AsyncTransactionId = UInt32

/// The asynchronous writes of one live instance (docs/SDK.md, "Asynchronous
/// writes"). Blocks and completions run on the instance's binding, in the
/// order asked for; the two waits that could block it — for the writer lock
/// and for the durable sync — run on a worker queue of the instance's own,
/// which posts each outcome to a mailbox and wakes the binding (a block on
/// the queue, a task on the actor; a thread runs what is ready at its pump
/// points).
///
/// One request at a time holds the lock: the worker asks for it only when
/// no block runs and no other request of this instance is waiting for it.
/// A commit is `.deferred` (pages and an unsealed record, no sync) and the
/// instance reads it at once; its completion waits for `durableVersion` to
/// reach it. The sync is asked for at once after an ungrouped commit (the
/// worker does it before taking the lock for the next request, so each
/// ungrouped commit is its own durability point), and after a run of
/// grouped ones only when no request is left (or after `groupLimit` of
/// them): the run shares one `Store.sync()`, and a crash keeps all of it or
/// none. While `waitUntilIdle` waits on the binding, a sync that falls due
/// runs there, between blocks, instead of on the worker (`syncHere`).
///
/// Not thread-safe: everything but the mailbox is used on the binding only.
final class AsyncWriteQueue {
    /// A `beginAsyncWrite` or `writeAsync` not yet finished.
    final class Request {
        let id: AsyncTransactionId
        let block: @Sendable () throws -> Void
        /// `writeAsync` commits when the block returns in a write; a
        /// `beginAsyncWrite` block that does not commit cancels.
        let commitsAtEnd: Bool
        let onComplete: (@Sendable ((any Error)?) -> Void)?
        /// The commit this request's block made itself (its id).
        var commitID: AsyncTransactionId?
        /// Cancelled by id while its block ran: no completion.
        var cancelled = false

        init(id: AsyncTransactionId, block: @escaping @Sendable () throws -> Void, commitsAtEnd: Bool,
             onComplete: (@Sendable ((any Error)?) -> Void)?) {
            self.id = id
            self.block = block
            self.commitsAtEnd = commitsAtEnd
            self.onComplete = onComplete
        }
    }

    /// A commit whose completions have not run: they run, in commit order,
    /// once the durable version reaches `version` (or at once with `error`).
    private struct Commit {
        let id: AsyncTransactionId
        /// Nil: nothing to wait for (an error, or a write that ended without committing).
        var version: UInt64?
        var error: (any Error)?
        /// Id 0: the completion of a `writeAsync`, which its begin id does not cancel.
        var callbacks: [(id: AsyncTransactionId, call: @Sendable ((any Error)?) -> Void)]
    }

    /// What the worker posts back.
    enum Message {
        /// The writer lock for the next request, or why it was not granted.
        case lock(Result<TransactionBox, DatabaseError>)
        /// The worker had the lock, but the binding did not take it within
        /// `offerWindow` (busy elsewhere: it may be waiting for the lock
        /// itself, through another instance): it gave the lock back. The
        /// binding asks again when it is free.
        case lockWithdrawn
        /// The outcome of a durable sync asked for when this instance had
        /// committed up to `upTo`.
        case durable(upTo: UInt64, Result<UInt64, DatabaseError>)
    }

    /// A write transaction on its way from the worker to the binding.
    final class TransactionBox: @unchecked Sendable {
        let transaction: WriteTransaction
        init(_ transaction: sending WriteTransaction) { self.transaction = transaction }
    }

    /// Where the worker posts; the binding takes, or waits when it must.
    /// The writer lock is offered, not posted: the worker keeps it only if
    /// the binding takes it in time.
    final class Mailbox: @unchecked Sendable {
        private let condition = NSCondition()
        private var messages: [Message] = []
        /// The transaction the worker offers, until the binding takes it.
        private var offered: TransactionBox?

        func post(_ message: Message) {
            condition.lock()
            messages.append(message)
            condition.broadcast()
            condition.unlock()
        }

        /// Offers `box` to the binding (woken by `wake`) and waits up to
        /// `seconds` for it to be taken. False when it was not: the offer
        /// is withdrawn, and the caller gives the lock back.
        func offer(_ box: TransactionBox, wake: () -> Void, within seconds: Double) -> Bool {
            condition.lock()
            offered = box
            condition.broadcast()
            condition.unlock()
            wake()
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: seconds)
            while offered === box, condition.wait(until: deadline) {}
            guard offered === box else { return true }
            offered = nil
            return false
        }

        /// Everything posted so far and the lock if offered; with `wait`,
        /// sleeps until there is something.
        func take(wait: Bool) -> [Message] {
            condition.lock()
            defer { condition.unlock() }
            while wait && messages.isEmpty && offered == nil { condition.wait() }
            var taken = messages
            messages.removeAll()
            if let box = offered {
                taken.append(.lock(.success(box)))
                offered = nil
                condition.broadcast()
            }
            return taken
        }
    }

    /// How long the worker holds the writer lock for a binding that does
    /// not take it. A binding busy elsewhere may be waiting for that very
    /// lock (its queue waits for a synchronous write of another instance):
    /// holding on would stall both until the lock timed out, or forever.
    /// A binding that is free takes it within microseconds.
    static let offerWindow = 0.025

    /// Holds the instance for the worker's wake-up block: an instance with
    /// work in flight stays alive until that work has come back to it. Only
    /// used on the binding (the block runs there).
    private final class CoreHandle: @unchecked Sendable {
        let core: DatabaseCore
        init(_ core: DatabaseCore) { self.core = core }
    }

    private unowned let core: DatabaseCore
    private var lastID: AsyncTransactionId = 0
    private var requests = RequestQueue<Request>()
    private var running: Request?
    private var commits: [Commit] = []
    /// The worker is taking the writer lock for the first request.
    private var acquiring = false
    private var syncsInFlight = 0
    /// Commits made since the last sync was asked for.
    private var unsynced = false
    /// One of them was ungrouped: its sync goes before the next lock.
    private var syncBarrier = false
    /// How many commits since the last sync was asked for.
    private var unsyncedCount = 0
    /// A run of grouped commits longer than this is synced anyway, so a
    /// steady stream of requests cannot put every completion off forever.
    static let groupLimit = 100
    /// The newest version this instance committed asynchronously.
    private var lastCommitted: UInt64 = 0
    /// `waitUntilIdle` is running on the binding: its caller waits for
    /// every request and completion, so a durable sync runs right here
    /// instead of on the worker, while the binding would only sleep.
    private var waitingHere = 0
    /// How many durable syncs ran on the binding (`syncHere`), for tests.
    private(set) var syncsRunHere = 0
    private let mailbox = Mailbox()
    private let worker: DispatchQueue

    init(core: DatabaseCore) {
        self.core = core
        worker = DispatchQueue(label: "firn-async-writes \(core.binding.description)")
    }

    /// True from the first request until the last completion has run.
    var isPerforming: Bool {
        !requests.isEmpty || running != nil || !commits.isEmpty || acquiring || syncsInFlight > 0 || unsynced
    }

    // MARK: requests

    /// Queues `block` to run in a write transaction on the binding.
    func request(_ block: @escaping @Sendable () throws -> Void, commitsAtEnd: Bool,
                 onComplete: (@Sendable ((any Error)?) -> Void)?) -> AsyncTransactionId {
        core.checkAccess()
        let id = nextID()
        requests.append(Request(id: id, block: block, commitsAtEnd: commitsAtEnd, onComplete: onComplete))
        scheduleWork()
        return id
    }

    /// Commits the instance's write transaction without waiting for the
    /// disk; `onComplete` runs on the binding once the commit is durable.
    func commit(allowGrouping: Bool, onComplete: (@Sendable ((any Error)?) -> Void)?) -> AsyncTransactionId {
        core.checkAccess()
        guard core.isInWriteTransaction else {
            fatalError("Firn: \(DatabaseError.notInWriteTransaction(operation: "commitAsyncWrite"))")
        }
        let id = nextID()
        var commit = Commit(id: id, version: nil, error: nil, callbacks: [])
        do {
            let version = try core.commitWrite(durability: .deferred)
            commit.version = version
            lastCommitted = max(lastCommitted, version)
            unsynced = true
            unsyncedCount += 1
            if !allowGrouping { syncBarrier = true }
        } catch {
            commit.error = error
        }
        if let onComplete { commit.callbacks.append((id, onComplete)) }
        commits.append(commit)
        running?.commitID = id
        scheduleWork()
        // An error is ready at once: delivered on the binding, after the
        // completions before it, never inside this call.
        if commit.error != nil { wake() }
        return id
    }

    /// Cancels a request (its block never runs, or its transaction is
    /// rolled back while the block runs) or, for a commit id, only the
    /// commit's callback.
    func cancel(_ id: AsyncTransactionId) throws(DatabaseError) {
        core.checkAccess()
        if requests.removeFirst(where: { $0.id == id }) { return }
        if let running, running.id == id, running.commitID == nil, !running.cancelled, core.isInWriteTransaction {
            running.cancelled = true
            core.cancelWrite()
            return
        }
        for index in commits.indices {
            if let callback = commits[index].callbacks.firstIndex(where: { $0.id == id && id != 0 }) {
                commits[index].callbacks.remove(at: callback)
                return
            }
        }
        throw DatabaseError.unknownAsyncWrite(id: id)
    }

    private func nextID() -> AsyncTransactionId {
        lastID = lastID == AsyncTransactionId.max ? 1 : lastID + 1
        return lastID
    }

    // MARK: on the binding

    /// Runs what the worker has brought: blocks whose lock came, completions
    /// whose durability came. Every wake-up of the binding ends here.
    func process() {
        core.checkAccess()
        while true {
            let messages = mailbox.take(wait: false)
            if messages.isEmpty { break }
            for message in messages { handle(message) }
        }
        deliverCompletions()
        scheduleWork(onPump: true)
    }

    /// Runs every request queued before now (a synchronous write comes
    /// after them). Inside a running block, nothing: what is queued comes
    /// after that block.
    func completeQueuedRequests() {
        guard running == nil else { return }
        while true {
            process()
            if requests.isEmpty && !acquiring { return }
            for message in mailbox.take(wait: true) { handle(message) }
        }
    }

    /// Waits until every request and completion is over, running them here
    /// (`close()`, `invalidate()`, `waitForAsyncWrites()`). Inside a running
    /// block, nothing: the rest comes after that block.
    func waitUntilIdle() {
        guard running == nil else { return }
        waitingHere += 1
        defer { waitingHere -= 1 }
        while true {
            process()
            if !isPerforming { return }
            for message in mailbox.take(wait: true) { handle(message) }
        }
    }

    private func handle(_ message: Message) {
        switch message {
        case let .lock(result):
            acquiring = false
            start(result)
        case .lockWithdrawn:
            acquiring = false
        case let .durable(upTo, result):
            syncsInFlight -= 1
            if case let .failure(error) = result { fail(upTo: upTo, error) }
            deliverCompletions()
        }
        scheduleWork(onPump: true)
    }

    /// The writer lock (or its failure) goes to the first request; with
    /// every request cancelled meanwhile, it is given back.
    private func start(_ result: Result<TransactionBox, DatabaseError>) {
        guard let request = requests.popFirst() else {
            if case let .success(box) = result { box.transaction.abort() }
            return
        }
        do throws(DatabaseError) {
            let box = try result.get()
            try core.adopt(box.transaction)
        } catch {
            finish(request, error: error)
            return
        }
        run(request)
    }

    private func run(_ request: Request) {
        let outer = running
        running = request
        defer { running = outer }
        do {
            try request.block()
        } catch {
            // Only the transaction this request began.
            if core.isInWriteTransaction && request.commitID == nil && !request.cancelled { core.cancelWrite() }
            if !request.cancelled { finish(request, error: error) }
            return
        }
        if request.cancelled { return }
        if core.isInWriteTransaction && request.commitID == nil {
            if request.commitsAtEnd {
                let id = commit(allowGrouping: false, onComplete: nil)
                attach(request, to: id)
            } else {
                core.cancelWrite()
            }
            return
        }
        if let commitID = request.commitID {
            attach(request, to: commitID)
        } else {
            // The block ended the write itself without committing.
            finish(request, error: nil)
        }
    }

    /// A `writeAsync` completion, after the commit `id`'s.
    private func attach(_ request: Request, to id: AsyncTransactionId) {
        guard let onComplete = request.onComplete else { return }
        if let index = commits.firstIndex(where: { $0.id == id }) {
            commits[index].callbacks.append((0, onComplete))
        } else {
            // That commit's completions already ran (a pump inside the block).
            commits.append(Commit(id: 0, version: nil, error: nil, callbacks: [(0, onComplete)]))
            wake()
        }
    }

    /// A request that ends without a commit: its completion (if any) comes
    /// in order with the commits' ones.
    private func finish(_ request: Request, error: (any Error)?) {
        guard let onComplete = request.onComplete else { return }
        commits.append(Commit(id: 0, version: nil, error: error, callbacks: [(0, onComplete)]))
        wake()
    }

    /// The commits up to `upTo` still waiting get `error`: their sync failed.
    private func fail(upTo: UInt64, _ error: DatabaseError) {
        for index in commits.indices where commits[index].error == nil {
            if let version = commits[index].version, version <= upTo { commits[index].error = error }
        }
    }

    /// Runs the completions of the commits now durable (or failed), in
    /// commit order, stopping at the first still waiting.
    private func deliverCompletions() {
        guard !commits.isEmpty else { return }
        let durable = (try? core.store.durableVersion) ?? 0
        while let first = commits.first {
            if first.error == nil, let version = first.version, version > durable { break }
            commits.removeFirst()
            for callback in first.callbacks { callback.call(first.error) }
        }
    }

    // MARK: the worker

    /// Asks the worker for what is due: the durable sync (at once after an
    /// ungrouped commit; after grouped ones, once no request is left or the
    /// group reaches `groupLimit`), then the writer lock for the first request.
    ///
    /// `onPump`: called where the binding processes (not inside a request,
    /// a block or a commit). There, while no sync of ours is due or under
    /// way, the first request takes the writer lock here when it is free at
    /// once (`tryBeginWrite`, which never waits) and runs, and so on for the
    /// next: a run of grouped requests makes no round trip through the
    /// worker per request. A lock held elsewhere (another instance or
    /// process, or our sync) still goes through the worker, so the binding
    /// never waits for it; and an ungrouped commit's sync still comes before
    /// the next lock.
    ///
    /// While `waitUntilIdle` runs (its caller waits for everything), the
    /// sync that is due runs here on the pump (`syncHere`), not on the
    /// worker: the binding would only sleep until the worker's message
    /// came, and the two hand-overs cost more than the sync's own work. A
    /// commit's sync is then left due until its block has returned to the
    /// pump, so `commitAsyncWrite` still returns at once.
    private func scheduleWork(onPump: Bool = false) {
        while true {
            let runEnded = requests.isEmpty && running == nil && !acquiring
            if unsynced && (syncBarrier || runEnded || unsyncedCount >= Self.groupLimit) {
                if waitingHere == 0 || core.isInWriteTransaction {
                    startSync()
                } else if onPump {
                    syncHere()
                }
            }
            guard !acquiring && running == nil && !requests.isEmpty else { return }
            guard onPump, syncsInFlight == 0, !unsynced || !syncBarrier, let box = tryLockingHere() else {
                startAcquiring()
                return
            }
            start(.success(box))
            deliverCompletions()
        }
    }

    /// The write transaction for the first request, begun here when the
    /// writer lock is free at once; nil when it is not, or when beginning
    /// fails (the worker then begins it and reports the failure).
    private func tryLockingHere() -> TransactionBox? {
        do throws(FirnError) {
            guard let transaction = try core.store.tryBeginWrite() else { return nil }
            return TransactionBox(transaction)
        } catch {
            return nil
        }
    }

    private func startAcquiring() {
        acquiring = true
        let store = core.store, mailbox = mailbox, wake = waker()
        worker.async {
            let box: TransactionBox
            do throws(FirnError) {
                box = TransactionBox(try store.beginWriteBlocking())
            } catch {
                mailbox.post(.lock(.failure(.engine(error))))
                wake()
                return
            }
            if mailbox.offer(box, wake: wake, within: AsyncWriteQueue.offerWindow) { return }
            // Not taken: the binding is busy. The lock goes back (others may
            // be waiting for it, the binding itself among them) and the
            // binding asks again when it next processes.
            box.transaction.abort()
            mailbox.post(.lockWithdrawn)
            wake()
        }
    }

    /// The durable sync that is due, on the binding, where `waitUntilIdle`
    /// waits; then the completions it made due.
    private func syncHere() {
        let upTo = takeDueSync()
        syncsRunHere += 1
        do throws(FirnError) {
            _ = try core.store.sync()
        } catch {
            fail(upTo: upTo, .engine(error))
        }
        deliverCompletions()
    }

    private func startSync() {
        syncsInFlight += 1
        let store = core.store, mailbox = mailbox, wake = waker(), upTo = takeDueSync()
        worker.async {
            let result: Result<UInt64, DatabaseError>
            do throws(FirnError) {
                result = .success(try store.sync())
            } catch {
                result = .failure(.engine(error))
            }
            mailbox.post(.durable(upTo: upTo, result))
            wake()
        }
    }

    /// Marks the due sync as asked for; returns the newest commit it covers.
    private func takeDueSync() -> UInt64 {
        unsynced = false
        unsyncedCount = 0
        syncBarrier = false
        return lastCommitted
    }

    /// Schedules `process()` on the binding now.
    private func wake() { waker()() }

    /// A block that schedules `process()` on the binding (nothing for a
    /// thread, which processes at its pump points). It holds the instance.
    private func waker() -> @Sendable () -> Void {
        let binding = core.binding
        if case .thread = binding { return {} }
        let handle = CoreHandle(core)
        return { binding.schedule { handle.core.asyncWrites.process() } }
    }
}
