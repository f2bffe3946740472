#if canImport(Glibc)
import Glibc
#endif

/// The device and inode of the database file a lock file belongs to, kept
/// in the lock file's header so a lock file left over from a database that
/// was deleted and recreated (or replaced by rename) is recognized. Zero
/// means unknown (the data file did not exist when the lock file was made).
package struct DataFileIdentity: Sendable, Hashable, CustomStringConvertible {
    package let device: UInt64
    package let inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    package static let unknown = DataFileIdentity(device: 0, inode: 0)

    package var isKnown: Bool { device != 0 || inode != 0 }

    /// The identity of the file at `path`, or `.unknown` when it cannot be stat'ed.
    package static func of(path: String) -> DataFileIdentity {
        var info = stat()
        guard stat(path, &info) == 0 else { return .unknown }
        return DataFileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The identity of the file open on `descriptor`, or `.unknown` when
    /// fstat fails.
    package static func of(descriptor: Int32) -> DataFileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .unknown }
        return DataFileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Two identities conflict only when both are known and differ.
    func conflicts(with other: DataFileIdentity) -> Bool {
        isKnown && other.isKnown && self != other
    }

    package var description: String { "device \(device) inode \(inode)" }
}
