import FirnCore
/// `firn hold`: pins a version until released — to reproduce growth under a
/// long-lived reader and to test pin alerts. The session keeps the pin; the
/// CLI waits for SIGINT/SIGTERM or the time limit, then closes it. It holds
/// no objects: real frozen objects come from an application (`firn demo-app
/// cache` is one), whose frozen pin counts them.
public final class Hold {
    public struct Options: Sendable {
        public var path: String
        public var version: UInt64?
        public var kind: PinKind = .tool
        public var label = "firn hold"
        public init(path: String) { self.path = path }
    }

    public struct Report: Codable, Sendable {
        public var path: String
        public var version: UInt64
        public var pid: Int32
        public var kind: String
        public var label: String
    }

    public let report: Report
    private let store: Store
    private let snapshot: Snapshot

    public init(_ options: Options) throws(FirnError) {
        store = try DatabaseInput.openWritable(options.path, create: false, lockTimeout: nil)
        if let version = options.version {
            snapshot = try store.snapshot(version: version, kind: options.kind, label: options.label)
        } else {
            snapshot = try store.snapshot(kind: options.kind, label: options.label)
        }
        report = Report(path: options.path, version: snapshot.version, pid: getpidValue(), kind: options.kind.description,
                        label: options.label)
    }

    /// Throws `.corrupt` naming the lock file when it was truncated while
    /// held; the pin is given up then without touching it (no SIGBUS).
    public func checkLockFile() throws(FirnError) {
        try store.lockFile?.checkMapped()
    }

    public func release() {
        // A truncated lock file is given up untouched; `checkLockFile`
        // reports it.
        try? store.lockFile?.checkMapped()
        snapshot.close()
        store.close()
    }
}
