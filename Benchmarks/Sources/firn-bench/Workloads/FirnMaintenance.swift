#if canImport(Glibc)
import Glibc
#endif
import FirnCore

/// Verify and compact through FirnCore, for as long as the `firn` CLI does
/// not have them (the table marks those rows "library"). What the CLI will
/// add on top (argument parsing, report rendering, for compact the verify
/// of the output, rename and directory fsync) is not timed here.
enum FirnLibrary {
    static func openReadOnly(_ path: String) throws -> Store {
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        return try Store.open(path, options: options)
    }

    static func verify(_ path: String) throws {
        let store = try openReadOnly(path)
        defer { store.close() }
        let snapshot = try store.snapshot(kind: .tool, label: "firn-bench verify")
        defer { snapshot.close() }
        let report = Verifier.verify(snapshot, slots: try store.readSlots())
        guard report.isClean else {
            throw EngineError(description: "verify of \(path) found: \(report.findings.prefix(3))")
        }
    }

    /// A packed copy of the current version, synced.
    static func compact(_ path: String, to out: String) throws {
        let store = try openReadOnly(path)
        defer { store.close() }
        let snapshot = try store.snapshot(kind: .compact, label: "firn-bench compact")
        defer { snapshot.close() }
        let file = try POSIXFile(path: out, writable: true, create: true)
        defer { file.close() }
        _ = try PackedImageWriter.write(snapshot, to: file)
        try file.sync()
    }
}
