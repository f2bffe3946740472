/// What keeps the writer byte locked for an open group between its
/// transactions (`LockFile.unlockWriter(_:keptBy:)`): a store's open group
/// (`OpenGroup`). The lock layer never writes data and holds no closure of
/// the store: it only tells the holder that a writer wants the byte, and
/// the holder writes what must reach the file first and lets the byte go
/// (`LockFile.releaseKeptWriterByte`).
package protocol KeptWriterByteHolder: AnyObject, Sendable {
    /// A writer of another `LockFile` of this process found the byte taken:
    /// let it go now if it is kept and no transaction holds it (never
    /// waiting: the asker may hold its own permit). True when it was let go.
    func keptWriterByteWanted() -> Bool
}
