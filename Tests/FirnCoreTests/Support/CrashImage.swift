import FirnTestSupport
/// A database file as a power loss could leave it: built from the file's
/// bytes before a recorded workload and the `RecordingIO` log of that
/// workload, choosing for each operation whether it reached the disk.
///
/// The model of the disk: everything up to the last sync that completed
/// before the crash is durable. Every write after it may have reached the
/// disk, or not, or only in part: the disk writes whole 512-byte sectors
/// atomically, and any subset of a write's sectors may have made it. Later
/// writes to the same sector win over earlier ones when both made it. An
/// extend after the last sync may or may not have happened (writes past
/// the end grow the file regardless).
struct CrashImage {
    static let sectorSize: UInt64 = 512

    /// What happened to one operation after the last completed sync.
    enum Fate: Equatable, CustomStringConvertible {
        case applied
        case dropped
        /// Only the sectors whose bit is set in `sectors` (bit i = the i-th
        /// sector the write touches) reached the disk.
        case torn(sectors: UInt64)

        var description: String {
            switch self {
            case .applied: return "applied"
            case .dropped: return "dropped"
            case let .torn(sectors): return "torn(\(String(sectors, radix: 2)))"
            }
        }
    }

    private(set) var bytes: [UInt8]

    init(base: [UInt8]) { bytes = base }

    /// The index of the last sync at or before `index`, or nil.
    static func lastSync(in log: [RecordingIO.Operation], atOrBefore index: Int) -> Int? {
        var i = min(index, log.count - 1)
        while i >= 0 {
            if case .sync = log[i] { return i }
            i -= 1
        }
        return nil
    }

    /// How many 512-byte sectors a write touches.
    static func sectorCount(offset: UInt64, length: Int) -> Int {
        guard length > 0 else { return 0 }
        let first = offset / sectorSize, last = (offset + UInt64(length) - 1) / sectorSize
        return Int(last - first + 1)
    }

    /// The image after a crash right after operation `crashIndex`: every
    /// operation up to the last sync at or before it applied, each one after
    /// that given its `fate`.
    static func build(
        base: [UInt8], log: [RecordingIO.Operation], crashIndex: Int,
        fate: (Int, RecordingIO.Operation) -> Fate
    ) -> CrashImage {
        build(from: CrashImage(base: base), appliedThrough: -1, log: log, crashIndex: crashIndex, fate: fate)
    }

    /// The same, starting from `image`, which already holds every operation
    /// through `appliedThrough` (at or before the last sync before the crash).
    static func build(
        from image: CrashImage, appliedThrough: Int, log: [RecordingIO.Operation], crashIndex: Int,
        fate: (Int, RecordingIO.Operation) -> Fate
    ) -> CrashImage {
        var image = image
        let durable = lastSync(in: log, atOrBefore: crashIndex) ?? -1
        precondition(appliedThrough <= max(durable, -1), "the starting image holds operations that are not durable")
        var index = appliedThrough + 1
        while index <= crashIndex && index < log.count {
            image.apply(log[index], fate: index <= durable ? .applied : fate(index, log[index]))
            index += 1
        }
        return image
    }

    /// A random fate: writes kept, dropped or torn with equal odds; extends
    /// kept or dropped.
    static func randomFate(_ operation: RecordingIO.Operation, _ rng: inout SeededGenerator) -> Fate {
        switch operation {
        case .sync:
            return .applied
        case .extend:
            return rng.chance(1, in: 2) ? .applied : .dropped
        case .write:
            switch rng.below(3) {
            case 0: return .applied
            case 1: return .dropped
            default:
                // A write of one sector is atomic: kept or dropped.
                return tornFate(operation, &rng) ?? (rng.chance(1, in: 2) ? .applied : .dropped)
            }
        }
    }

    /// A torn fate for `operation` (some but not all sectors), or nil for a
    /// write of one sector (which is atomic) or an extend.
    static func tornFate(_ operation: RecordingIO.Operation, _ rng: inout SeededGenerator) -> Fate? {
        guard case let .write(offset, bytes) = operation else { return nil }
        let sectors = sectorCount(offset: offset, length: bytes.count)
        guard sectors > 1 else { return nil }
        let all: UInt64 = sectors >= 64 ? .max : (1 << UInt64(sectors)) - 1
        var mask = rng.next() & all
        if mask == 0 { mask = 1 << rng.below(UInt64(sectors)) }
        if mask == all { mask &= ~(1 << rng.below(UInt64(sectors))) }
        return .torn(sectors: mask)
    }

    mutating func apply(_ operation: RecordingIO.Operation, fate: Fate) {
        switch operation {
        case .sync:
            return
        case let .extend(size):
            if fate != .dropped { grow(to: size) }
        case let .write(offset, data):
            switch fate {
            case .dropped:
                return
            case .applied:
                put(data[...], at: offset)
            case let .torn(mask):
                var sector = 0
                var start = 0
                while start < data.count {
                    let absolute = offset + UInt64(start)
                    let end = min(data.count, start + Int(Self.sectorSize - absolute % Self.sectorSize))
                    if sector < 64, mask & (1 << UInt64(sector)) != 0 { put(data[start..<end], at: absolute) }
                    start = end
                    sector += 1
                }
            }
        }
    }

    private mutating func grow(to size: UInt64) {
        if UInt64(bytes.count) < size { bytes.append(contentsOf: [UInt8](repeating: 0, count: Int(size) - bytes.count)) }
    }

    private mutating func put(_ data: ArraySlice<UInt8>, at offset: UInt64) {
        grow(to: offset + UInt64(data.count))
        // A plain copy: element-wise slice replacement is very slow in debug builds.
        bytes.withUnsafeMutableBytes { target in
            data.withUnsafeBytes { source in
                guard let base = target.baseAddress, let from = source.baseAddress, source.count > 0 else { return }
                (base + Int(offset)).copyMemory(from: from, byteCount: source.count)
            }
        }
    }
}
