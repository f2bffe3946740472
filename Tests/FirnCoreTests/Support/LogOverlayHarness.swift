import Testing
@testable import FirnCore
import FirnTestSupport
import FirnTestSupport

/// Versions between checkpoints, made for tests without the commit path:
/// a store's current version is the checkpoint, and each `commit` encodes a
/// frame's payload from logical operations (counts from a model of every
/// tree), applies it to the overlay and returns a snapshot of the version.
final class LogOverlayHarness {
    typealias Model = [String: [[UInt8]: [UInt8]]]

    /// A frame's payload, kept at a fixed address as the map keeps frames.
    final class FrameBytes {
        let buffer: UnsafeMutableRawBufferPointer
        init(_ bytes: [UInt8]) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            self.buffer = buffer
            count = bytes.count
        }
        let count: Int
        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]) }
        deinit { buffer.deallocate() }
    }

    enum Change {
        case put(String, [UInt8], [UInt8])
        case delete(String, [UInt8])
        case create(String)
        case drop(String)
    }

    let store: Store
    private(set) var checkpoint: Snapshot
    private(set) var model: Model
    private(set) var overlay: LogOverlayVersion
    /// The model at each version made, oldest first (the checkpoint's first).
    private(set) var history: [(version: UInt64, model: Model)]

    /// Commits `initial` with a page commit; its version is the checkpoint.
    init(path: String, initial: Model) throws {
        store = try Store.open(path, options: .pageCommits)
        try store.write { txn in
            for (name, entries) in initial {
                guard let tree = try txn.tree(name) else { continue }
                for (key, value) in entries { try tree.put(key, value) }
            }
        }
        checkpoint = try store.snapshot()
        model = initial
        overlay = .checkpoint(checkpoint.version)
        history = [(checkpoint.version, initial)]
    }

    /// The snapshot of a version this harness made (the checkpoint's own
    /// version gives a snapshot without log).
    func snapshot(_ link: LogOverlayVersion) -> Snapshot {
        Snapshot(store: store, info: checkpoint.info, source: checkpoint.source, pin: nil, log: link)
    }

    /// Applies `changes` as one frame; the model follows. Changes the model
    /// cannot take (a put into a missing tree) are skipped, so random
    /// sequences stay valid frames.
    @discardableResult
    func commit(_ changes: [Change]) throws -> (LogOverlayVersion, Snapshot) {
        var builder = LogPayload.Builder()
        var touched: [String] = []
        // Operations per tree in the order given; counts after each tree's changes.
        var order: [String] = []
        var perTree: [String: [LogOperation]] = [:]
        for change in changes {
            let name: String
            let operation: LogOperation
            switch change {
            case let .put(tree, key, value):
                guard model[tree] != nil else { continue }
                model[tree]?[key] = value
                (name, operation) = (tree, .put(tree: tree, key: key, value: value))
            case let .delete(tree, key):
                guard model[tree] != nil else { continue }
                model[tree]?[key] = nil
                (name, operation) = (tree, .delete(tree: tree, key: key))
            case let .create(tree):
                guard model[tree] == nil else { continue }
                model[tree] = [:]
                (name, operation) = (tree, .createTree(tree))
            case let .drop(tree):
                guard model[tree] != nil else { continue }
                model[tree] = nil
                (name, operation) = (tree, .dropTree(tree))
            }
            if perTree[name] == nil { order.append(name) }
            perTree[name, default: []].append(operation)
        }
        for name in order {
            for operation in perTree[name] ?? [] { builder.append(operation) }
            if let entries = model[name] { builder.append(.count(tree: name, entries: UInt64(entries.count))) }
            touched.append(name)
        }
        let frame = FrameBytes(builder.bytes)
        let checkpoint = self.checkpoint
        overlay = try overlay.applying(
            payload: frame.bytes, version: overlay.version + 1, owner: frame, geometry: store.geometry,
            countLimit: UInt64.max, checkpointHasTree: { (name) throws(FirnError) in try checkpoint.tree(name) != nil })
        history.append((overlay.version, model))
        return (overlay, snapshot(overlay))
    }

    /// Makes the model's current state the next checkpoint with an
    /// ordinary commit (every tree rewritten) and starts a new chain on it.
    /// Snapshots of the earlier epoch stay readable: the commit reuses no
    /// page they read (pages it retires are freed two versions later).
    func checkpointAgain() throws {
        let model = self.model
        try store.write { txn in
            for name in try txn.treeNames() { try txn.dropTree(name) }
            for (name, entries) in model {
                guard let tree = try txn.tree(name) else { continue }
                for (key, value) in entries { try tree.put(key, value) }
            }
        }
        checkpoint = try store.snapshot()
        overlay = .checkpoint(checkpoint.version)
        history.append((checkpoint.version, model))
    }

    /// Applies a payload made elsewhere (a change set's) as the next frame;
    /// `model` is what the version must then read as.
    @discardableResult
    func commit(payload: [UInt8], model: Model) throws -> (LogOverlayVersion, Snapshot) {
        let frame = FrameBytes(payload)
        let checkpoint = self.checkpoint
        overlay = try overlay.applying(
            payload: frame.bytes, version: overlay.version + 1, owner: frame, geometry: store.geometry,
            countLimit: UInt64.max, checkpointHasTree: { (name) throws(FirnError) in try checkpoint.tree(name) != nil })
        self.model = model
        history.append((overlay.version, model))
        return (overlay, snapshot(overlay))
    }

    static func sortedKeys(_ entries: [[UInt8]: [UInt8]]) -> [[UInt8]] {
        entries.keys.sorted { $0.lexicographicallyPrecedes($1) }
    }
}

