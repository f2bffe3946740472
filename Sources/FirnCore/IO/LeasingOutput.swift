/// An output that lends a producer its own buffers to fill in place, so
/// what the producer builds is not copied again on its way out: the packed
/// image's pages go straight into compaction's write-behind buffers
/// (`WriteBehindFile`) or into export's compression jobs.
///
/// One lease at a time per producer: it is filled, then handed over with
/// `submit` (its bytes go out after everything submitted before) or given
/// back unused with `giveBack`. What reads a lent buffer next is a device or
/// another thread, never the producer: it copies in with non-temporal stores.
package protocol LeasingOutput: AnyObject {
    /// The size of every buffer lent.
    var leaseBytes: Int { get }
    /// A free buffer (waits for one).
    func lease() throws(FirnError) -> OutputLease
    /// Hands over the first `count` bytes of `lease`, which belong at `offset`.
    func submit(_ lease: OutputLease, count: Int, at offset: UInt64) throws(FirnError)
    /// Gives back a lent buffer unused.
    func giveBack(_ lease: OutputLease)
}

/// A buffer an output lent (`LeasingOutput.lease()`).
package struct OutputLease {
    /// Which of the output's buffers it is.
    package let index: Int
    package let bytes: UnsafeMutableRawBufferPointer

    package init(index: Int, bytes: UnsafeMutableRawBufferPointer) {
        self.index = index
        self.bytes = bytes
    }
}
