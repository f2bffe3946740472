import FirnCore
import Foundation

/// The file behind an in-memory configuration (docs/SDK.md, "In-memory and
/// read-only configurations"): a database made in a private directory —
/// on the shared-memory tmpfs when the system has one, so its pages never
/// go to a disk — opened, and then removed from the file system at once.
/// The store's open descriptors and maps keep its pages (and its lock file's)
/// for as long as the store lives, and the kernel frees them with the last
/// descriptor: no file is left behind by a close, a crash or a kill, and no
/// other process can open it.
enum InMemoryFile {
    /// Where the private directories are made: memory-backed first.
    static var parents: [String] { ["/dev/shm", NSTemporaryDirectory()] }

    static func open(_ identifier: String) throws(DatabaseError) -> Store {
        let files = FileManager.default
        guard let parent = parents.first(where: { files.isWritableFile(atPath: $0) }) else {
            throw DatabaseError.engine(.cannotCreate(path: "in-memory database \"\(identifier)\"",
                                                     detail: "no writable temporary directory (\(parents.joined(separator: ", ")))"))
        }
        let directory = parent + "/firn-memory-" + UUID().uuidString
        do {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw DatabaseError.engine(.cannotCreate(path: directory, detail: "in-memory database \"\(identifier)\": \(error)"))
        }
        defer { try? files.removeItem(atPath: directory) }
        var options = StoreOptions()
        // Syncs would only write a memory file to itself.
        options.durability = .none
        return try engine { () throws(FirnError) in try Store.open(directory + "/memory.firn", options: options) }
    }
}
