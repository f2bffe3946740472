import Foundation
import Testing
@testable import FirnCore
import CFirnShims
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// The lock file: layout and initialization, sessions, the writer lock, the
/// reader table, version notification, and the same seen from real child
/// processes (`firn-testkit lock-*`) that are killed mid-hold.
@Suite struct LockFileTests {
    // MARK: Creation and validation

    @Test func openCreatesAnInitializedLockFile() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        #expect(lock.path == dir.file("db.lock"))
        #expect(lock.didInitialize)
        #expect(lock.readerSlotCount == LockFileLayout.defaultReaderSlots)
        let bytes = try fileBytes(lock.path)
        #expect(bytes.count == LockFileLayout.fileSize(readerSlots: 126))
        #expect(bytes.count == 28416)
        #expect(Array(bytes.prefix(8)) == Array("FIRNLOCK".utf8))
        #expect(readUInt32(bytes, 8) == LockFileLayout.layoutVersion)
        #expect(readUInt32(bytes, 12) == 126)
        #expect(readUInt32(bytes, 28) == 128)
    }

    @Test func reopenWhileHeldSharesStateWithoutReinitializing() throws {
        let dir = try TemporaryDirectory()
        let first = try LockFile.open(databasePath: dir.file("db"))
        first.publish(version: 17)
        let pin = try first.claimPin(version: 17, kind: .read, label: "first")
        let second = try LockFile.open(databasePath: dir.file("db"), readerSlots: 8)
        #expect(!second.didInitialize)
        #expect(second.readerSlotCount == 126)
        #expect(second.latestVersion == 17)
        #expect(second.pins().map(\.slot) == [pin.index])
    }

    /// Waiters are counted while they sleep (layout 4), so a release or a
    /// publication makes the futex wake only when someone waits; and a
    /// counted waiter is always woken: a missed wake would leave the
    /// change waiter asleep for its whole 60 s timeout, the writer waiter
    /// until its lock timeout (60 s; its 5 ms retries take it anyway, so the
    /// count is what this checks there).
    @Test func sleepingWaitersAreCountedAndWoken() throws {
        let dir = try TemporaryDirectory()
        let holder = try LockFile.open(databasePath: dir.file("db"))
        let other = try LockFile.open(databasePath: dir.file("db"))
        defer { holder.close(); other.close() }
        func waiting(_ offset: Int) -> UInt32 { holder.mapping.load32(offset) }
        func waitUntil(_ condition: () -> Bool) throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while !condition() {
                try #require(ContinuousClock.now < deadline, "timed out")
                usleep(1_000)
            }
        }
        // The change counter.
        #expect(waiting(LockFileLayout.changeWaitersOffset) == 0)
        let counter = other.changeCounter
        let woke = BackgroundThread { () -> (Bool, Duration) in
            let clock = ContinuousClock()
            var changed = false
            let took = clock.measure { changed = other.waitForChange(after: counter, timeout: .seconds(60)) }
            return (changed, took)
        }
        try waitUntil { waiting(LockFileLayout.changeWaitersOffset) == 1 }
        holder.publish(version: 5)
        let (changed, took) = try #require(woke.join(timeout: .seconds(90)))
        #expect(changed && took < .seconds(30), "\(took)")
        #expect(waiting(LockFileLayout.changeWaitersOffset) == 0)
        // The writer release counter.
        let lease = try holder.lockWriter(timeout: nil)
        #expect(waiting(LockFileLayout.writerWaitersOffset) == 0)
        let got = BackgroundThread { () -> Bool in
            guard let lease = try? other.lockWriter(timeout: .seconds(60)) else { return false }
            other.unlockWriter(lease)
            return true
        }
        try waitUntil { waiting(LockFileLayout.writerWaitersOffset) >= 1 }
        holder.unlockWriter(lease)
        #expect(got.join(timeout: .seconds(90)) == true)
        #expect(waiting(LockFileLayout.writerWaitersOffset) == 0)
    }

    @Test func reopenAfterEveryoneClosedReinitializes() throws {
        let dir = try TemporaryDirectory()
        let first = try LockFile.open(databasePath: dir.file("db"))
        first.publish(version: 9)
        first.close()
        let second = try LockFile.open(databasePath: dir.file("db"), readerSlots: 10)
        #expect(second.didInitialize)
        #expect(second.latestVersion == 0)
        #expect(second.readerSlotCount == 10)
        #expect(try fileBytes(second.path).count == LockFileLayout.fileSize(readerSlots: 10))
    }

    @Test func garbageLockFileWithNoHoldersIsReinitialized() throws {
        let dir = try TemporaryDirectory()
        let garbage = (0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        try Data(garbage).write(to: URL(fileURLWithPath: dir.file("db.lock")))
        let lock = try LockFile.open(databasePath: dir.file("db"))
        #expect(lock.didInitialize)
        let bytes = try fileBytes(lock.path)
        #expect(Array(bytes.prefix(8)) == Array("FIRNLOCK".utf8))
        #expect(bytes.count == LockFileLayout.fileSize(readerSlots: 126))
        #expect(lock.pins().isEmpty)
        let slot = try lock.claimPin(version: 1, kind: .read, label: "after repair")
        #expect(lock.pins().map(\.slot) == [slot.index])
    }

    @Test func garbageLockFileWhileHeldIsCorruptNamingTheHolder() throws {
        let dir = try TemporaryDirectory()
        let holder = try LockFile.open(databasePath: dir.file("db"))
        try overwrite(holder.path, at: 0, with: Array("GARBAGE!".utf8))
        let error = captureError { () throws(FirnError) in _ = try LockFile.open(databasePath: dir.file("db")) }
        guard case let .corrupt(path, _, _, detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(path == holder.path)
        #expect(detail.contains("is not a Firn lock file (bad magic)"))
        #expect(detail.contains("in use by pid \(getpid())"))
        #expect(detail.contains(holder.path))
    }

    @Test func truncatedLockFileWithNoHoldersIsReinitialized() throws {
        let dir = try TemporaryDirectory()
        try LockFile.open(databasePath: dir.file("db")).close()
        #expect(truncate(dir.file("db.lock"), 100) == 0)
        let lock = try LockFile.open(databasePath: dir.file("db"))
        #expect(lock.didInitialize)
        #expect(try fileBytes(lock.path).count == LockFileLayout.fileSize(readerSlots: 126))
    }

    @Test func truncatedLockFileWhileHeldIsCorrupt() throws {
        let dir = try TemporaryDirectory()
        let holder = try LockFile.open(databasePath: dir.file("db"))
        #expect(truncate(holder.path, off_t(LockFileLayout.fileSize(readerSlots: 10))) == 0)
        let error = captureError { () throws(FirnError) in _ = try LockFile.open(databasePath: dir.file("db")) }
        guard case let .corrupt(_, _, _, detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("too short for its 126 reader slots"))
    }

    @Test func lockFileOfAnotherDataFileIsReinitializedWhenFree() throws {
        let dir = try TemporaryDirectory()
        let database = dir.file("db")
        #expect(FileManager.default.createFile(atPath: database, contents: Data([1])))
        let original = DataFileIdentity.of(path: database)
        try LockFile.open(databasePath: database).close()
        // Replaced by rename, as maintenance does; both files exist at once,
        // so the inode cannot be reused.
        #expect(FileManager.default.createFile(atPath: dir.file("other"), contents: Data([2])))
        #expect(rename(dir.file("other"), database) == 0)
        let replaced = DataFileIdentity.of(path: database)
        #expect(original != replaced)
        let lock = try LockFile.open(databasePath: database)
        #expect(lock.didInitialize)
        #expect(lock.dataFileIdentity == replaced)
    }

    @Test func invalidReaderSlotCountIsRejected() throws {
        let dir = try TemporaryDirectory()
        let error = captureError { () throws(FirnError) in _ = try LockFile.open(databasePath: dir.file("db"), readerSlots: 0) }
        guard case .invalidArgument = error else {
            Issue.record("expected .invalidArgument, got \(String(describing: error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("db.lock")))
    }

    // MARK: Claims left behind

    /// A claim swaps the state word and the pid together: the slot reads
    /// `claiming` under the claimer's own pid, never its previous occupant's.
    @Test func aClaimWritesItsPidWithTheClaimingState() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"), readerSlots: 2)
        let offset = LockFileLayout.slotOffset(0)
        lock.mapping.storeInt32(offset + ReaderSlotLayout.pidOffset, 2_147_483_632)
        let claimed = try #require(SlotClaim.claim(lock.mapping, at: offset, ownPID: getpid()))
        #expect(claimed.state == SlotStateWord.claiming && claimed.generation == 1)
        #expect(lock.mapping.load32(offset) == claimed.raw)
        #expect(lock.mapping.loadInt32(offset + ReaderSlotLayout.pidOffset) == getpid())
        #expect(SlotClaim.claim(lock.mapping, at: offset, ownPID: getpid()) == nil, "not free any more")
    }

    /// `claiming` under a live pid is a claim under way: never freed. Under
    /// a dead pid it is left behind, and an undefined state is damage:
    /// both are freed when the table is full.
    @Test func onlyClaimsOfDeadProcessesAndUndefinedStatesAreReclaimed() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"), readerSlots: 3)
        func leave(_ index: Int, _ state: UInt32, _ pid: Int32) {
            let offset = LockFileLayout.slotOffset(index)
            lock.mapping.store32(offset, SlotStateWord(state: state, generation: 7).raw)
            lock.mapping.storeInt32(offset + ReaderSlotLayout.pidOffset, pid)
        }
        for index in 0..<3 { leave(index, SlotStateWord.claiming, getpid()) }
        let refused = captureError { () throws(FirnError) in _ = try lock.claimPin(version: 1, kind: .tool, label: "") }
        guard case .busy = refused else {
            Issue.record("expected .busy, got \(String(describing: refused))")
            return
        }
        leave(1, SlotStateWord.claiming, 2_147_483_632)
        leave(2, 9, getpid())
        let first = try lock.claimPin(version: 1, kind: .tool, label: "")
        let second = try lock.claimPin(version: 1, kind: .tool, label: "")
        #expect(Set([first.index, second.index]) == [1, 2])
        #expect(first.generation == 8 && second.generation == 8)
        #expect(SlotStateWord(raw: lock.mapping.load32(LockFileLayout.slotOffset(0))).state == SlotStateWord.claiming)
    }

    // MARK: Read-only opening

    @Test func readOnlyModeReturnsNilAndCreatesNothingWhenMissing() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"), mode: .readOnlyExisting)
        #expect(lock == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.file("db.lock")))
    }

    @Test(.enabled(if: geteuid() != 0, "root bypasses file permissions"))
    func readOnlyModeReturnsNilWhenTheLockFileIsNotWritable() throws {
        let dir = try TemporaryDirectory()
        try LockFile.open(databasePath: dir.file("db")).close()
        #expect(chmod(dir.file("db.lock"), 0o400) == 0)
        let lock = try LockFile.open(databasePath: dir.file("db"), mode: .readOnlyExisting)
        #expect(lock == nil)
    }

    @Test func readOnlyModeLeavesAnInvalidLockFileUntouched() throws {
        let dir = try TemporaryDirectory()
        let garbage = Array("not a lock file".utf8)
        try Data(garbage).write(to: URL(fileURLWithPath: dir.file("db.lock")))
        let lock = try LockFile.open(databasePath: dir.file("db"), mode: .readOnlyExisting)
        #expect(lock == nil)
        #expect(try fileBytes(dir.file("db.lock")) == garbage)
    }

    @Test func readOnlyModeJoinsAnExistingLockFile() throws {
        let dir = try TemporaryDirectory()
        let writer = try LockFile.open(databasePath: dir.file("db"))
        writer.publish(version: 4)
        let reader = try #require(try LockFile.open(databasePath: dir.file("db"), mode: .readOnlyExisting))
        #expect(!reader.didInitialize)
        #expect(reader.latestVersion == 4)
        let slot = try reader.claimPin(version: 4, kind: .tool, label: "firn info")
        #expect(writer.pins().map(\.slot) == [slot.index])
    }

    // MARK: Pins

    @Test func pinsAreClaimedListedAndReleased() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let before = UInt64(Date().timeIntervalSince1970 * 1e9)
        let first = try lock.claimPin(version: 3, kind: .read, label: "ui")
        let second = try lock.claimPin(version: 5, kind: .export, label: "backup")
        #expect(first.index != second.index)
        let records = lock.pins().sorted { $0.version < $1.version }
        #expect(records.count == 2)
        let record = try #require(records.first)
        #expect(record.slot == first.index)
        #expect(record.pid == getpid())
        #expect(record.threadID == firn_gettid())
        #expect(record.version == 3)
        #expect(record.kind == .read)
        #expect(record.label == "ui")
        #expect(!record.stale)
        #expect(record.sinceNanoseconds >= before - 1_000_000_000)
        #expect(records.last?.kind == .export)
        lock.releasePin(first)
        #expect(lock.pins().map(\.slot) == [second.index])
        lock.releasePin(first)
        #expect(lock.pins().count == 1)
    }

    @Test func labelIsTruncatedToSixtyFourBytesOnACharacterBoundary() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let ascii = String(repeating: "a", count: 63)
        _ = try lock.claimPin(version: 1, kind: .read, label: ascii + "é" + "tail")
        let family = "👨‍👩‍👧‍👦" // one character, 25 UTF-8 bytes
        _ = try lock.claimPin(version: 2, kind: .read, label: String(repeating: family, count: 3))
        let labels = lock.pins().sorted { $0.version < $1.version }.map(\.label)
        #expect(labels == [ascii, family + family])
    }

    @Test func frozenObjectCounterAddsAndSubtracts() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let slot = try lock.claimPin(version: 1, kind: .frozen, label: "")
        lock.frozenObjectCounter(slot).add(10)
        lock.frozenObjectCounter(slot).add(-3)
        #expect(lock.pins().first?.frozenObjects == 7)
    }

    @Test func frozenObjectCountsFromManyThreadsSumExactlyOverStripes() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let slot = try lock.claimPin(version: 1, kind: .frozen, label: "")
        // Each thread adds 10 000 and takes back 4 000 (objects made on
        // one thread may be released on another: only the sum is exact).
        // Four threads of their own (new threads take new stripes in turn).
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            Thread {
                for _ in 0..<10_000 { lock.frozenObjectCounter(slot).add(1) }
                for _ in 0..<4_000 { lock.frozenObjectCounter(slot).add(-1) }
                done.signal()
            }.start()
        }
        for _ in 0..<4 { done.wait() }
        #expect(lock.pins().first?.frozenObjects == 24_000)
        // The threads wrote several stripes, none of them in the slot itself.
        let bytes = try fileBytes(lock.path)
        let stripes = (0..<LockFileLayout.frozenObjectStripes).map {
            readUInt64(bytes, LockFileLayout.frozenObjectsOffset(slot: slot.index, stripe: $0, readerSlots: lock.readerSlotCount))
        }
        #expect(stripes.filter { $0 != 0 }.count >= 2)
        #expect(stripes.reduce(0, &+) == 24_000)
        #expect(readUInt64(bytes, LockFileLayout.slotOffset(slot.index) + ReaderSlotLayout.reservedOffset) == 0)
    }

    @Test func aSlotClaimedAgainStartsWithNoFrozenObjects() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"), readerSlots: 1)
        let old = try lock.claimPin(version: 1, kind: .frozen, label: "")
        lock.frozenObjectCounter(old).add(5)
        lock.releasePin(old)
        // Leftovers in every stripe (a holder that died with objects alive).
        for stripe in 0..<LockFileLayout.frozenObjectStripes {
            try overwrite(lock.path, at: LockFileLayout.frozenObjectsOffset(slot: old.index, stripe: stripe, readerSlots: 1),
                          with: [7, 0, 0, 0, 0, 0, 0, 0])
        }
        let new = try lock.claimPin(version: 2, kind: .frozen, label: "")
        #expect(new.index == old.index)
        #expect(lock.pins().first?.frozenObjects == 0)
        lock.frozenObjectCounter(new).add(2)
        #expect(lock.pins().first?.frozenObjects == 2)
    }

    @Test func layoutTwoLockFileWhileHeldIsRefusedNamingTheVersion() throws {
        let dir = try TemporaryDirectory()
        let holder = try LockFile.open(databasePath: dir.file("db"))
        try overwrite(holder.path, at: LockFileLayout.layoutVersionOffset, with: [2, 0, 0, 0])
        let error = captureError { () throws(FirnError) in _ = try LockFile.open(databasePath: dir.file("db")) }
        guard case let .corrupt(_, _, _, detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("layout version 2, expected \(LockFileLayout.layoutVersion)"))
        holder.close()
        let fresh = try LockFile.open(databasePath: dir.file("db"))
        #expect(fresh.didInitialize)
    }

    @Test func fullReaderTableThrowsBusy() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"), readerSlots: 3)
        let slots = try (0..<3).map { (i: Int) throws(FirnError) -> PinSlot in
            try lock.claimPin(version: UInt64(i), kind: .read, label: "")
        }
        let error = captureError { () throws(FirnError) in _ = try lock.claimPin(version: 9, kind: .read, label: "") }
        guard case let .busy(path, detail) = error else {
            Issue.record("expected .busy, got \(String(describing: error))")
            return
        }
        #expect(path == lock.path)
        #expect(detail.contains("reader table full (3 slots"))
        #expect(detail.contains("pid \(getpid()): 3"))
        lock.releasePin(slots[1])
        let again = try lock.claimPin(version: 9, kind: .read, label: "")
        #expect(again.index == slots[1].index)
    }

    @Test func setPinVersionMovesThePin() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let slot = try lock.claimPin(version: 1, kind: .read, label: "")
        lock.setPinVersion(slot, 7)
        #expect(lock.pins().map(\.version) == [7])
        #expect(lock.livePinnedVersions() == [7])
    }

    @Test func releasedSlotHandleCannotTouchTheSlotsNextOwner() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"), readerSlots: 1)
        let old = try lock.claimPin(version: 1, kind: .read, label: "")
        lock.releasePin(old)
        let new = try lock.claimPin(version: 2, kind: .read, label: "")
        #expect(new.index == old.index)
        lock.setPinVersion(old, 99)
        lock.releasePin(old)
        #expect(lock.pins().map(\.version) == [2])
    }

    @Test func livePinnedVersionsAreSortedAndUniqueAcrossSessions() throws {
        let dir = try TemporaryDirectory()
        let first = try LockFile.open(databasePath: dir.file("db"))
        let second = try LockFile.open(databasePath: dir.file("db"))
        _ = try first.claimPin(version: 5, kind: .read, label: "")
        _ = try second.claimPin(version: 3, kind: .read, label: "")
        _ = try second.claimPin(version: 5, kind: .frozen, label: "")
        _ = try first.claimPin(version: 9, kind: .read, label: "")
        #expect(first.livePinnedVersions() == [3, 5, 9])
        second.close()
        #expect(first.livePinnedVersions() == [5, 9])
    }

    @Test func damagedSlotBytesAreReportedNotTrusted() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let slot = try lock.claimPin(version: 1, kind: .read, label: "ok")
        let offset = LockFileLayout.readerTableOffset + slot.index * 128
        try overwrite(lock.path, at: offset + 40, with: [200])
        try overwrite(lock.path, at: offset + 64, with: [0x61, 0xFF, 0xC3, 0x62, 0])
        let record = try #require(lock.pins().first)
        #expect(record.kind == nil)
        #expect(record.rawKind == 200)
        #expect(record.label == "a\u{FFFD}\u{FFFD}b")
    }

    @Test func pinKindIsCodableByName() throws {
        #expect(PinKind.allCases.map(\.description)
                == ["read", "frozen", "threadSafeReference", "export", "compact", "tool"])
        let json = try JSONEncoder().encode([PinKind.threadSafeReference, .compact])
        #expect(String(decoding: json, as: UTF8.self) == #"["threadSafeReference","compact"]"#)
        #expect(try JSONDecoder().decode([PinKind].self, from: json) == [.threadSafeReference, .compact])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PinKind.self, from: Data(#""nope""#.utf8)) }
    }

    @Test func closeReleasesPinsAndSessionAndIsIdempotent() throws {
        let dir = try TemporaryDirectory()
        let other = try LockFile.open(databasePath: dir.file("db"))
        let lock = try LockFile.open(databasePath: dir.file("db"))
        _ = try lock.claimPin(version: 2, kind: .read, label: "")
        #expect(other.pins().count == 1)
        lock.close()
        lock.close()
        #expect(lock.isClosed)
        #expect(other.pins().isEmpty)
        #expect(other.otherSessionHolders().isEmpty)
        try other.tryExclusiveSession()
        let error = captureError { () throws(FirnError) in _ = try lock.claimPin(version: 1, kind: .read, label: "") }
        guard case .misuse = error else {
            Issue.record("expected .misuse, got \(String(describing: error))")
            return
        }
    }

    // MARK: Writer lock

    @Test func writerLockTimesOutPromptlyWithBusyNamingTheHolder() throws {
        let dir = try TemporaryDirectory()
        let holder = try LockFile.open(databasePath: dir.file("db"))
        let waiter = try LockFile.open(databasePath: dir.file("db"))
        let holderLease = try holder.lockWriter(timeout: .seconds(1))
        #expect(waiter.writerPID == getpid())
        let start = ContinuousClock.now
        let outcome = BackgroundThread.run { () -> FirnError? in
            captureError { () throws(FirnError) in try waiter.lockWriter(timeout: .milliseconds(200)) }
        }
        let elapsed = ContinuousClock.now - start
        holder.unlockWriter(holderLease)
        guard case let .busy(path, detail)?? = outcome else {
            Issue.record("expected .busy, got \(String(describing: outcome))")
            return
        }
        #expect(path == waiter.path)
        #expect(detail.contains("write lock not obtained within 0.2 s; held by pid \(getpid()) since "))
        #expect(elapsed >= .milliseconds(150))
        // Far above the 0.2 s timeout, so a loaded machine's scheduling
        // delays pass; a timeout not kept (waiting on for the holder) fails.
        #expect(elapsed < .seconds(5))
        #expect(waiter.writerPID == nil)
    }

    @Test func writerLockIsGrantedOnceReleased() throws {
        let dir = try TemporaryDirectory()
        let first = try LockFile.open(databasePath: dir.file("db"))
        let second = try LockFile.open(databasePath: dir.file("db"))
        let firstLease = try first.lockWriter(timeout: nil)
        first.unlockWriter(firstLease)
        let secondLease = try second.lockWriter(timeout: .seconds(1))
        #expect(!second.lastLockRecoveredFromDeadOwner)
        #expect(second.writerPID == getpid())
        second.unlockWriter(secondLease)
        #expect(second.writerPID == nil)
    }

    @Test func tryLockWriterReportsWhetherItGotTheLock() throws {
        let dir = try TemporaryDirectory()
        let first = try LockFile.open(databasePath: dir.file("db"))
        let second = try LockFile.open(databasePath: dir.file("db"))
        let firstLease = try #require(try first.tryLockWriter())
        let whileHeld = BackgroundThread.run { () -> Bool? in
            do { return try second.tryLockWriter() != nil } catch { return nil }
        }
        #expect(whileHeld == .some(false))
        first.unlockWriter(firstLease)
        let afterRelease = BackgroundThread.run { () -> Bool? in
            guard let lease = try? second.tryLockWriter() else { return false }
            second.unlockWriter(lease)
            return true
        }
        #expect(afterRelease == .some(true))
    }

    @Test func relockingFromTheHoldingThreadIsMisuseNotDeadlock() throws {
        let dir = try TemporaryDirectory()
        let first = try LockFile.open(databasePath: dir.file("db"))
        let second = try LockFile.open(databasePath: dir.file("db"))
        let firstLease = try first.lockWriter(timeout: nil)
        defer { first.unlockWriter(firstLease) }
        let error = captureError { () throws(FirnError) in try second.lockWriter(timeout: nil) }
        guard case .misuse = error else {
            Issue.record("expected .misuse, got \(String(describing: error))")
            return
        }
    }

    // MARK: Sessions

    @Test func exclusiveSessionIsRefusedNamingOtherHolders() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let other = try LockFile.open(databasePath: dir.file("db"))
        #expect(lock.otherSessionHolders() == [getpid()])
        let error = captureError { () throws(FirnError) in try lock.tryExclusiveSession() }
        guard case let .busy(path, detail) = error else {
            Issue.record("expected .busy, got \(String(describing: error))")
            return
        }
        #expect(path == lock.path)
        #expect(detail.contains("held open by pid \(getpid())"))
        other.close()
        try lock.tryExclusiveSession()
    }

    @Test func exclusiveSessionKeepsOthersOutUntilReleased() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        try lock.tryExclusiveSession()
        let error = captureError { () throws(FirnError) in _ = try LockFile.open(databasePath: dir.file("db")) }
        guard case let .busy(_, detail) = error else {
            Issue.record("expected .busy, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("held exclusively by pid \(getpid())"))
        lock.releaseExclusiveSession()
        let other = try LockFile.open(databasePath: dir.file("db"))
        #expect(!other.didInitialize)
    }

    // MARK: Publication

    @Test func publishWakesAWaitingThread() throws {
        let dir = try TemporaryDirectory()
        let writer = try LockFile.open(databasePath: dir.file("db"))
        let reader = try LockFile.open(databasePath: dir.file("db"))
        let counter = reader.changeCounter
        // A missed wake would leave the waiter asleep for its whole 60 s.
        let waiter = BackgroundThread { () -> (Bool, UInt64) in
            (reader.waitForChange(after: counter, timeout: .seconds(60)), reader.latestVersion)
        }
        usleep(50_000)
        let start = ContinuousClock.now
        writer.publish(version: 42)
        let outcome = waiter.join(timeout: .seconds(90))
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(outcome?.0 == true)
        #expect(outcome?.1 == 42)
        #expect(reader.changeCounter == counter &+ 1)
    }

    @Test func waitForChangeTimesOutWithoutAPublication() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let start = ContinuousClock.now
        #expect(!lock.waitForChange(after: lock.changeCounter, timeout: .milliseconds(100)))
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(90))
        #expect(elapsed < .seconds(5))  // far above the timeout: scheduling delays pass
    }

    @Test func waitForChangeReturnsAtOnceWhenAlreadyChanged() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let counter = lock.changeCounter
        lock.publish(version: 1)
        #expect(lock.waitForChange(after: counter, timeout: .seconds(10)))
    }

    // MARK: Other processes (firn-testkit children)

    @Test func childPinIsVisibleWithItsPidAndNotStale() throws {
        let dir = try TemporaryDirectory()
        let child = try ChildProcess.testkit(["lock-pin", dir.file("db"), "12", "child reader", "60"])
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: dir.file("db"))
        #expect(!lock.didInitialize)
        let record = try #require(lock.pins().first)
        #expect(record.pid == child.pid)
        #expect(record.version == 12)
        #expect(record.label == "child reader")
        #expect(record.kind == .read)
        #expect(!record.stale)
        #expect(lock.livePinnedVersions() == [12])
        #expect(lock.otherSessionHolders() == [child.pid])
    }

    @Test func killedChildPinIsStaleAndReclaimed() throws {
        let dir = try TemporaryDirectory()
        let child = try ChildProcess.testkit(["lock-pin", dir.file("db"), "12", "doomed", "60"])
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: dir.file("db"))
        _ = try lock.claimPin(version: 20, kind: .read, label: "ours")
        child.kill(SIGKILL)
        #expect(child.waitForExit(timeout: .seconds(10)) == SIGKILL)
        let stale = lock.pins().filter(\.stale)
        #expect(stale.map(\.pid) == [child.pid])
        let reclaimed = lock.reclaimStalePins()
        #expect(reclaimed.map(\.pid) == [child.pid])
        #expect(reclaimed.map(\.version) == [12])
        #expect(lock.pins().map(\.version) == [20])
        #expect(lock.livePinnedVersions() == [20])
        #expect(lock.otherSessionHolders().isEmpty)
    }

    @Test func livePinnedVersionsSkipsAKilledChildsPin() throws {
        let dir = try TemporaryDirectory()
        let child = try ChildProcess.testkit(["lock-pin", dir.file("db"), "3", "doomed", "60"])
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: dir.file("db"))
        #expect(lock.livePinnedVersions() == [3])
        child.kill(SIGKILL)
        child.waitForExit(timeout: .seconds(10))
        #expect(lock.livePinnedVersions().isEmpty)
        #expect(lock.pins().isEmpty)
    }

    @Test func childHoldingTheWriterLockBlocksUsWithBusyNamingIt() throws {
        let dir = try TemporaryDirectory()
        let child = try ChildProcess.testkit(["lock-writer", dir.file("db"), "60"])
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: dir.file("db"))
        #expect(lock.writerPID == child.pid)
        #expect(try lock.tryLockWriter() == nil)
        let start = ContinuousClock.now
        let error = captureError { () throws(FirnError) in try lock.lockWriter(timeout: .milliseconds(200)) }
        #expect(ContinuousClock.now - start < .seconds(5))  // far above the timeout: scheduling delays pass
        guard case let .busy(_, detail) = error else {
            Issue.record("expected .busy, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("held by pid \(child.pid) since"))
    }

    @Test func writerLockOfAKilledChildIsRecovered() throws {
        let dir = try TemporaryDirectory()
        let child = try ChildProcess.testkit(["lock-writer", dir.file("db"), "60"])
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: dir.file("db"))
        child.kill(SIGKILL)
        #expect(child.waitForExit(timeout: .seconds(10)) == SIGKILL)
        #expect(lock.writerPID == nil)
        let lockLease = try lock.lockWriter(timeout: .seconds(2))
        #expect(lock.lastLockRecoveredFromDeadOwner)
        #expect(lock.writerPID == getpid())
        lock.unlockWriter(lockLease)
        let again = try lock.lockWriter(timeout: .seconds(2))
        #expect(!lock.lastLockRecoveredFromDeadOwner)
        lock.unlockWriter(again)
    }

    @Test func exclusiveSessionIsRefusedNamingALiveChild() throws {
        let dir = try TemporaryDirectory()
        let child = try ChildProcess.testkit(["lock-session", dir.file("db"), "60"])
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let error = captureError { () throws(FirnError) in try lock.tryExclusiveSession() }
        guard case let .busy(_, detail) = error else {
            Issue.record("expected .busy, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("held open by pid \(child.pid)"))
    }

    @Test func exclusiveSessionIsGrantedOnceTheChildDies() throws {
        let dir = try TemporaryDirectory()
        let child = try ChildProcess.testkit(["lock-session", dir.file("db"), "60"])
        try #require(child.waitUntilReady(), "child failed: \(child.errorOutput())")
        let lock = try LockFile.open(databasePath: dir.file("db"))
        #expect(lock.otherSessionHolders() == [child.pid])
        child.kill(SIGKILL)
        child.waitForExit(timeout: .seconds(10))
        #expect(lock.otherSessionHolders().isEmpty)
        try lock.tryExclusiveSession()
    }

    @Test func childExitingNormallyLeavesNoPinOrSession() throws {
        let dir = try TemporaryDirectory()
        let lock = try LockFile.open(databasePath: dir.file("db"))
        let child = try ChildProcess.testkit(["lock-pin", dir.file("db"), "1", "brief", "0"])
        #expect(child.waitForExit(timeout: .seconds(20)) == 0, "child failed: \(child.errorOutput())")
        #expect(lock.pins().isEmpty)
        #expect(lock.otherSessionHolders().isEmpty)
    }
}

// MARK: Helpers

/// The error `body` throws, or nil.
func captureError(_ body: () throws(FirnError) -> Void) -> FirnError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}



private func fileBytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

private func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: bytes)
}

private func readUInt64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    guard offset + 8 <= bytes.count else { return 0 }
    return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}

private func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    guard offset + 4 <= bytes.count else { return 0 }
    return (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
}
