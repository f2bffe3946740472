import Synchronization
@testable import FirnCore

/// A `FileIO` that passes every call through to the real file and records
/// each completed write (offset and bytes), sync and extend, in order, so a
/// power-loss test can rebuild the file as a crash at any point could have
/// left it (see `CrashImage`). Install with `StoreOptions.wrapIO`.
final class RecordingIO: FileIO, @unchecked Sendable {
    enum Operation: Sendable {
        case write(offset: UInt64, bytes: [UInt8])
        case sync
        case extend(to: UInt64)
    }

    let base: any FileIO
    private let log = Mutex<[Operation]>([])

    init(_ base: any FileIO) { self.base = base }

    /// The operations recorded so far, oldest first.
    var operations: [Operation] { log.withLock { $0 } }
    /// How many operations were recorded so far.
    var count: Int { log.withLock { $0.count } }

    var path: String { base.path }
    var descriptor: Int32 { base.descriptor }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        try base.write(bytes, at: offset)
        log.withLock { $0.append(.write(offset: offset, bytes: Array(bytes))) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        try base.read(into: buffer, at: offset)
    }

    func sync() throws(FirnError) {
        try base.sync()
        log.withLock { $0.append(.sync) }
    }

    func extend(to size: UInt64) throws(FirnError) {
        try base.extend(to: size)
        log.withLock { $0.append(.extend(to: size)) }
    }

    func size() throws(FirnError) -> UInt64 { try base.size() }

    func close() { base.close() }
}
