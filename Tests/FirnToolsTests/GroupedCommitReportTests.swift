import Foundation
import Testing
import FirnCore
import FirnTestSupport

/// `firn info` and `firn versions` on a database with a group of deferred
/// commits open (FORMAT.md 8.1): the current version is the published one,
/// and the durable version is reported apart from it — truthfully, from the
/// lock file while the group is open, from the slots once nobody has the
/// database open. Groups of page commits (FORMAT.md 8.1, the unsealed
/// record); groups of frames in the commit log are `CommitLogReportTests`'.
@Suite struct GroupedCommitReportTests {
    static func json(_ arguments: [String]) throws -> [String: Any] {
        let run = try FirnRun.run(arguments + ["--json"], timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    static func versions(_ db: String) throws -> (current: Int, durable: Int, roles: [Int: [String]]) {
        let report = try json(["versions", db])
        var roles: [Int: [String]] = [:]
        for case let entry as [String: Any] in report["versions"] as? [Any] ?? [] {
            if let v = entry["version"] as? Int { roles[v] = entry["roles"] as? [String] ?? [] }
        }
        return (report["currentVersion"] as? Int ?? -1, report["durableVersion"] as? Int ?? -1, roles)
    }

    @Test func infoAndVersionsReportTheDurableVersionApartFromTheCurrentOne() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path + "/grouped.firn"
        let store = try Store.open(db, options: .pageCommits)
        try store.write { txn in try txn.tree("t")?.put([0], [0]) }
        let d = Int(try store.durableVersion)
        for i in 1...3 {
            let txn = try store.beginWriteBlocking()
            try txn.tree("t")?.put([UInt8(i)], [UInt8(i)])
            try txn.commit(durability: .deferred)
        }
        let n = Int(try store.currentVersion)
        #expect(n == d + 3)

        // The group is open: current n, durable d.
        var info = try Self.json(["info", db])
        #expect(info["currentVersion"] as? Int == n && info["durableVersion"] as? Int == d, "\(info)")
        let slots = info["slots"] as? [[String: Any]] ?? []
        #expect(slots.contains { $0["version"] as? Int == n && $0["current"] as? Bool == true && $0["unsealed"] as? Bool == true })
        #expect(slots.contains { $0["version"] as? Int == d && $0["current"] as? Bool == false })
        let text = try FirnRun.run(["info", db], timeout: 30)
        #expect(text.stdout.contains("durable   \(d) (3 deferred commit(s) not yet synced"), "\(text.stdout)")
        // `verify` checks the version readers see, the open group's newest
        // member: current and unsealed, clean, not "rejected".
        let verify = try FirnRun.run(["verify", db, "--json"], timeout: 30)
        #expect(verify.status == 0, "\(verify.stderr)")
        let verifyReport = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
        let verified = verifyReport["verify"] as? [String: Any] ?? [:]
        #expect(verifyReport["clean"] as? Bool == true && verified["version"] as? Int == n, "\(verifyReport)")
        let verifiedSlots = verified["slots"] as? [[String: Any]] ?? []
        #expect(verifiedSlots.contains { $0["version"] as? Int == n && $0["current"] as? Bool == true
                    && $0["unsealed"] as? Bool == true && $0["problem"] == nil }, "\(verifiedSlots)")
        let verifyText = try FirnRun.run(["verify", db], timeout: 30)
        #expect(verifyText.stdout.contains("v\(n) (current) (unsealed: not durable yet)"), "\(verifyText.stdout)")
        #expect(!verifyText.stdout.contains("rejected"), "\(verifyText.stdout)")
        var versions = try Self.versions(db)
        #expect(versions.current == n && versions.durable == d)
        #expect(versions.roles[n]?.contains("current") == true && versions.roles[d]?.contains("durable") == true)

