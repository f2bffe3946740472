import FirnCore

/// One registered observer of a live instance: the database, results or
/// an object. Subclasses keep what they need to describe the next change
/// (a results' key list, nothing for the database) and call back.
/// `stop()` may come from any thread (a token's `invalidate()`); the rest
/// runs on the instance's binding.
class Observation: @unchecked Sendable {
    private let stopped = Locked(false)
    /// False until the observer took its starting state (`begin`); a
    /// results' `.initial` callback may come later than `observe` returns.
    var started = false
    /// Called when the instance closes, after which nothing is delivered
    /// (set by `Results.changes`, whose sequence then ends).
    var onClose: (@Sendable () -> Void)?

    var isStopped: Bool { stopped.withLock { $0 } }
    func stop() { stopped.withLock { $0 = true } }

    /// Takes the starting state at the version the instance reads now
    /// (the notifier's base), calling back `.initial` where there is one.
    func begin(_ core: DatabaseCore) { started = true }

    /// One step from `changes.old` to `changes.new`. With `notify` false
    /// (a token passed to `write(withoutNotifying:)`) only the state moves.
    func update(_ changes: VersionChanges, core: DatabaseCore, notify: Bool) {}
}

/// The change observers of one live instance and the version they last
/// heard of (`base`, pinned alongside the instance's own pin, so the diff
/// to the next version can read it whatever the instance did since).
///
/// Delivery (`deliver`) runs on the binding at the refresh points
/// docs/SDK.md lists: it diffs `base` against the version the instance
/// reads, hands the diff to each observer, and moves `base` there. A step
/// that a write began past `base` (another writer's commit, seen when the
/// write took the lock) is delivered apart from the write's own, so a
/// token the write suppresses still hears of it.
final class Notifier {
    unowned let core: DatabaseCore
    private var base: Snapshot
    /// Where a write began when that was past `base` (see above).
    private var writeBase: Snapshot?
    private let observations = Locked<[Observation]>([])
    private var delivering = false
    /// The observations `commitWrite(withoutNotifying:)` leaves out.
    private var suppressed: Set<ObjectIdentifier> = []
    /// This instance committed a write that changed nothing since the last
    /// delivery: the engine made no version, so there is no step to deliver,
    /// but database observers still hear of the commit (Realm notifies
    /// every commit, an empty `write {}` included).
    var emptyCommit = false

    init(core: DatabaseCore) throws(DatabaseError) {
        self.core = core
        base = try Self.pin(core, try core.readSnapshot)
    }

    deinit {
        base.close()
        writeBase?.close()
    }

    private static func pin(_ core: DatabaseCore, _ snapshot: Snapshot) throws(DatabaseError) -> Snapshot {
        let store = core.store, label = "notifications of Database on \(core.binding.description)"
        return try engine { () throws(FirnError) in try store.snapshot(alongside: snapshot, kind: .read, label: label) }
    }

    /// The instance's notifier, made by its first observer. Queue- and
    /// actor-bound instances are watched from when they are opened (the
    /// lock file's futex; refresh and delivery as a block or task).
    static func of(_ core: DatabaseCore) throws(DatabaseError) -> Notifier {
        if let notifier = core.notifier { return notifier }
        let notifier = try Notifier(core: core)
        core.notifier = notifier
        return notifier
    }

    /// Registers `observation` after delivering what the instance moved
    /// past since the last delivery to the observers it has (so every
    /// observer starts from the version the instance reads). It begins now
    /// (`beginNow`, or inside another observer's callback), else in a block
    /// or task on the binding or at the next refresh point, whichever comes
    /// first. Inside a callback it must begin now: the callback may write
    /// next, and the observer must hear that write as a change from the
    /// version its `.initial` showed (begun later, its `.initial` came after
    /// the write and it heard nothing of it).
    func add(_ observation: Observation, beginNow: Bool) {
        deliver()
        observations.withLock { $0.append(observation) }
        if beginNow || delivering {
            observation.begin(core)
            return
        }
        // The delivery begins it (`beginPending`), unless a refresh point
        // of the binding came first.
        let work = Unchecked(core)
        let scheduled = core.binding.schedule { work.value.notifier?.deliver() }
        if !scheduled { observation.begin(core) }
    }

