/// The `LockFile`s of this process, by the lock file they opened. A
/// store's open group keeps the writer byte locked between transactions
/// (`unlockWriter(_:keptBy:)`); another `LockFile` of the same file in
/// this process cannot take the byte until it is released, and may be
/// waiting on the same thread that would make the group durable. So a
/// `LockFile` that finds the byte taken tells its siblings' holders, which
/// let a kept byte go first.
enum WriterByteSiblings {
    private final class Weak: @unchecked Sendable {
        // Set once; read under the table's lock.
        weak var lockFile: LockFile?
        init(_ lockFile: LockFile) { self.lockFile = lockFile }
    }

    private static let table = Locked<[DataFileIdentity: [ObjectIdentifier: Weak]]>([:])

    static func register(_ lockFile: LockFile) {
        guard lockFile.lockFileIdentity.isKnown else { return }
        table.withLock { $0[lockFile.lockFileIdentity, default: [:]][ObjectIdentifier(lockFile)] = Weak(lockFile) }
    }

    static func unregister(_ lockFile: LockFile) {
        let identity = lockFile.lockFileIdentity
        table.withLock { table in
            table[identity]?[ObjectIdentifier(lockFile)] = nil
            if table[identity]?.isEmpty == true { table[identity] = nil }
        }
    }

    /// Tells the holder of a byte every other `LockFile` of `identity` in
    /// this process keeps for a group that it is wanted. True when one was
    /// let go.
    static func askToRelease(_ identity: DataFileIdentity, except asker: LockFile) -> Bool {
        guard identity.isKnown else { return false }
        let siblings = table.withLock { table in
            (table[identity] ?? [:]).values.compactMap { $0.lockFile }.filter { $0 !== asker }
        }
        var dropped = false
        for sibling in siblings where sibling.askKeptByteHolderToRelease() { dropped = true }
        return dropped
    }
}
