import FirnCore

/// What `Results.observe` reports. Deletions and modifications are indices
/// in the results as they were before the change (the previous delivery);
/// insertions indices in the results as they are now: apply deletions,
/// then insertions, as a table view's batch update does (its reloads name
/// rows as they were). Realm's contract. An object of sorted results whose
/// position changed is a deletion and an insertion, not a modification.
public enum ResultsChange<Element: Object> {
    /// The results when observing began.
    case initial(Results<Element>)
    /// The results after a change, and what changed.
    case update(Results<Element>, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The change could not be read; no callback follows.
    case error(DatabaseError)
}

/// Results are Sendable (live ones check their binding on every use), so
/// a change can cross to the task that iterates `Results.changes`.
extension ResultsChange: Sendable {}

extension Results {
    /// Calls `block` with `.initial`, then with `.update` after each
    /// refresh point (docs/SDK.md "Notifications") at which objects of the
    /// type were inserted, deleted or changed in these results (an object
    /// whose list elements, or embedded objects, changed is a modification). Computed from the
    /// diffs of the type's tree and its list trees between the two
    /// versions: a version that touched none of them costs one catalog diff.
    /// `.initial` comes later on the instance's queue or actor, and inside
    /// this call for a thread-bound instance. Frozen results throw `.frozen`.
    public func observe(_ block: @escaping @Sendable (ResultsChange<Element>) -> Void) throws(DatabaseError) -> NotificationToken {
        try observe(deliversFrozen: false, onClose: nil, block)
    }

    /// `observe`, and for `changes`: the results frozen in each callback,
    /// and `onClose` called when the instance closes (its observers hear
    /// nothing more; a sequence must then end rather than wait forever).
    func observe(deliversFrozen: Bool, onClose: (@Sendable () -> Void)?,
                 _ block: @escaping @Sendable (ResultsChange<Element>) -> Void) throws(DatabaseError) -> NotificationToken {
        guard let core = source as? DatabaseCore else {
            throw DatabaseError.frozen(type: "Results<\(Element.self)>", operation: "observe")
        }
        core.checkAccess()
        let observation = ResultsObservation(self, info: try core.info(Element.self), deliversFrozen: deliversFrozen, block)
        observation.onClose = onClose
        return try core.observe(observation, beginNow: core.beginsInline)
    }
}

/// The key list of observed results, kept in memory between versions: a
/// change's positions are binary searches in it (unsorted results, a
/// chunked `KeyList`) or a comparison with the recomputed list (queries
/// and sorts).
final class ResultsObservation<Element: Object>: Observation, FailableObservation, @unchecked Sendable {
    private let results: Results<Element>
    private let info: ClassInfo
    private let block: @Sendable (ResultsChange<Element>) -> Void
    /// A query's or a sort's keys, in order.
    private var keys: [[UInt8]] = []
    /// Unsorted results' keys.
    private var list = KeyList([])
    /// The trees the query's condition reads besides the type's (linked
    /// types, list trees).
    private let otherTreesRead: [String]
    /// Each callback gets the results frozen at the version it describes
    /// (`Results.changes`: the consumer may read them later, elsewhere).
    private let deliversFrozen: Bool

    init(_ results: Results<Element>, info: ClassInfo, deliversFrozen: Bool = false,
         _ block: @escaping @Sendable (ResultsChange<Element>) -> Void) {
        self.results = results
        self.info = info
        self.deliversFrozen = deliversFrozen
        self.block = block
        otherTreesRead = results.plan.map { Array($0.treesRead(info.schema)) } ?? []
    }

    override func begin(_ core: DatabaseCore) {
        started = true
        do {
            let keys = try Self.keys(of: results.plan, info: info, in: core)
            if results.plan == nil { list = KeyList(keys) } else { self.keys = keys }
            block(.initial(try delivered(at: try core.version, core)))
        } catch {
            return fail(error)
        }
    }

    /// The results a callback gets for `version`: the live ones, or frozen
    /// at `version` (pinned by the notifier while the step is delivered).
    private func delivered(at version: UInt64, _ core: DatabaseCore) throws(DatabaseError) -> Results<Element> {
        guard deliversFrozen else { return results }
        return Results(source: try core.frozenVersion(at: version), plan: results.plan)
    }

    func fail(_ error: DatabaseError) {
        stop()
        block(.error(error))
    }

