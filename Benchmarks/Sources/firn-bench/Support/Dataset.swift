/// The records every workload uses: 16-byte random keys and 100-byte values
/// whose first half is random and second half zeros, generated from a fixed
/// seed into two flat buffers (no per-record allocation before the clock starts).
final class Dataset: @unchecked Sendable {
    static let keyLength = 16
    static let valueLength = 100

    let count: Int
    let valueLength: Int
    private let keys: UnsafeMutableRawBufferPointer
    private let values: UnsafeMutableRawBufferPointer

    init(count: Int, seed: UInt64, valueLength: Int = Dataset.valueLength) {
        self.count = count
        self.valueLength = valueLength
        keys = .allocate(byteCount: count * Self.keyLength, alignment: 16)
        values = .allocate(byteCount: count * valueLength, alignment: 16)
        values.initializeMemory(as: UInt8.self, repeating: 0)
        var rng = SplitMix64(seed: seed)
        for i in 0..<count {
            rng.fill(UnsafeMutableRawBufferPointer(rebasing: keys[(i * Self.keyLength)..<((i + 1) * Self.keyLength)]))
            let start = i * valueLength
            rng.fill(UnsafeMutableRawBufferPointer(rebasing: values[start..<(start + valueLength / 2)]))
        }
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always)
    func key(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: keys[(i * Self.keyLength)..<((i + 1) * Self.keyLength)])
    }

    @inline(__always)
    func value(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: values[(i * valueLength)..<((i + 1) * valueLength)])
    }

    /// A random permutation of 0..<count (the order of point reads and overwrites).
    func shuffledIndices(seed: UInt64) -> [Int32] {
        var order = (0..<Int32(count)).map { $0 }
        var rng = SplitMix64(seed: seed)
        var i = order.count - 1
        while i > 0 {
            let j = Int(rng.next() % UInt64(i + 1))
            order.swapAt(i, j)
            i -= 1
        }
        return order
    }
}

/// SplitMix64: small, fast and deterministic.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    @inline(__always)
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var i = 0
        while i < buffer.count {
            var word = next()
            let n = min(8, buffer.count - i)
            withUnsafeBytes(of: &word) { w in
                for j in 0..<n { buffer[i + j] = w[j] }
            }
            i += n
        }
    }
}
