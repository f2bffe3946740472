import FirnCore
/// `firn hold`: pins a version until released — to reproduce growth under a
/// long-lived reader and to test pin alerts. The session keeps the pin; the
/// CLI waits for SIGINT/SIGTERM or the time limit, then closes it. It holds
/// no objects: real frozen objects come from an application (`firn demo-app
/// cache` is one), whose frozen pin counts them.
package final class Hold {
    package struct Options: Sendable {
        package var path: String
        package var version: UInt64?
        package var kind: PinKind = .tool
        package var label = "firn hold"
        package init(path: String) { self.path = path }
    }

    package struct Report: Codable, Sendable {
        package var path: String
        package var version: UInt64
        package var pid: Int32
        package var kind: PinKind
        package var label: String
    }

    package let report: Report
    private let store: Store
    private let snapshot: Snapshot

    package init(_ options: Options) throws(FirnError) {
        store = try DatabaseInput.openWritable(options.path, create: false, lockTimeout: nil)
        if let version = options.version {
            snapshot = try store.snapshot(version: version, kind: options.kind, label: options.label)
        } else {
            snapshot = try store.snapshot(kind: options.kind, label: options.label)
        }
        report = Report(path: options.path, version: snapshot.version, pid: getpidValue(), kind: options.kind,
                        label: options.label)
    }

    /// Throws `.corrupt` naming the lock file when it was truncated while
    /// held; the pin is given up then without touching it (no SIGBUS).
    package func checkLockFile() throws(FirnError) {
        try store.lockFile?.checkMapped()
    }

    package func release() {
        // A truncated lock file is given up untouched; `checkLockFile`
        // reports it.
        try? store.lockFile?.checkMapped()
        snapshot.close()
        store.close()
    }
}
