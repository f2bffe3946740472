import Foundation
import Testing
@testable import FirnCore
import FirnTestSupport

/// `Store.snapshot(alongside:kind:label:)`: a second pin on a pinned
/// snapshot's version, however old, released on its own.
@Suite struct PinAlongsideTests {
    @Test func pinsTheSameVersionInItsOwnSlotAndOutlivesTheOther() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("alongside.firn"))
        defer { store.close() }
        let lockFile = try #require(store.lockFile)
        try store.put("a")
        let reader = try store.snapshot(label: "reader")
        // Older than both commit slots: only the reader's pin keeps it.
        for key in ["b", "c", "d"] { try store.put(key) }
        let extra = try store.snapshot(alongside: reader, kind: .threadSafeReference, label: "Here.swift:12")
        #expect(extra.version == reader.version)
        let pins = lockFile.pins().sorted { $0.slot < $1.slot }
        #expect(pins.map(\.version) == [reader.version, reader.version])
        #expect(pins.last?.kind == .threadSafeReference && pins.last?.label == "Here.swift:12")
        reader.close()
        #expect(lockFile.pins().map(\.kind) == [.threadSafeReference])
        #expect(try extra.tree("t")?.get(Array("a".utf8)) != nil && extra.tree("t")?.get(Array("b".utf8)) == nil)
        extra.close()
        #expect(lockFile.pins().isEmpty)
    }

    /// A version in the commit log (a frame over its checkpoint): the new
    /// snapshot reads that version, not its checkpoint's (the SDK's
    /// notifier, which pins alongside and waits for the versions to match,
    /// spun forever when it read the checkpoint).
    @Test func aVersionInTheLogIsPinnedAndReadAsThatVersion() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("log.firn"))
        defer { store.close() }
        try store.put("a")
        try store.put("b")
        let reader = try store.snapshot(label: "reader")
        #expect(reader.version != reader.info.version, "the reader's version is a frame of the log")
        try store.put("c")
        let extra = try store.snapshot(alongside: reader, kind: .read, label: "alongside")
        #expect(extra.version == reader.version && extra.info.version == reader.info.version)
        #expect(try extra.tree("t")?.get(Array("b".utf8)) != nil && extra.tree("t")?.get(Array("c".utf8)) == nil)
        reader.close()
        #expect(store.pins().map(\.version) == [extra.version])
        extra.close()
    }

    @Test func refusesAClosedSnapshot() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(dir.file("closed.firn"))
        defer { store.close() }
        let reader = try store.snapshot()
        reader.close()
        #expect(throws: FirnError.self) { _ = try store.snapshot(alongside: reader, kind: .threadSafeReference, label: "") }
        #expect(store.pins().isEmpty == true)
    }
}
