import Testing
@testable import FirnCore
import FirnTestSupport

/// Power loss while appending to a commit log. Workloads of durable
/// commits, deferred commits and seals are recorded; then every crash point
/// is replayed with the writes after the last completed sync dropped, kept
/// or torn by sectors — every combination for short windows, seeded samples
/// for long ones — landing in order or in reverse. Each image is scanned as
/// an opener would, and must hold:
/// - the frames accepted are exactly the first frames written, byte for byte;
/// - nothing acknowledged is lost: the durable version is at least the last
///   one whose sync returned before the crash;
/// - a group survives whole or not at all: the durable version is one the
///   writer made durable (a commit written with its sync, or a seal), and
///   every accepted frame after it is a deferred commit (dropped at open);
/// - appending after the scan, where the appender allows it, gives a log
///   whose new frame is accepted right after the durable version.
/// The region starts out blank, full of other data, or holding a whole log
/// of an earlier checkpoint: frames of another epoch never join the chain.
@Suite struct CommitLogPowerLossTests {
    static let geometry = PageGeometry(pageSize: 4096)
    static let pageSize = 4096
    static let regionStart: UInt64 = 2
    static let regionPages: UInt64 = 40

    enum Start: CaseIterable { case blank, foreign, olderLog }

    struct Written {
        var version: UInt64
        var kind: LogFrameHeader.Kind
        var deferred: Bool
        var payload: [UInt8]
    }

    struct Recording {
        var base: [UInt8]
        var log: [RecordingIO.Operation]
        var region: LogRegion
        var frames: [Written]
        /// For each sync in `log` (by index): the durable version once it returned.
        var durableAfterSync: [Int: UInt64]
    }