    override func update(_ changes: VersionChanges, core: DatabaseCore, notify: Bool) {
        let tree = info.schema.treeName
        let diff: (deletions: [Int], insertions: [Int], modifications: [Int])
        do {
            let recordChanges = try engine { () throws(FirnError) in try changes.changes(in: tree) }
            // Objects whose list elements, or embedded objects, changed: modifications.
            let owners = try engine { () throws(FirnError) in
                try listOwnersChanged(changes).union(changes.ownersOfChangedEmbedded(info, core: core))
            }
            let keyChanges = owners.isEmpty ? recordChanges : Self.merging(recordChanges, listOwners: owners)
            // A condition through links and lists also reads other trees:
            // a change there can move objects in or out without touching
            // the type's own tree.
            let readsChanged = try engine { () throws(FirnError) -> Bool in
                for name in otherTreesRead where try changes.touched(name) { return true }
                return false
            }
            guard !keyChanges.isEmpty || readsChanged else { return }
            if let plan = results.plan {
                // A query or a sort: recomputed, but only for a step that
                // changed a tree it reads (a list's elements that its
                // condition does not read change no position).
                let now = recordChanges.isEmpty && !readsChanged ? keys : try Self.keys(of: plan, info: info, in: SnapshotSource(changes.new, core: core))
                var changed = Set<[UInt8]>()
                for change in keyChanges where change.kind == .changed { changed.insert(change.key) }
                let compared = Self.compare(old: keys, new: now, changed: changed)
                keys = compared.keys
                diff = (compared.deletions, compared.insertions, compared.modifications)
            } else {
                diff = list.apply(keyChanges)
            }
        } catch {
            return fail(error)
        }
        guard notify, !(diff.deletions.isEmpty && diff.insertions.isEmpty && diff.modifications.isEmpty) else { return }
        let now: Results<Element>
        do {
            now = try delivered(at: changes.new.version, core)
        } catch {
            return fail(error)
        }
        block(.update(now, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications))
    }

    /// The objects (keys) whose list elements changed in this step: the
    /// owners of the keys in each list tree's diff, which is computed once
    /// per step for every observer.
    private func listOwnersChanged(_ changes: VersionChanges) throws(FirnError) -> Set<[UInt8]> {
        var owners = Set<[UInt8]>()
        for property in info.schema.properties where property.isList {
            let name = info.schema.listTreeName(property)
            guard try changes.touched(name) else { continue }
            for change in try changes.changes(in: name) {
                owners.insert(try change.key.withUnsafeBytes { bytes in
                    Result { () throws(FirnError) in Array(try ListKey.decode(bytes).owner) }
                }.get())
            }
        }
        return owners
    }

    /// The record changes with each list owner not already among them
    /// added as changed (a modification, like Realm's), in key order.
    static func merging(_ changes: [VersionChanges.KeyChange], listOwners: Set<[UInt8]>) -> [VersionChanges.KeyChange] {
        var merged = changes
        for owner in listOwners.subtracting(changes.map(\.key)) { merged.append(VersionChanges.KeyChange(key: owner, kind: .changed)) }
        merged.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return merged
    }

    private static func keys(of plan: QueryPlan?, info: ClassInfo, in source: any ObjectSource) throws(DatabaseError) -> [[UInt8]] {
        if let plan { return try plan.matchingKeys(source, info) }
        var keys: [[UInt8]] = []
        guard let cursor = try source.cursor(info) else { return keys }
        try engine { () throws(FirnError) in
            try cursor.first()
            while cursor.isValid, let key = try cursor.key {
                keys.append(key)
                try cursor.next()
            }
        }
        return keys
    }

    struct Diff {
        var keys: [[UInt8]] = []
        var deletions: [Int] = []
        var insertions: [Int] = []
        var modifications: [Int] = []
    }

    /// Queries and sorts: old and new key lists compared. Keys in both
    /// keep their place when they are on a longest run in the old order;
    /// the others moved (a deletion and an insertion).
    static func compare(old: [[UInt8]], new: [[UInt8]], changed: Set<[UInt8]>) -> Diff {
        var diff = Diff()
        diff.keys = new
        var oldIndex = [[UInt8]: Int](minimumCapacity: old.count)
        for (index, key) in old.enumerated() { oldIndex[key] = index }
        var kept = [Bool](repeating: false, count: old.count)
        var pairs: [(new: Int, old: Int)] = []
        for (index, key) in new.enumerated() {
            if let before = oldIndex[key] {
                pairs.append((index, before))
                kept[before] = true
            } else {
                diff.insertions.append(index)
            }
        }
        for index in old.indices where !kept[index] { diff.deletions.append(index) }
        let staying = longestIncreasingRun(pairs.map(\.old))
        for (n, pair) in pairs.enumerated() {
            if staying[n] {
                if changed.contains(new[pair.new]) { diff.modifications.append(pair.old) }
            } else {
                diff.deletions.append(pair.old)
                diff.insertions.append(pair.new)
            }
        }
        diff.deletions.sort()
        diff.insertions.sort()
        diff.modifications.sort()
        return diff
    }

    /// Marks the members of one longest strictly increasing subsequence.
    static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
        var tails: [Int] = []  // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var marks = [Bool](repeating: false, count: values.count)
        var index = tails.last ?? -1
        while index >= 0 {
            marks[index] = true
            index = previous[index]
        }
        return marks
    }
}
