/// `verify` with the open-time check deferred (`StoreOptions.defersOpenCheck`):
/// the verifier's walk reads every page of the newest record once, and
/// stands in for the check's walk, which would read them all before it.
extension Store {
    /// The snapshot `verify` checks: under a deferred check, the version the
    /// check would make current if it accepted the newest record (its log's
    /// durable frame when it has one), pinned but not published; otherwise
    /// `snapshot(kind:label:)`.
    ///
    /// Why the pin is enough: while nobody has published a version since
    /// this store's session began, no writer has committed (a writer
    /// publishes the version it builds on first), so the pages are those
    /// the open found; a writer that comes after sees the pin and leaves
    /// what it protects alone. When a version has been published by then,
    /// whoever published it checked it: that one is verified, as any open
    /// after a publisher would.
    package func deferredCheckSnapshot(kind: PinKind = .tool, label: String = "") throws(FirnError) -> Snapshot {
        try checkOpen()
        guard openCheck.checkDeferred, let lockFile, let record = openCheck.current else {
            return try snapshot(kind: kind, label: label)
        }
        var version = record.version
        if let scan = try log.frames(of: record) { version = scan.durableVersion }
        let pin = try lockFile.claimPin(version: version, kind: kind, label: label)
        guard lockFile.latestVersion == 0 else {
            lockFile.releasePin(pin)
            return try snapshot(kind: kind, label: label)
        }
        do throws(FirnError) {
            guard let snapshot = try makeSnapshot(version: version, slots: openCheck, pin: pin) else {
                throw FirnError.corrupt(path: path, page: nil, version: version,
                                        detail: "the newest record's log does not lead to its durable version \(version)")
            }
            return snapshot
        } catch {
            lockFile.releasePin(pin)
            throw error
        }
    }

    /// The verifier's walk found the newest record clean: publish it as the
    /// open would have after its own check (a no-op when the check was not
    /// deferred, or when another opener has published meanwhile).
    package func acceptDeferredCheck() throws(FirnError) {
        guard openCheck.checkDeferred else { return }
        try publishAccepted(openCheck)
    }
}