        // The durability point: both report n.
        #expect(try store.sync() == UInt64(n))
        info = try Self.json(["info", db])
        #expect(info["currentVersion"] as? Int == n && info["durableVersion"] as? Int == n, "\(info)")
        versions = try Self.versions(db)
        #expect(versions.current == n && versions.durable == n && versions.roles[n] == ["current", "durable"])

        // Another group, left open when the store closes. Nobody holds the
        // lock file then, so it vouches for nothing (FORMAT.md 11): a
        // read-only tool is a first opener too and chooses from the slots as
        // a power loss would leave them — the unsealed record is rejected,
        // as the next writer rejects it: current and durable n.
        let txn = try store.beginWriteBlocking()
        try txn.tree("t")?.put([9], [9])
        let pending = Int(try txn.commit(durability: .deferred))
        store.close()
        info = try Self.json(["info", db])
        #expect(info["currentVersion"] as? Int == n && info["durableVersion"] as? Int == n, "\(info)")
        let reopened = try Store.open(db, options: .pageCommits)
        #expect(try reopened.currentVersion == UInt64(n) && reopened.openCheck.rejected?.version == UInt64(pending))
        info = try Self.json(["info", db])
        #expect(info["currentVersion"] as? Int == n && info["durableVersion"] as? Int == n, "\(info)")
        let rejected = (info["slots"] as? [[String: Any]] ?? []).first { $0["version"] as? Int == pending }
        #expect(rejected?["current"] as? Bool == false && (rejected?["problem"] as? String)?.contains("unsealed") == true, "\(info)")
        versions = try Self.versions(db)
        #expect(versions.current == n && versions.durable == n && versions.roles[pending] == ["rejected"])
        reopened.close()
    }

    /// A group on the commit log whose frames the writer still keeps in
    /// memory (FORMAT.md 8.1): `firn`, another process, reports the version
    /// published before them, durable, with no deferred commit pending —
    /// what a reader or a crash gets now. Once the frames are written (here
    /// explicitly; otherwise within 2 ms of the group's last commit) it
    /// reports them, and the durable version apart, as for any open group.
    @Test func framesKeptInTheWritersMemoryAreReportedOnceWritten() throws {
        let dir = try TemporaryDirectory()
        let db = dir.path + "/kept.firn"
        let store = try Store.open(db)
        defer { store.close() }
        // Kept until this test writes them (no idle watch within the hour).
        store.group?.idleNanoseconds.store(3_600_000_000_000, ordering: .relaxed)
        try store.write { txn in try txn.tree("t")?.put([0], [0]) }
        let d = Int(try store.durableVersion)
        for i in 1...2 {
            let txn = try store.beginWriteBlocking()
            try txn.tree("t")?.put([UInt8(i)], [UInt8(i)])
            try txn.commit(durability: .deferred)
        }
        let n = Int(try store.currentVersion)
        #expect(n == d + 2)

        var info = try Self.json(["info", db])
        #expect(info["currentVersion"] as? Int == d && info["durableVersion"] as? Int == d, "\(info)")
        var text = try FirnRun.run(["info", db], timeout: 30)
        #expect(!text.stdout.contains("not yet synced"), "\(text.stdout)")
        var versions = try Self.versions(db)
        #expect(versions.current == d && versions.durable == d && versions.roles[n] == nil)

        try store.writeUnwrittenFrames()
        info = try Self.json(["info", db])
        #expect(info["currentVersion"] as? Int == n && info["durableVersion"] as? Int == d, "\(info)")
        text = try FirnRun.run(["info", db], timeout: 30)
        #expect(text.stdout.contains("durable   \(d) (2 deferred commit(s) not yet synced"), "\(text.stdout)")
        versions = try Self.versions(db)
        #expect(versions.current == n && versions.durable == d)

        #expect(try store.sync() == UInt64(n))
        info = try Self.json(["info", db])
        #expect(info["currentVersion"] as? Int == n && info["durableVersion"] as? Int == n, "\(info)")
    }
}