    /// See the type's comment. Does nothing inside a write, after
    /// `invalidate()`, or inside a callback of this delivery (the running
    /// delivery goes on to the version the callback moved to).
    func deliver() {
        guard !delivering, core.transaction == nil, !core.isReleased else { return }
        delivering = true
        defer { delivering = false }
        var stepped = false
        repeat {
            stepped = deliverSteps() || stepped
        } while beginPending()
        if emptyCommit {
            emptyCommit = false
            // A step delivered just now already said the instance changed.
            if !stepped { deliverEmptyCommit() }
        }
    }

    /// `.didChange` to the database observers for a commit that made no version.
    private func deliverEmptyCommit() {
        let all = observations.withLock { $0 }.filter { $0.started && !$0.isStopped }
        for case let observation as DatabaseObservation in all where !suppressed.contains(ObjectIdentifier(observation)) {
            observation.didChange(core)
        }
    }

    /// The steps from `base` to the version the instance reads, each
    /// delivered to every started observer (see `deliver`); true when there
    /// was one.
    private func deliverSteps() -> Bool {
        var stepped = false
        defer { observations.withLock { $0.removeAll { $0.isStopped } } }
        while core.transaction == nil, !core.isReleased, core.snapshot.version != base.version {
            let target: Snapshot
            do {
                target = try Self.pin(core, core.snapshot)
            } catch {
                fail(error)
                return stepped
            }
            stepped = true
            var middle: Snapshot? = nil
            if let began = writeBase {
                writeBase = nil
                if began.version > base.version, began.version < target.version { middle = began } else { began.close() }
            }
            // Every callback reads the instance at `target`, so each observer
            // gets one changeset from `base` to `target`: applied to what it
            // last delivered, it gives exactly what the callback reads (two
            // steps, the first to a version the callback cannot see, made
            // changesets that did not add up). An observer whose token the
            // write suppresses takes the two steps: it hears the other
            // writers' changes (to `middle`) and moves past the write's own
            // silently — its owner applied those itself.
            let all = observations.withLock { $0 }.filter { $0.started && !$0.isStopped }
            let whole = VersionChanges(old: base, new: target)
            let split = middle.map { (VersionChanges(old: base, new: $0), VersionChanges(old: $0, new: target)) }
            for observation in all {
                let isSuppressed = suppressed.contains(ObjectIdentifier(observation))
                if isSuppressed, let (before, own) = split {
                    observation.update(before, core: core, notify: true)
                    observation.update(own, core: core, notify: false)
                } else {
                    observation.update(whole, core: core, notify: !isSuppressed)
                }
            }
            middle?.close()
            base.close()
            base = target
        }
        return stepped
    }

    /// Observers registered on a queue, an actor or the main actor whose
    /// block or task has not run yet begin here, at the version every other
    /// observer now stands at: from now on they hear the same steps (so a
    /// program whose main thread never runs the main queue still gets its
    /// main-actor observers going at its refreshes). True when a callback
    /// run here moved the instance on, so the steps must be delivered again
    /// (its own refresh, inside this delivery, did not).
    private func beginPending() -> Bool {
        var began = false
        while core.transaction == nil, !core.isReleased, core.snapshot.version == base.version,
              let next = observations.withLock({ $0.first { !$0.started && !$0.isStopped } }) {
            next.begin(core)
            began = true
        }
        return began && core.transaction == nil && !core.isReleased && core.snapshot.version != base.version
    }

    /// The observations not stopped (for tests: an ended `changes`
    /// iteration leaves none behind).
    var activeObservations: Int { observations.withLock { $0.filter { !$0.isStopped }.count } }

    /// The instance closed: every observation stops, and those that wait
    /// for more (a `changes` sequence) are told.
    func instanceClosed() {
        let all = observations.withLock { all in
            defer { all.removeAll() }
            return all
        }
        for observation in all where !observation.isStopped {
            observation.stop()
            observation.onClose?()
        }
    }

    /// `deliver()` leaving out the observations of `tokens` for what the
    /// write just committed.
    func deliver(suppressing tokens: [NotificationToken]) {
        suppressed = Set(tokens.compactMap { $0.observation.map(ObjectIdentifier.init) })
        defer { suppressed = [] }
        deliver()
    }

