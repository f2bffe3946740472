import Foundation
import FirnTools
import FirnCore
import FirnTestSupport

/// Sample databases built with FirnCore directly (fast: no child processes).
extension TemporaryDirectory {
    /// A database with trees "users" (depth 2), "orders", "blobs" (overflow
    /// values) and churn, so it has free and retired pages. Written with
    /// page commits (no commit log): every commit's pages and history record
    /// are then in the file, which the page-level tests (surgery on a
    /// version's pages, its records, its births) rely on. The log's reports
    /// are tested on files with one (`CommitLogReportTests`).
    @discardableResult
    func sampleDatabase(_ name: String = "sample.firn", commits: Int = 12, randomBytes: Int = 0) throws -> String {
        let path = file(name)
        let store = try Store.open(path, options: .pageCommits)
        defer { store.close() }
        for c in 0..<commits {
            try store.write { txn in
                guard let users = try txn.tree("users"), let orders = try txn.tree("orders"),
                      let blobs = try txn.tree("blobs") else { return }
                for i in 0..<60 {
                    _ = try users.put(Array(String(format: "user:%05d", c * 60 + i).utf8),
                                      Array("{\"name\":\"user \(c * 60 + i)\",\"commit\":\(c)}".utf8))
                }
                for i in 0..<10 where c > 0 {
                    _ = try users.put(Array(String(format: "user:%05d", i * 7).utf8), Array("updated \(c)".utf8))
                }
                _ = try orders.put(Array(String(format: "order:%04d", c).utf8), [0, 1, 2, UInt8(c), 0xff])
                if c % 4 == 0 {
                    _ = try blobs.put(Array("blob:\(c)".utf8), (0..<9000).map { UInt8(truncatingIfNeeded: $0 &+ c) })
                }
            }
        }
        if randomBytes > 0 {
            var rng = SystemRandomNumberGenerator()
            var written = 0
            var n = 0
            while written < randomBytes {
                try store.write { txn in
                    guard let noise = try txn.tree("noise") else { return }
                    for _ in 0..<64 {
                        _ = try noise.put(Array("noise:\(n)".utf8), (0..<4000).map { _ in UInt8.random(in: 0...255, using: &rng) })
                        n += 1
                        written += 4000
                    }
                }
            }
        }
        return path
    }
}

/// JSON shapes the tests decode (a subset of each report's keys).
struct InfoJSON: Decodable {
    struct Tree: Decodable { let name: String; let entries: UInt64; let depth: Int; let rootPage: UInt64 }
    let formatVersion, pageSize: Int
    let currentVersion, fileBytes, liveBytes, freeBytes, pinnedBytes: UInt64
    let trees: [Tree]
    let pins: Int
    let pinned: Bool
}

struct PinsJSON: Decodable {
    struct Pin: Decodable {
        let version: UInt64; let pid: Int32; let kind: String; let label: String; let lag: UInt64
        let sinceSeconds: Double; let frozenObjects: UInt64; let retainedBytes: UInt64; let stale: Bool
    }
    let latestVersion: UInt64
    let pins: [Pin]
    let violations: [String]
    let checkpointVersion: UInt64?
}

struct PagesJSON: Decodable {
    struct Page: Decodable { let page: UInt64; let tree: String; let type: String; let level: Int; let count: Int }
    let pages: [Page]
}

/// `firn demo-app write --json`.
struct DemoAppJSON: Decodable {
    let version: UInt64
    let people: Int
    let dogs: Int
}