/// A random workload over a few trees and the reads that check a version
/// against its model (`CommitLogOverlayTests`, and the suites of the change
/// set, the chain and the store that replay it).
extension LogOverlayHarness {
    static let trees = ["a", "b", "obj.Person", "z"]

    static func key(_ rng: inout SeededGenerator) -> [UInt8] {
        // Few distinct keys, so frames overwrite and delete each other's.
        let n = rng.below(60)
        return Array("k\(n)".utf8) + (n % 7 == 0 ? [] : [UInt8(n % 5)])
    }

    static func value(_ rng: inout SeededGenerator) -> [UInt8] {
        let sizes = [0, 1, 12, 300, 5000]
        return (0..<sizes[Int(rng.below(UInt64(sizes.count)))]).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    static func randomChanges(_ rng: inout SeededGenerator) -> [LogOverlayHarness.Change] {
        (0..<(1 + rng.below(6))).map { _ in
            let tree = trees[Int(rng.below(UInt64(trees.count)))]
            switch rng.below(20) {
            case 0: return .drop(tree)
            case 1, 2: return .create(tree)
            case 3...7: return .delete(tree, key(&rng))
            default: return .put(tree, key(&rng), value(&rng))
            }
        }
    }

    /// Every read of `snapshot` against `model`.
    static func expectReads(_ snapshot: Snapshot, _ model: Model, _ rng: inout SeededGenerator) throws {
        let context = "v\(snapshot.version)"
        #expect(try snapshot.treeNames() == model.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, "\(context)")
        #expect(try snapshot.catalog().map { "\($0.name)=\($0.entry.count)" } ==
                snapshot.treeNames().map { "\($0)=\(model[$0]?.count ?? -1)" }, "\(context)")
        for name in trees {
            guard let entries = model[name] else {
                #expect(try snapshot.tree(name) == nil, "\(name) at \(context)")
                continue
            }
            let tree = try #require(try snapshot.tree(name), "\(name) at \(context)")
            #expect(tree.count == UInt64(entries.count), "count of \(name) at \(context)")
            let sorted = LogOverlayHarness.sortedKeys(entries)
            // Point lookups: every key of the model and absent ones.
            for key in sorted { #expect(try tree.get(key)?.array == entries[key], "get in \(name) at \(context)") }
            for _ in 0..<10 {
                let key = Self.key(&rng)
                #expect(try tree.get(key)?.array == entries[key], "get \(key) in \(name) at \(context)")
            }
            // Forward and backward walks.
            let cursor = tree.cursor()
            var walked: [[UInt8]] = []
            try cursor.first()
            while cursor.isValid {
                let key = try #require(try cursor.key)
                #expect(try cursor.value == entries[key])
                #expect(try cursor.currentValue?.array == entries[key])
                walked.append(key)
                try cursor.next()
            }
            #expect(walked == sorted, "forward walk of \(name) at \(context)")
            walked = []
            try cursor.last()
            while cursor.isValid {
                walked.append(try #require(try cursor.key))
                try cursor.previous()
            }
            #expect(walked == sorted.reversed(), "backward walk of \(name) at \(context)")
            // `forEach`, whole and over the middle third of the keys.
            var listed: [([UInt8], [UInt8])] = []
            try tree.forEach { key, value in listed.append((Array(key), value.array)); return true }
            #expect(listed.map(\.0) == sorted && listed.allSatisfy { entries[$0.0] == $0.1 }, "forEach of \(name) at \(context)")
            if !sorted.isEmpty {
                let lower = sorted[sorted.count / 3], upper = sorted[2 * sorted.count / 3]
                var ranged: [[UInt8]] = []
                try tree.forEach(from: lower, upTo: upper) { key, _ in ranged.append(Array(key)); return true }
                #expect(ranged == Array(sorted[(sorted.count / 3)..<(2 * sorted.count / 3)]), "forEach range of \(name) at \(context)")
            }
            // Seeks, then steps that turn round.
            for _ in 0..<6 {
                let target = Self.key(&rng)
                try cursor.seek(target)
                var index = sorted.firstIndex { !$0.lexicographicallyPrecedes(target) } ?? sorted.count
                for _ in 0..<8 {
                    let expected = index >= 0 && index < sorted.count ? sorted[index] : nil
                    #expect(try cursor.key == expected, "seek \(target) then steps in \(name) at \(context)")
                    guard expected != nil else { break }
                    if rng.chance(1, in: 2) { try cursor.next(); index += 1 } else { try cursor.previous(); index -= 1 }
                }
            }
        }
    }

    static func initial() -> Model {
        var rng = SeededGenerator(seed: 99)
        var model: Model = ["a": [:], "b": [:], "z": [:]]
        for _ in 0..<40 { model["a"]?[key(&rng)] = value(&rng) }
        for _ in 0..<25 { model["b"]?[key(&rng)] = value(&rng) }
        return model
    }
}
