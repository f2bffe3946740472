/// Where a checkpoint's commit log lives: `pageCount` whole pages of the
/// data file from `startPage`, allocated by the checkpoint whose version is
/// `epoch`. Frames chain from `seed` (the checkpoint record's checksum), so a
/// frame can only follow the checkpoint that made its region: frames left in
/// reused pages by another checkpoint never join the chain.
struct LogRegion: Equatable, Sendable {
    var startPage: UInt64
    var pageCount: UInt64
    var epoch: UInt64
    var seed: UInt32

    /// The byte offset of the region's page `index` in the data file; nil
    /// when the region's numbers overflow (file data is checked before use).
    func fileOffset(ofPage index: UInt64, pageSize: Int) -> UInt64? {
        let (page, overflowA) = startPage.addingReportingOverflow(index)
        let (offset, overflowB) = page.multipliedReportingOverflow(by: UInt64(pageSize))
        return overflowA || overflowB ? nil : offset
    }

    /// The file page holding the region's byte `offset`; nil when that
    /// overflows.
    func page(atByte offset: UInt64, pageSize: Int) -> UInt64? {
        let page = startPage.addingReportingOverflow(offset / UInt64(pageSize))
        return page.overflow ? nil : page.partialValue
    }
}
