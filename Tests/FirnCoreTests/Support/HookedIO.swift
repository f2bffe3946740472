@testable import FirnCore

/// Passes everything through to `base`, with two hooks: `onRead`, called
/// with the offset of each read once it is done (tests that count reads of
/// some pages, or act between two reads of an opener), and `beforeSize`,
/// called before each `size()` and able to fail it (an injected `fstat`
/// error).
final class HookedIO: FileIO, @unchecked Sendable {
    let base: any FileIO
    private let onRead: @Sendable (UInt64) -> Void
    private let beforeSize: @Sendable () throws(FirnError) -> Void

    init(_ base: any FileIO, onRead: @escaping @Sendable (UInt64) -> Void = { _ in },
         beforeSize: @escaping @Sendable () throws(FirnError) -> Void = {}) {
        self.base = base
        self.onRead = onRead
        self.beforeSize = beforeSize
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
    func size() throws(FirnError) -> UInt64 {
        try beforeSize()
        return try base.size()
    }
    func close() { base.close() }
}
