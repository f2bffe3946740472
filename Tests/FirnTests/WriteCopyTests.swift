import Firn
import FirnCore
import Foundation
import Testing
import FirnTestSupport

/// `writeCopy(toFile:)` and `Configuration.shouldCompactOnLaunch`: packed
/// copies made with the same image writer as `firn compact`.
@Suite struct WriteCopyTests {
    /// Adds `count` dogs, then deletes all but every tenth: most of the
    /// file's pages are free afterwards.
    static func fillAndThin(_ db: Database, count: Int) throws {
        try db.write {
            for i in 0..<count {
                let dog = Dog()
                dog.id = i
                dog.name = String(repeating: "n", count: 60) + "\(i)"
                dog.age = i % 17
                try db.add(dog)
            }
        }
        try db.write {
            for dog in Array(db.objects(Dog.self)) where dog.id % 10 != 0 { try db.delete(dog) }
        }
    }

    static func fileSize(_ path: String) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    static func verifyClean(_ path: String) throws {
        let report = try Verifier.verifyFile(at: path)
        #expect(report.findings.isEmpty, "\(report.findings.prefix(3))")
    }

    @Test func aCopyHoldsTheInstancesVersionPackedAndNeverReplacesAFile() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.fillAndThin(db, count: 3000)
        let copy = scratch.path + "/copy.firn"
        try db.writeCopy(toFile: copy)
        #expect(Self.fileSize(copy) < Self.fileSize(scratch.file) / 2, "\(Self.fileSize(copy)) vs \(Self.fileSize(scratch.file))")
        try Self.verifyClean(copy)
        // A change after the copy is not in it.
        try db.write {
            let dog = Dog()
            dog.id = 100_000
            try db.add(dog)
        }
        let other = try Database(configuration: Configuration(path: copy, objectTypes: [Dog.self, Person.self, Everything.self, LogEntry.self]))
        #expect(other.objects(Dog.self).count == 300)
        #expect(try other.object(ofType: Dog.self, forPrimaryKey: 2990)?.name.hasSuffix("2990") == true)
        // Never over an existing file, and the file stays as it was.
        let before = Self.fileSize(copy)
        #expect(throws: DatabaseError.self) { try db.writeCopy(toFile: copy) }
        #expect(Self.fileSize(copy) == before)
        let refused = #expect(throws: DatabaseError.self) { try db.writeCopy(toFile: scratch.file) }
        #expect(refused.map { "\($0)" }?.contains("already exists") == true, "\(String(describing: refused))")
        // No temporary file is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".creating-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aCopyInsideAWriteIsRefusedAndAFrozenInstanceCopiesItsVersion() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration())
        try Self.fillAndThin(db, count: 50)
        let frozen = try db.freeze()
        try db.write {
            #expect(throws: DatabaseError.self) { try db.writeCopy(toFile: scratch.path + "/in-write.firn") }
            let dog = Dog()
            dog.id = 9_999
            try db.add(dog)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/in-write.firn"))
        let copy = scratch.path + "/frozen.firn"
        try frozen.writeCopy(toFile: copy)
        let other = try Database(configuration: Configuration(path: copy, objectTypes: [Dog.self, Person.self, Everything.self, LogEntry.self]))
        #expect(other.objects(Dog.self).count == 5)
        #expect(try other.object(ofType: Dog.self, forPrimaryKey: 9_999) == nil)
    }

    /// Opened first in this process, a file whose closure says yes is
    /// compacted in place (smaller, same objects, verified); the closure
    /// sees the file's size and the bytes the current version uses.
    @Test func shouldCompactOnLaunchCompactsAFileNobodyElseHasOpen() throws {
        let scratch = Scratch()
        // The thinning is a frame of the commit log: it frees pages only
        // at a checkpoint (see the next test).
        let (before, calls) = try Self.launchThinned(scratch, checkpointed: true) { (db: Database) throws in
            #expect(try db.object(ofType: Dog.self, forPrimaryKey: 1230)?.age == 1230 % 17)
        }
        #expect(calls.count == 1)
        #expect(calls.first?.0 == before && (calls.first?.1 ?? 0) < before / 3, "\(calls) for a file of \(before) bytes")
        #expect(Self.fileSize(scratch.file) < before / 2, "\(Self.fileSize(scratch.file)) vs \(before)")
        try Self.verifyClean(scratch.file)
    }

    /// Deletions still in the commit log free no pages until a checkpoint:
    /// the closure sees the checkpoint's pages as used, and a closure that
    /// asks for compaction only when two thirds are free leaves the
    /// file alone (the thinning would free nine tenths of the objects).
    @Test func deletionsStillInTheLogCountAsUsedUntilACheckpoint() throws {
        let scratch = Scratch()
        let (before, calls) = try Self.launchThinned(scratch, checkpointed: false) { _ in }
        #expect(calls.count == 1 && (calls.first?.1 ?? 0) >= before / 3, "\(calls) for a file of \(before) bytes")
        #expect(Self.fileSize(scratch.file) == before)
    }

    /// 3,000 dogs thinned to 300 (then a checkpoint, or not), opened again
    /// with a `shouldCompactOnLaunch` that says yes when less than a third of the
    /// file is used; `check` reads the opened instance. The file's size
    /// before, and what the closure was asked.
    static func launchThinned(_ scratch: Scratch, checkpointed: Bool,
                              check: (Database) throws -> Void) throws -> (before: UInt64, calls: [(UInt64, UInt64)]) {
        try {
            let db = try Database(configuration: scratch.configuration())
            try fillAndThin(db, count: 3000)
        }()
        if checkpointed { try checkpoint(scratch.file) }
        let before = fileSize(scratch.file)
        let asked = Locked<[(UInt64, UInt64)]>([])
        var configuration = scratch.configuration()
        configuration.shouldCompactOnLaunch = { total, used in
            asked.withLock { $0.append((total, used)) }
            return used < total / 3
        }
        try {
            let db = try Database(configuration: configuration)
            #expect(db.objects(Dog.self).count == 300)
            try check(db)
        }()
        return (before, asked.withLock { $0 })
    }

    static func checkpoint(_ path: String) throws {
        let store = try Store.open(path)
        defer { store.close() }
        let latest = try store.currentVersion
        #expect(try store.checkpoint() == latest + 1, "the latest version was a frame")
        #expect(try store.checkpoint() == latest + 1, "a second checkpoint has nothing to do")
    }

    /// Another session holding the file open (here a second store in this
    /// process, as another process would) keeps it as it is.
    @Test func shouldCompactOnLaunchLeavesAFileOthersHaveOpen() throws {
        let scratch = Scratch()
        try {
            let db = try Database(configuration: scratch.configuration())
            try Self.fillAndThin(db, count: 1000)
        }()
        let before = Self.fileSize(scratch.file)
        let holder = try Store.open(scratch.file)
        defer { holder.close() }
        var configuration = scratch.configuration()
        configuration.shouldCompactOnLaunch = { _, _ in true }
        try {
            let db = try Database(configuration: configuration)
            #expect(db.objects(Dog.self).count == 100)
        }()
        #expect(Self.fileSize(scratch.file) == before)
    }
}
