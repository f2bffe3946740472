import FirnCore

/// An object's record: bytes in the snapshot's map (zero-copy, read
/// outside a write) or a copy from the write transaction.
enum RecordBytes {
    case mapped(Value)
    case owned([UInt8])

    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch self {
        case let .mapped(value): return try body(value.bytes)
        case let .owned(array):
            return try array.withUnsafeBytes { buffer in Result { () throws(E) in try body(buffer) } }.get()
        }
    }
}
