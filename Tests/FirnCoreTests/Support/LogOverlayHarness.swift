@testable import FirnCore
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
