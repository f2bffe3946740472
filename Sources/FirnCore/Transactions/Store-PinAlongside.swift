extension Store {
    /// One more pin, of `kind` and labelled `label`, on the version `other`
    /// reads: a snapshot of that version that lives and is released on its
    /// own (the SDK's thread-safe references pin their instance's version
    /// this way). No slot or history lookup: `other`'s pin keeps the version
    /// readable until the new pin is published, which is checked after it
    /// is. Throws `.misuse` when `other` is closed or of another store.
    package func snapshot(alongside other: Snapshot, kind: PinKind, label: String) throws(FirnError) -> Snapshot {
        try checkOpen()
        guard other.store === self else {
            throw FirnError.misuse("\(path): the snapshot to pin alongside belongs to \(other.store.path)")
        }
        guard let lockFile, other.isPinned else {
            // No reader table: the other snapshot is not pinned either.
            return try makeSnapshot(other.info, pin: nil, log: other.log)
        }
        let pin = try lockFile.claimPin(version: other.version, kind: kind, label: label)
        // Still pinned once ours is visible: the version was protected all along.
        guard other.pin != nil else {
            lockFile.releasePin(pin)
            throw FirnError.misuse("\(path): the snapshot of version \(other.version) to pin alongside is closed")
        }
        do {
            return try makeSnapshot(other.info, pin: pin, log: other.log)
        } catch {
            lockFile.releasePin(pin)
            throw error
        }
    }
}