    /// A write took the lock at `snapshot` (see the type's comment).
    func writeBegan(at snapshot: Snapshot) {
        guard snapshot.version != base.version, writeBase?.version != snapshot.version else { return }
        writeBase?.close()
        writeBase = try? Self.pin(core, snapshot)
    }

    /// The base could not be moved (the engine could not pin): observers
    /// that can take an error get it, and all stop.
    private func fail(_ error: DatabaseError) {
        for observation in observations.withLock({ $0 }) where !observation.isStopped {
            (observation as? FailableObservation)?.fail(error)
            observation.stop()
        }
        observations.withLock { $0.removeAll() }
    }
}

/// An observation whose callback has an `.error` case.
protocol FailableObservation: AnyObject {
    func fail(_ error: DatabaseError)
}

/// Hands a value to a block the binding runs later, on the binding.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// What changed between two pinned versions, read as observers ask: the
/// trees changed (one catalog diff), then the keys of a tree (one tree
/// diff each), each at most once per step however many observers ask.
final class VersionChanges {
    enum Kind { case inserted, deleted, changed }
    struct KeyChange {
        let key: [UInt8]
        let kind: Kind
    }

    let old: Snapshot
    let new: Snapshot
    private var trees: Set<String>?
    private var keys: [String: [KeyChange]] = [:]
    /// `ownersOfChangedEmbedded` by type name, found once per step for
    /// every results observer of the type.
    var embeddedOwners: [String: Set<[UInt8]>] = [:]

    init(old: Snapshot, new: Snapshot) {
        self.old = old
        self.new = new
    }

    /// Whether tree `name` differs between the versions (created, dropped
    /// or rewritten); false skips it without reading it.
    func touched(_ name: String) throws(FirnError) -> Bool {
        if let trees { return trees.contains(name) }
        var names = Set<String>()
        try new.treeChanges(since: old) { change in
            names.insert(change.name)
            return true
        }
        trees = names
        return names.contains(name)
    }

    /// Whether tree `name` has an inserted, deleted or changed key that
    /// starts with `prefix` (the changes are in key order: a binary search).
    func hasChange(in name: String, withPrefix prefix: [UInt8]) throws(FirnError) -> Bool {
        let all = try changes(in: name)
        var low = 0, high = all.count
        while low < high {
            let mid = (low + high) >> 1
            if all[mid].key.lexicographicallyPrecedes(prefix) { low = mid + 1 } else { high = mid }
        }
        return low < all.count && all[low].key.starts(with: prefix)
    }

    /// The keys of tree `name` inserted, deleted or changed, in key order.
    func changes(in name: String) throws(FirnError) -> [KeyChange] {
        if let cached = keys[name] { return cached }
        var out: [KeyChange] = []
        if try touched(name) {
            try new.changes(in: name, since: old) { change in
                switch change {
                case let .inserted(key, _): out.append(KeyChange(key: Array(key), kind: .inserted))
                case let .deleted(key, _): out.append(KeyChange(key: Array(key), kind: .deleted))
                case let .changed(key, _, _): out.append(KeyChange(key: Array(key), kind: .changed))
                }
                return true
            }
        }
        keys[name] = out
        return out
    }
}

/// Reads one pinned snapshot as an object source: a query recomputed for
/// a notification reads exactly the version the step goes to.
final class SnapshotSource: SnapshotTreeSource {
    let snapshot: Snapshot
    private let core: DatabaseCore
    private var readers = TreeReaders()

    init(_ snapshot: Snapshot, core: DatabaseCore) {
        self.snapshot = snapshot
        self.core = core
    }

    var isFrozen: Bool { true }
    var generation: UInt64 { 0 }
    func checkAccess() {}
    func info(_ type: Object.Type) throws(DatabaseError) -> ClassInfo { try core.info(type) }
    var infos: [ObjectIdentifier: ClassInfo] { core.infos }
    func objectCreated() {}
    func objectReleased() {}

    func reader(_ name: String) throws(DatabaseError) -> TreeReader? {
        try readers.reader(name, in: snapshot)
    }
}