    static func randomPayload(_ rng: inout SeededGenerator) -> [UInt8] {
        var builder = LogPayload.Builder()
        for _ in 0..<(1 + rng.below(4)) {
            let tree = ["obj.Dog", "obj.Person", "idx.Person.name"][Int(rng.below(3))]
            let key = (0..<rng.below(12)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            switch rng.below(8) {
            case 0: builder.append(.delete(tree: tree, key: key))
            case 1: builder.append(.dropTree(tree))
            case 2: builder.append(.createTree(tree))
            default:
                // Mostly small values; some span two or three pages.
                let length = rng.chance(1, in: 4) ? 3000 + Int(rng.below(7000)) : Int(rng.below(300))
                builder.append(.put(tree: tree, key: key, value: (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
            }
        }
        return builder.bytes
    }

    /// Records a workload of `steps` appends and seals on a fresh file.
    static func record(seed: UInt64, start: Start, steps: Int, in directory: TemporaryDirectory,
                       epoch: UInt64? = nil) throws -> Recording {
        var rng = SeededGenerator(seed: seed)
        // The chain's seed is the same for every log of a test: only the
        // epoch tells an older checkpoint's frames apart.
        let chainSeed = UInt32(truncatingIfNeeded: seed >> 3 &* 0x9E37_79B9)
        let fileBytes = Int(regionStart + regionPages) * pageSize
        var base = [UInt8](repeating: 0, count: fileBytes)
        let regionOffset = Int(regionStart) * pageSize
        let epoch: UInt64 = epoch ?? 1000 + rng.below(1000)
        switch start {
        case .blank: break
        case .foreign:
            for i in regionOffset..<fileBytes { base[i] = UInt8(truncatingIfNeeded: rng.next()) }
        case .olderLog:
            // A whole log of another checkpoint, with the same seed even:
            // only the epoch tells its frames apart.
            let older = try record(seed: seed, start: .blank, steps: 14, in: directory, epoch: epoch - 7)
            base = older.base
            for operation in older.log {
                if case let .write(offset, bytes) = operation {
                    base.replaceSubrange(Int(offset)..<Int(offset) + bytes.count, with: bytes)
                }
            }
        }
        let region = LogRegion(startPage: regionStart, pageCount: regionPages, epoch: epoch, seed: chainSeed)
        let path = directory.file("log-\(seed)-\(start)-\(epoch)")
        let file = try POSIXFile(path: path, writable: true, create: true)
        try base.withUnsafeBytes { try file.write($0, at: 0) }
        try file.sync()
        let io = RecordingIO(file)
        defer { io.close() }
        let appender = LogAppender.fresh(io: io, region: region, geometry: geometry)
        var frames: [Written] = []
        var durableAfterSync: [Int: UInt64] = [:]
        for step in 0..<steps {
            let sealNow = appender.durableVersion < appender.newestVersion && rng.chance(1, in: 4)
            if sealNow {
                guard appender.fits(payloadLength: 0) else { break }
                try appender.seal(timestampNanoseconds: UInt64(step))
                frames.append(Written(version: appender.newestVersion, kind: .seal, deferred: false, payload: []))
            } else {
                let payload = randomPayload(&rng)
                let deferred = rng.chance(1, in: 2)
                guard appender.fits(payloadLength: payload.count, deferred: deferred) else { break }
                let version = try appender.appendCommit(payload: payload, deferred: deferred, timestampNanoseconds: UInt64(step))
                frames.append(Written(version: version, kind: .commit, deferred: deferred, payload: payload))
            }
            if case .sync = io.operations.last { durableAfterSync[io.count - 1] = appender.durableVersion }
        }
        return Recording(base: base, log: io.operations, region: region, frames: frames, durableAfterSync: durableAfterSync)
    }

    /// The durable version acknowledged by the crash at `crashIndex`.
    static func acknowledged(_ recording: Recording, crashIndex: Int) -> UInt64 {
        var durable = recording.region.epoch
        for (index, version) in recording.durableAfterSync where index <= crashIndex { durable = max(durable, version) }
        return durable
    }

    /// Checks one crash image; returns false after recording an issue.
    static func check(_ image: CrashImage, _ recording: Recording, crashIndex: Int, label: () -> String) -> Bool {
        let start = Int(regionStart) * pageSize, end = start + Int(regionPages) * pageSize
        guard image.bytes.count >= end else {
            Issue.record("\(label()): the image lost the region")
            return false
        }
        let regionBytes = Array(image.bytes[start..<end])
        let scan = regionBytes.withUnsafeBytes { LogScan.scan(recording.region, bytes: $0, geometry: geometry) }
        // A prefix of what was written, byte for byte.
        guard scan.frames.count <= recording.frames.count else {
            Issue.record("\(label()): \(scan.frames.count) frames accepted, \(recording.frames.count) written")
            return false
        }
        for (index, frame) in scan.frames.enumerated() {
            let written = recording.frames[index]
            let offset = Int(frame.offset) + LogFrameHeader.size
            let payload = Array(regionBytes[offset..<offset + Int(frame.header.payloadLength)])
            guard frame.header.version == written.version, frame.header.kind == written.kind,
                  frame.header.deferred == written.deferred, payload == written.payload else {
                Issue.record("\(label()): accepted frame \(index) is not the one written")
                return false
            }
        }
        let acknowledged = acknowledged(recording, crashIndex: crashIndex)
        guard scan.durableVersion >= acknowledged else {
            Issue.record("\(label()): durable version \(scan.durableVersion) after \(acknowledged) was acknowledged")
            return false
        }
        // The durable version is a durability point the writer made, and
        // only deferred commits follow it.
        let points = Set(recording.frames.filter { $0.kind == .seal || !$0.deferred }.map(\.version) + [recording.region.epoch])
        guard points.contains(scan.durableVersion) else {
            Issue.record("\(label()): durable version \(scan.durableVersion) splits a group")
            return false
        }
        let afterDurable = scan.frames.filter { $0.header.version > scan.durableVersion }
        guard afterDurable.allSatisfy({ $0.header.kind == .commit && $0.header.deferred }) else {
            Issue.record("\(label()): a durable frame after the durable version \(scan.durableVersion)")
            return false
        }
        // Appending where the appender allows it: the new frame is accepted
        // right after the durable version.
        let io = MemoryIO(image.bytes)
        guard let appender = LogAppender.resume(io: io, region: recording.region, geometry: geometry, scan: scan,
                                                acceptOpenGroup: false) else { return true }
        let payload = Payloads.sample
        guard appender.newestVersion == scan.durableVersion, appender.fits(payloadLength: payload.count) else { return true }
        do {
            try appender.appendCommit(payload: payload, deferred: false, timestampNanoseconds: 1)
        } catch {
            Issue.record("\(label()): appending after the scan failed: \(error)")
            return false
        }
        let rescan = io.bytes[start..<end].withUnsafeBytes { LogScan.scan(recording.region, bytes: $0, geometry: geometry) }
        guard rescan.durableVersion == scan.durableVersion + 1, rescan.frames.count == scan.frames.count + 1 else {
            Issue.record("\(label()): a frame appended after the scan was not accepted (durable \(rescan.durableVersion), end \(rescan.end))")
            return false
        }
        return true
    }

    /// The fates for the writes in `window`: every combination of applied,
    /// dropped and torn when there are at most `exhaustive` writes, else
    /// `samples` seeded draws.
    static func fateLists(window: [Int], log: [RecordingIO.Operation], exhaustive: Int, samples: Int,
                          rng: inout SeededGenerator) -> [[CrashImage.Fate]] {
        if window.count <= exhaustive {
            var lists: [[CrashImage.Fate]] = [[]]
            for index in window {
                var next: [[CrashImage.Fate]] = []
                var choices: [CrashImage.Fate] = [.applied, .dropped]
                if let torn = CrashImage.tornFate(log[index], &rng) { choices.append(torn) }
                for list in lists { for choice in choices { next.append(list + [choice]) } }
                lists = next
            }
            return lists
        }
        return (0..<samples).map { _ in window.map { CrashImage.randomFate(log[$0], &rng) } }
    }

    static func run(seed: UInt64, start: Start, steps: Int) throws -> Int {
        let directory = try TemporaryDirectory(inMemory: true)
        let recording = try record(seed: seed, start: start, steps: steps, in: directory)
        #expect(recording.frames.count >= min(steps, 8), "the workload wrote too few frames")
        var rng = SeededGenerator(seed: seed &* 31)
        var images = 0
        for crashIndex in 0..<recording.log.count {
            let durableIndex = CrashImage.lastSync(in: recording.log, atOrBefore: crashIndex) ?? -1
            let durable = CrashImage.build(base: recording.base, log: recording.log, crashIndex: durableIndex) { _, _ in .applied }
            let window = Array((durableIndex + 1)..<(crashIndex + 1)).filter {
                if case .write = recording.log[$0] { return true } else { return false }
            }
            for fates in fateLists(window: window, log: recording.log, exhaustive: 4, samples: 60, rng: &rng) {
                for reversed in [false, true] {
                    var image = durable
                    let order = reversed ? Array(zip(window, fates).reversed()) : Array(zip(window, fates))
                    for (index, fate) in order { image.apply(recording.log[index], fate: fate) }
                    images += 1
                    let ok = check(image, recording, crashIndex: crashIndex) {
                        "seed \(seed), start \(start), crash after op \(crashIndex), fates \(fates), reversed \(reversed)"
                    }
                    if !ok { return images }
                }
            }
        }
        return images
    }

    @Test(arguments: Start.allCases)
    func everyCrashImageOpensToAnAcknowledgedWholeGroup(start: Start) throws {
        var images = 0
        for seed in UInt64(1)...6 { images += try Self.run(seed: seed * 7919, start: start, steps: 18) }
        #expect(images > 1000)
    }
}
