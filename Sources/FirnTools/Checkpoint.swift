/// `firn checkpoint`: writes the latest version's commit log into the
/// trees (`Store.checkpoint`), as a maintenance job does before measuring,
/// compacting or backing up a file: frames free no pages until then.
package enum Checkpoint {
    package struct Options: Sendable {
        package var path: String
        package var lockTimeout: Double?
        package init(path: String) { self.path = path }
    }

    package struct Report: Codable, Sendable {
        package var path: String
        /// The latest version before the command ran.
        package var previousVersion: UInt64
        /// The checkpoint's version (`previousVersion` + 1, same contents),
        /// or `previousVersion` when there was nothing to write.
        package var version: UInt64
        /// False when the latest version was a checkpoint already (or the
        /// file commits without a log).
        package var written: Bool
    }

    package static func run(_ options: Options) throws -> Report {
        let store = try DatabaseInput.openWritable(options.path, create: false, lockTimeout: options.lockTimeout)
        defer { store.close() }
        let previous = try store.currentVersion
        let version = try store.checkpoint()
        return Report(path: options.path, previousVersion: previous, version: version, written: version != previous)
    }
}
