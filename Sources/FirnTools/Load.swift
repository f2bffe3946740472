import FirnCore
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

    /// What a load did to one tree. Entries written and keys present
    /// differ when the input repeats a key or names one the tree held.
    package struct TreeCount: Codable, Sendable, Equatable {
        /// Entries of the input put into the tree.
        package var written: UInt64 = 0
        /// Of those, the ones that replaced a key present (in the file, or
        /// earlier in the input).
        package var overwritten: UInt64 = 0
        /// Keys the tree holds once the load committed.
        package var keys: UInt64 = 0
    }

    package struct Report: Codable, Sendable {
        package var path: String
        /// Entries written (every entry line of the input).
        package var entries: UInt64
        /// Of them, the ones that replaced a key present.
        package var overwritten: UInt64
        package var batches: Int
        package var trees: [String: TreeCount]
        package var created: Bool
        package var version: UInt64
    }

    /// `committed` hears, after each batch's commit (signals blocked), the
    /// batches and entries committed so far and the version.
    package static func run(_ options: Options, progress: ProgressHandler? = nil,
                            committed: ((Int, UInt64, UInt64) -> Void)? = nil) throws -> Report {
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
        var counts: [String: TreeCount] = [:]
        var total: UInt64 = 0
        var overwritten: UInt64 = 0
        var batches = 0
        var lineNumber = 0
        var version = try store.currentVersion
        func flush() throws {
            guard !batch.isEmpty else { return }
            let txn = try store.beginWriteBlocking()
            // Counted apart until the commit: a batch that fails counts for nothing.
            var batchCounts: [String: TreeCount] = [:]
            var batchOverwritten: UInt64 = 0
            do {
                for line in batch {
                    switch line {
                    case let .entry(entry):
                        let name = options.tree ?? entry.tree
                        guard let tree = try txn.tree(name) else { continue }
                        let isNew = try tree.put(entry.key, entry.value)
                        batchCounts[name, default: TreeCount()].written += 1
                        if !isNew {
                            batchCounts[name, default: TreeCount()].overwritten += 1
                            batchOverwritten += 1
                        }
                    case let .emptyTree(name):
                        let name = options.tree ?? name
                        _ = try txn.tree(name)
                        batchCounts[name, default: TreeCount()].written += 0
                    }
                }
                for name in batchCounts.keys {
                    batchCounts[name]?.keys = try txn.tree(name)?.count ?? 0
                }
                // The commit and the count the interruption line tells go
                // together: a signal waits until both are done.
                try Interruption.critical { () throws(FirnError) in
                    version = try txn.commit()
                    total += UInt64(batchEntries)
                    batches += 1
                    committed?(batches, total, version)
                }
            } catch {
                txn.abort()
                throw error
            }
            for (name, count) in batchCounts {
                counts[name, default: TreeCount()].written += count.written
                counts[name, default: TreeCount()].overwritten += count.overwritten
                counts[name, default: TreeCount()].keys = count.keys
            }
            overwritten += batchOverwritten
            batch.removeAll(keepingCapacity: true)
            batchEntries = 0
            progress?(ToolProgress(phase: .loading, done: total, total: nil, unit: .entries))
        }
        // Interrupted with `Interruption.install(exitOnSignal: false)`, the
        // batch being read is dropped and the committed ones stay: the error
        // says how many, since "nothing changed" would be false. (`firn
        // load` exits from the handler instead, with the line `committed`
        // keeps current, so a wait for the lock ends at once too.)
        func interrupted() -> ToolError {
            .loadInterrupted(path: options.path, batches: batches, entries: total, version: version)
        }
        let decoding = EntryCodec.Fields(intoTree: options.tree)
        do {
            while let line = try reader.next() {
                lineNumber += 1
                if let decoded = try EntryCodec.decode(line, lineNumber: lineNumber, source: source == "-" ? "stdin" : source,
                                                       fields: decoding) {
                    batch.append(decoded)
                    if case .entry = decoded { batchEntries += 1 }
                    if batch.count >= options.batchSize { try flush() }
                }
                if Interruption.isRequested { throw interrupted() }
            }
        } catch ToolError.interrupted {
            throw interrupted()
        }
        if Interruption.isRequested { throw interrupted() }
        try flush()
        return Report(path: options.path, entries: total, overwritten: overwritten, batches: batches, trees: counts,
                      created: created, version: version)
    }
}
