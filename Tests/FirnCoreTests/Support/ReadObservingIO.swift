@testable import FirnCore

/// Passes everything through to `base`, and calls `onRead` with the offset
/// of each read once it is done: tests that count reads of some pages, or
/// act between two reads of an opener.
final class ReadObservingIO: FileIO, @unchecked Sendable {
    let base: any FileIO
    private let onRead: @Sendable (UInt64) -> Void

    init(_ base: any FileIO, onRead: @escaping @Sendable (UInt64) -> Void) {
        self.base = base
        self.onRead = onRead
    }

    var path: String { base.path }
    var descriptor: Int32 { base.descriptor }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) { try base.write(bytes, at: offset) }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        let read = try base.read(into: buffer, at: offset)
        onRead(offset)
        return read
    }
    func sync() throws(FirnError) { try base.sync() }
    func extend(to size: UInt64) throws(FirnError) { try base.extend(to: size) }
    func size() throws(FirnError) -> UInt64 { try base.size() }
    func close() { base.close() }
}
