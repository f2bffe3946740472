import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temporary directory, removed with
/// everything in it on `cleanup()` or deinit. Keep it alive (a `let` in the
/// test) for as long as the test uses its files.
package final class TemporaryDirectory: @unchecked Sendable {
    package let path: String
    private var removed = false

    /// Creates `<tmp>/<prefix>.XXXXXX` with mkdtemp. `inMemory` puts it in
    /// /dev/shm when there is one (fsync costs nothing there): for tests whose
    /// durability is simulated (crash images, injected I/O faults) and that
    /// would otherwise spend their time waiting on the disk.
    package init(prefix: String = "firn-test", inMemory: Bool = false) throws {
        var base = FileManager.default.temporaryDirectory.path
        if inMemory, access("/dev/shm", W_OK | X_OK) == 0 { base = "/dev/shm" }
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }
        }
        guard let created else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: base])
        }
        path = String(cString: created)
    }

    /// The path of `name` inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    /// Runs `body` with the path of the database `name` in the directory
    /// (written with `bytes` first, when given), then removes it and its
    /// lock file: for the tests that make hundreds of files in one directory.
    package func withDatabase<T>(_ name: String, bytes: [UInt8]? = nil, _ body: (String) throws -> T) throws -> T {
        let path = file(name)
        if let bytes, !FileManager.default.createFile(atPath: path, contents: Data(bytes)) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        defer {
            unlink(path)
            unlink(path + ".lock")
        }
        return try body(path)
    }

    /// The names in the directory, sorted.
    package func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// Removes the directory now (deinit then does nothing).
    package func cleanup() {
        guard !removed else { return }
        removed = true
        // The test may have made the directory or its files read-only:
        // removal needs the directory writable, not the files.
        _ = chmod(path, 0o755)
        try? FileManager.default.removeItem(atPath: path)
    }

    deinit { cleanup() }
}
