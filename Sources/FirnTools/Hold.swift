/// `firn hold`: pins a version until released — to reproduce growth under a
/// long-lived reader and to test pin alerts. The session keeps the pin; the
/// CLI waits for SIGINT/SIGTERM or the time limit, then closes it.
public final class Hold {
    public struct Options: Sendable {
        public var path: String
        public var version: UInt64?
        public var kind: PinKind = .tool
        public var label = "firn hold"
        /// Read this many entries (round-robin over the trees) and count
        /// them as frozen objects on the pin, like an app's frozen snapshot.
        public var decode = 0
        public init(path: String) { self.path = path }
    }

    public struct Report: Codable, Sendable {
        public var path: String
        public var version: UInt64
        public var pid: Int32
        public var kind: String
        public var label: String
        public var frozenObjects: UInt64
    }

    public let report: Report
    private let store: Store
    private let snapshot: Snapshot
    /// The decoded records, held like an app holds frozen objects.
    private var objects: [[UInt8]] = []

    public init(_ options: Options) throws(FirnError) {
        store = try DatabaseInput.openWritable(options.path, create: false, lockTimeout: nil)
        if let version = options.version {
            snapshot = try store.snapshot(version: version, kind: options.kind, label: options.label)
        } else {
            snapshot = try store.snapshot(kind: options.kind, label: options.label)
        }
        var decoded: [[UInt8]] = []
        if options.decode > 0 {
            outer: for name in try snapshot.treeNames() {
                guard let tree = try snapshot.tree(name) else { continue }
                let cursor = tree.cursor()
                try cursor.first()
                while cursor.isValid {
                    if let value = try cursor.value { decoded.append(value) }
                    if decoded.count >= options.decode { break outer }
                    try cursor.next()
                }
            }
            snapshot.addFrozenObjects(Int64(decoded.count))
        }
        objects = decoded
        report = Report(path: options.path, version: snapshot.version, pid: getpidValue(), kind: options.kind.description,
                        label: options.label, frozenObjects: UInt64(decoded.count))
    }

    public func release() {
        objects = []
        snapshot.close()
        store.close()
    }
}
