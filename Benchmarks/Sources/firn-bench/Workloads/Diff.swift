#if canImport(Glibc)
import Glibc
#endif
import FirnCore
import Foundation

/// 10. diff — one commit overwrites 100 random records of the 1M-record
/// tree; the figure is the time to list the changes between the version
/// before and the version after with a version diff
/// (`Snapshot.changes(in:since:)`, which skips the subtrees both versions
/// share), against the same list computed by a full ordered scan of both
/// versions merged by key — what a notification would cost without diffs.
/// A second row gives the pages the diff read against the pages of both
/// versions' trees (what the full scan reads). Each repetition makes a new
/// commit of 100 changes to the fixture, outside the clock.
func runDiff(_ ctx: Context) throws {
    let ds = ctx.dataset
    let changed = 100
    let path = try ctx.fixture(FirnEngine.self)
    var options = StoreOptions()
    options.durability = .none  // the overwrite commits are set-up, not measured
    let store = try Store.open(path, options: options)
    defer { store.close() }

    var rng = SplitMix64(seed: 0xD1FF)
    var pairs: [Int: (older: Snapshot, newer: Snapshot)] = [:]
    defer { for (older, newer) in pairs.values { older.close(); newer.close() } }
    /// Repetition `r`'s two versions: before and after 100 overwrites.
    func versions(_ r: Int) throws -> (older: Snapshot, newer: Snapshot) {
        if let pair = pairs[r] { return pair }
        let older = try store.snapshot(label: "bench diff: before")
        try store.write { txn in
            guard let tree = try txn.tree("kv") else { throw EngineError(description: "no tree") }
            var picked = Set<Int>()
            while picked.count < changed { picked.insert(Int(rng.next() % UInt64(ds.count))) }
            for i in picked {
                // The last byte is 0 in the data set and differs every repetition.
                var value = Array(ds.value(i))
                value[value.count - 1] = UInt8(truncatingIfNeeded: 0xA0 + r)
                try tree.put(Array(ds.key(i)), value)
            }
        }
        let pair = (older: older, newer: try store.snapshot(label: "bench diff: after"))
        pairs[r] = pair
        return pair
    }

    var pagesRead: [Double] = []
    let diff = Contender(name: "firn") { r in
        let (older, newer) = try versions(r)
        var found = 0
        var stats = DiffStats()
        let t = try timed {
            stats = try newer.changes(in: "kv", since: older) { _ in
                found += 1
                return true
            }
        }
        guard found == changed else { throw EngineError(description: "diff found \(found) of \(changed) changes") }
        pagesRead.append(Double(stats.pagesRead))
        log("  diff: \(stats.pagesRead) pages read, \(stats.subtreesSkipped) subtrees skipped, \(stats.entriesRead) entries read")
        return t * 1e6
    }
    let scan = Contender(name: "full scan") { r in
        let (older, newer) = try versions(r)
        var found = 0
        let t = try timed { found = try scanForChanges(older, newer) }
        guard found == changed else { throw EngineError(description: "full scan found \(found) of \(changed) changes") }
        return t * 1e6
    }
    let m = try alternate("diff", reps: ctx.reps, [diff, scan])

    let (older, newer) = try versions(0)
    let treePages = Double(try treePageCount(ctx, path, version: older.version)
        + treePageCount(ctx, path, version: newer.version))
    var time = Figure.lowerIsBetter("diff", firn: m["firn"]!, peer: "full scan", peerValue: m["full scan"]!,
                                   unit: "µs", target: .ratioAtLeast(100))
    time.note = "\(changed) changed records in \(ds.count)"
    ctx.report.add(time)
    // The diff reads what changed, the scan everything: under 5 % of the pages.
    var pages = Figure.lowerIsBetter("diff pages", firn: median(pagesRead), peer: "full scan",
                                    peerValue: treePages, unit: "pages", target: .ratioAtLeast(20))
    pages.note = "pages of both versions' trees"
    ctx.report.add(pages)
}

/// The changes between the two versions' "kv" trees found without a diff:
/// both trees scanned in full in key order, merged by key, values compared.
private func scanForChanges(_ older: Snapshot, _ newer: Snapshot) throws -> Int {
    guard let a = try older.tree("kv")?.cursor(), let b = try newer.tree("kv")?.cursor() else { return 0 }
    try a.first()
    try b.first()
    var changes = 0
    while a.isValid || b.isValid {
        // Keys and values point into the map and stay valid while the cursor
        // is on the entry: taking them out avoids a copy per record.
        let order: Int32
        if !a.isValid {
            order = 1
        } else if !b.isValid {
            order = -1
        } else {
            let ka = try a.withKey { $0 }!, kb = try b.withKey { $0 }!
            order = compareBytes(ka, kb)
        }
        if order < 0 {
            changes += 1
            try a.next()
        } else if order > 0 {
            changes += 1
            try b.next()
        } else {
            let va = try a.withInlineValue { $0 }, vb = try b.withInlineValue { $0 }
            if let va, let vb {
                if compareBytes(va, vb) != 0 { changes += 1 }
            } else if try a.value != b.value {
                changes += 1
            }
            try a.next()
            try b.next()
        }
    }
    return changes
}

/// memcmp order, shorter first on a tie.
private func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int32 {
    let n = min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let r = memcmp(pa, pb, n)
        if r != 0 { return r }
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

/// Pages of the version's "kv" tree (branches, leaves and overflow pages), as
/// `firn dump --version V --json` counts them (the bench holds the version's pin).
private func treePageCount(_ ctx: Context, _ path: String, version: UInt64) throws -> Int {
    guard let cli = ctx.cli else { throw EngineError(description: "the diff pages row needs the firn CLI (--firn PATH)") }
    struct Dump: Decodable {
        struct Tree: Decodable {
            struct Level: Decodable { var pages: Int }
            var name: String
            var levels: [Level]
            var overflowPages: Int
        }
        var trees: [Tree]
    }
    let out = ctx.path("diff-dump-\(version).json")
    try runChild([cli.path, "dump", path, "--version", "\(version)", "--json"], stdoutPath: out, scratch: ctx.scratch)
    defer { unlink(out) }
    let dump = try JSONDecoder().decode(Dump.self, from: Data(readSmallFile(out).utf8))
    guard let tree = dump.trees.first(where: { $0.name == "kv" }) else { return 0 }
    return tree.levels.reduce(tree.overflowPages) { $0 + $1.pages }
}
