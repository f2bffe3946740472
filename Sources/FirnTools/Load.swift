#if canImport(Glibc)
import Glibc
#endif

/// `firn load`: entries in the `dump --entries` format from stdin (or a
/// file) into a database, creating it when missing, in batches of one
/// write transaction each.
package enum Load {
    package struct Options: Sendable {
        package var path: String
        /// nil or "-": stdin.
        package var input: String?
        /// Put every entry into this tree instead of the one the line names.
        package var tree: String?
        package var batchSize = 10_000
        package var lockTimeout: Double?
        package init(path: String) { self.path = path }
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var entries: UInt64
        package var batches: Int
        package var trees: [String: UInt64]
        package var created: Bool
        package var version: UInt64
    }

    package static func run(_ options: Options, progress: ProgressHandler? = nil) throws -> Report {
        let source = options.input ?? "-"
        var fd: Int32 = 0
        if source != "-" {
            try DatabaseInput.checkRegularFile(source)
            fd = open(source, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ToolError.io(path: source, operation: "open", errno: errno) }
        }
        defer { if fd != 0 { close(fd) } }
        let created = !DatabaseInput.fileExists(options.path)
        let store = try DatabaseInput.openWritable(options.path, create: true, lockTimeout: options.lockTimeout)
        defer { store.close() }
        var reader = LineReader(fd: fd, path: source == "-" ? "stdin" : source)
        var batch: [EntryCodec.Line] = []
        var batchEntries = 0
        var counts: [String: UInt64] = [:]
        var total: UInt64 = 0
        var batches = 0
        var lineNumber = 0
        var version = try store.currentVersion
        func flush() throws {
            guard !batch.isEmpty else { return }
            let txn = try store.beginWriteBlocking()
            do {
                for line in batch {
                    switch line {
                    case let .entry(entry):
                        guard let tree = try txn.tree(options.tree ?? entry.tree) else { continue }
                        _ = try tree.put(entry.key, entry.value)
                    case let .emptyTree(name):
                        _ = try txn.tree(options.tree ?? name)
                    }
                }
                version = try txn.commit()
            } catch {
                txn.abort()
                throw error
            }
            for line in batch {
                switch line {
                case let .entry(entry): counts[options.tree ?? entry.tree, default: 0] += 1
                case let .emptyTree(name): counts[options.tree ?? name, default: 0] += 0
                }
            }
            total += UInt64(batchEntries)
            batches += 1
            batch.removeAll(keepingCapacity: true)
            batchEntries = 0
            progress?(ToolProgress(phase: .loading, done: total, total: nil, unit: .entries))
        }
        while let line = try reader.next() {
            lineNumber += 1
            if let decoded = try EntryCodec.decode(line, lineNumber: lineNumber, source: source == "-" ? "stdin" : source) {
                batch.append(decoded)
                if case .entry = decoded { batchEntries += 1 }
                if batch.count >= options.batchSize { try flush() }
            }
            if Interruption.isRequested { throw ToolError.interrupted }
        }
        try flush()
        return Report(path: options.path, entries: total, batches: batches, trees: counts, created: created, version: version)
    }
}
