import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// A version another process pins stays readable by every process for as
/// long as it is pinned (FORMAT.md 7, epoch entries and history entries):
/// a frame of the commit log after its checkpoint has left the commit
/// slots, and a page commit's version after the history window has passed
/// it. Each store below stands for a process: its pins are its own slots
/// in the lock file.
@Suite struct RetiredLogReadTests {
    /// The epoch entries of `snapshot`'s space tree, by end.
    static func epochEntries(_ snapshot: Snapshot) throws -> [UInt64: LogEpochRecord] {
        var out: [UInt64: LogEpochRecord] = [:]
        try snapshot.forEachSpaceEntry { (decoded, _, value) in
            guard case let .epoch(end)? = decoded, case let .inline(bytes)? = value,
                  let entry = LogEpochRecord.decode(bytes) else { return }
            out[end] = entry
        }
        return out
    }

    @Test func aPinnedFrameIsReadableByOthersAfterAnyNumberOfCheckpoints() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("frames.firn")
        let app = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        defer { app.close() }
        for i in 0..<12 { try app.put("a\(i)", "first \(i)") }
        _ = try app.checkpoint()
        for i in 0..<7 { try app.put("b\(i)", "second \(i)") }
        // The application pins a frame: a version past its checkpoint's record.
        let pinned = try app.snapshot(kind: .frozen, label: "app")
        let version = pinned.version
        let checkpoint = try #require(try app.readSlots().newest)
        #expect(checkpoint.hasLogRegion && checkpoint.version < version, "the pinned version is a frame")
        let seen = try StoreInspection.read(pinned)

        let writer = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        defer { writer.close() }
        for round in 0..<5 {
            for i in 0..<6 { try writer.put("b\(i)", "round \(round) \(i)") }
            try writer.put("new\(round)", "x")
            _ = try writer.checkpoint()
        }
        let slots = try writer.readSlots()
        #expect(slots.record(version: checkpoint.version) == nil, "the frame's checkpoint has left the slots")

        // Another process (a tool) reads exactly what the application reads.
        let tool = try Store.open(path, options: StoreOptions.commitLog(pages: 16))
        defer { tool.close() }
        let old = try tool.snapshot(version: version, kind: .tool, label: "tool")
        #expect(old.version == version)
        #expect(try StoreInspection.read(old) == seen)
        #expect(Verifier.verify(old, slots: nil).findings.isEmpty)
        old.close()
        let latest = try tool.snapshot()
        #expect(Verifier.verify(latest, slots: try tool.readSlots()).findings.map(\.description) == [])
        let holding = try #require(try latest.retiredLog(holding: version)?.record, "an epoch entry finds the region")
        #expect(holding.epoch == checkpoint.version && holding.region == checkpoint.logRegion)
        latest.close()

        // Released: the next checkpoints reclaim the region and drop the entry.
        pinned.close()
        for round in 0..<3 {
            try writer.put("after\(round)", "y")
            _ = try writer.checkpoint()
        }
        let after = try tool.snapshot()
        defer { after.close() }
        #expect(try after.retiredLog(holding: version) == nil)
        #expect(try Self.epochEntries(after).values.allSatisfy { $0.epoch > version },
                "no entry is left for the released region")
        #expect(Verifier.verify(after, slots: try tool.readSlots()).findings.map(\.description) == [])
        #expect(throws: FirnError.self) { try tool.snapshot(version: version) }
    }

    /// Without a pin the entry lives only until its region is reclaimed:
    /// the space tree does not grow with the checkpoints.
    @Test func epochEntriesGoWithTheirRegions() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("entries.firn"), options: StoreOptions.commitLog(pages: 16))
        defer { store.close() }
        for round in 0..<20 {
            for i in 0..<4 { try store.put("k\(round)-\(i)", "v") }
            _ = try store.checkpoint()
            let snapshot = try store.snapshot()
            let entries = try Self.epochEntries(snapshot)
            #expect(entries.count <= 2, "round \(round): \(entries.keys.sorted())")
            #expect(Verifier.verify(snapshot, slots: try store.readSlots()).findings.map(\.description) == [])
            snapshot.close()
        }
    }

    /// A page commit's version pinned longer than the history keeps
    /// (`HistoryRecord.retained` commits) keeps its history entry, which
    /// finds its catalog, until the pin goes.
    @Test func aPinnedPageCommitVersionOutlivesTheHistoryWindow() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("history.firn")
        let app = try Store.open(path, options: .pageCommits)
        defer { app.close() }
        for i in 0..<3 { try app.put("a\(i)", "v\(i)") }
        let pinned = try app.snapshot(kind: .frozen, label: "app")
        let version = pinned.version
        let seen = try StoreInspection.read(pinned)
        var options = StoreOptions.pageCommits
        options.durability = .none
        let writer = try Store.open(path, options: options)
        defer { writer.close() }
        let commits = Int(HistoryRecord.retained + 2 * HistoryRecord.trimBatch)
        for i in 0..<commits { try writer.put("w\(i % 50)", "\(i)") }
        let old = try writer.snapshot(version: version)
        #expect(try StoreInspection.read(old) == seen)
        old.close()
        pinned.close()
        for i in 0..<3 { try writer.put("z\(i)", "after") }
        let latest = try writer.snapshot()
        defer { latest.close() }
        #expect(try latest.historyRecord(version: version) == nil, "released, its entry goes")
        #expect(Verifier.verify(latest, slots: try writer.readSlots()).findings.map(\.description) == [])
    }
}
