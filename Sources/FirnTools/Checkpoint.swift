/// `firn checkpoint`: writes the latest version's commit log into the
/// trees (`Store.checkpoint`), as a maintenance job does before measuring,
/// compacting or backing up a file: frames free no pages until then.
public enum Checkpoint {
    public struct Options: Sendable {
        public var path: String
        public var lockTimeout: Double?
        public init(path: String) { self.path = path }
    }

    public struct Report: Codable, Sendable {
        public var path: String
        /// The latest version before the command ran.
        public var previousVersion: UInt64
        /// The checkpoint's version (`previousVersion` + 1, same contents),
        /// or `previousVersion` when there was nothing to write.
        public var version: UInt64
        /// False when the latest version was a checkpoint already (or the
        /// file commits without a log).
        public var written: Bool
    }

    public static func run(_ options: Options) throws -> Report {
        let store = try DatabaseInput.openWritable(options.path, create: false, lockTimeout: options.lockTimeout)
        defer { store.close() }
        let previous = try store.currentVersion
        let version = try store.checkpoint()
        return Report(path: options.path, previousVersion: previous, version: version, written: version != previous)
    }
}
