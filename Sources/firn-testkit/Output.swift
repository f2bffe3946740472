import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Prints a command's usage to stderr; returns the usage exit code (64).
func usageError(_ text: String) -> Int32 {
    FileHandleStderr.write("usage: firn-testkit \(text)\n")
    return 64
}

/// Writes `text` and a newline straight to fd 1: no stdio buffer, so a line
/// is in the pipe the moment this returns, and a kill right after loses nothing.
func writeLine(_ text: String) {
    _ = SystemCall.writeAll(1, Array((text + "\n").utf8))
}

/// Opens the database at `path` for a loop that works until it is
/// killed, and says "ready".
func openLoop(_ path: String, _ options: StoreOptions) throws -> Store {
    let store = try Store.open(path, options: options)
    writeLine("ready")
    return store
}

/// A snapshot a loop keeps pinned across a few commits at a time (renewed
/// after 1–12 of them): a kill leaves its pin behind for the next writer
/// to find dead and release.
struct RenewedPin {
    let label: String
    private var snapshot: Snapshot? = nil
    /// Commits so far.
    private(set) var commits = 0
    private var renewAt = 0

    init(label: String) { self.label = label }

    /// Before a commit: a new snapshot when the pin is due for renewal.
    mutating func renewIfDue(_ store: Store, _ rng: inout TestkitGenerator) throws {
        guard commits >= renewAt else { return }
        snapshot?.close()
        snapshot = try store.snapshot(label: label)
        renewAt = commits + 1 + Int(rng.next() % 12)
    }

    /// After a commit.
    mutating func committed() { commits += 1 }
}

/// Takes `--log-pages N` off the end of `arguments` when there are
/// `withOption` of them: the other arguments and N (0 without the option);
/// nil when N is not a page count.
func takingLogPages(_ arguments: [String], withOption count: Int) -> (positional: [String], logPages: UInt32)? {
    guard arguments.count == count, arguments[count - 2] == "--log-pages" else { return (arguments, 0) }
    guard let pages = UInt32(arguments[count - 1]), pages > 0 else { return nil }
    return (Array(arguments.dropLast(2)), pages)
}
