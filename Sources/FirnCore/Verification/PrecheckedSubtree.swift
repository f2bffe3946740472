/// A subtree of a packed image that a `SubtreeChecker` walked clean while
/// the image was being written (every check a walk from the root makes
/// inside it). The verifier's walk from the root takes it whole where its
/// parent references it, once what crosses the subtree's edge holds: the
/// parent's key bounds against its first and last keys, the key before it,
/// its leaves' depth, and its pages not reached elsewhere.
package struct PrecheckedSubtree: Sendable, Equatable {
    /// Its root's level.
    package var level: Int
    package var firstKey: [UInt8]
    package var lastKey: [UInt8]
    /// The depth of its leaves counted from its root (1: the root is a leaf).
    package var leafDepth: Int
    /// Its entries and pages by kind (the walk's counts; name and depth unused).
    package var counts: VerifiedTree
    /// Every page the walk reached.
    package var pages: PageRuns
    package var bytesChecked: UInt64
}

/// Page numbers as runs of consecutive pages, in the order added: a
/// packed subtree's pages are mostly one run, so a few ranges stand for
/// a hundred pages.
package struct PageRuns: Sendable, Equatable, Sequence {
    private var runs: [Range<UInt64>] = []

    package init() {}

    mutating func append(_ page: UInt64) {
        if let last = runs.last, last.upperBound == page, page < UInt64.max {
            runs[runs.count - 1] = last.lowerBound..<(page + 1)
        } else if page < UInt64.max {
            runs.append(page..<(page + 1))
        }
    }

    package var count: UInt64 { runs.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    package func makeIterator() -> FlattenSequence<[Range<UInt64>]>.Iterator {
        runs.joined().makeIterator()
    }
}
