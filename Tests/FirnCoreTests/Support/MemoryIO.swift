@testable import FirnCore

/// A FileIO over bytes in memory: for code that only writes and reads at
/// offsets (the log appender), checked against images built in memory.
final class MemoryIO: FileIO, @unchecked Sendable {
    private(set) var bytes: [UInt8]

    init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    var path: String { "memory" }
    var descriptor: Int32 { -1 }

    func write(_ data: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        let end = Int(offset) + data.count
        if bytes.count < end { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
        bytes.replaceSubrange(Int(offset)..<end, with: data)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        guard Int(offset) < bytes.count else { return 0 }
        let count = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[Int(offset)..<Int(offset) + count]))
        }
        return count
    }

    func sync() throws(FirnError) {}
    func extend(to size: UInt64) throws(FirnError) {
        if bytes.count < Int(size) { bytes.append(contentsOf: repeatElement(0, count: Int(size) - bytes.count)) }
    }
    func size() throws(FirnError) -> UInt64 { UInt64(bytes.count) }
    func close() {}
}
