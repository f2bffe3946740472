/// The data file as an open store reads it: its descriptor and the map
/// every snapshot, transaction and log read goes through, replaced by a
/// larger one when the file has grown past it. One per store, shared by
/// the store and its commit log (`CommitLog`), so both read through the
/// same map and neither asks the other for it.
final class MappedFile: Sendable {
    let path: String
    let io: any FileIO
    let pageSize: Int

    private struct State {
        var map: Mapping
        /// The largest size this store has seen the file at: Firn never
        /// shrinks a data file in place (a replacement is another file), so
        /// a version within it needs no new look at the file's size.
        var sizeSeen: UInt64 = 0
    }
    private let state: Locked<State>

    init(path: String, io: any FileIO, pageSize: Int, map: Mapping) {
        self.path = path
        self.io = io
        self.pageSize = pageSize
        state = Locked(State(map: map))
    }

    /// The map as it is now (it may not cover pages the file grew by).
    var current: Mapping { state.withLock { $0.map } }

    /// The current map, replaced by a larger one when the file has grown
    /// past it; throws `.corrupt` when the file is shorter than `pages`
    /// (`version` names what needed them). `fileSize`: the size when the
    /// caller knows it.
    func covering(pages: UInt64, version: UInt64, fileSize known: UInt64? = nil) throws(FirnError) -> Mapping {
        let needed = pages.multipliedReportingOverflow(by: UInt64(pageSize))
        let fileSize: UInt64
        if let known {
            fileSize = known
        } else if !needed.overflow, case let seen = state.withLock({ $0.sizeSeen }), needed.partialValue <= seen {
            // Each transaction maps its base version: a system call per
            // commit saved (the file never shrinks under an open store).
            fileSize = seen
        } else {
            fileSize = try io.size()
        }
        guard !needed.overflow, needed.partialValue <= fileSize else {
            throw FirnError.corrupt(
                path: path, page: pages &- 1, version: version,
                detail: "the version uses \(pages) pages but the file holds only \(fileSize / UInt64(pageSize)) (truncated?)")
        }
        return try state.withLock { (s) throws(FirnError) -> Mapping in
            s.sizeSeen = max(s.sizeSeen, fileSize)
            if needed.partialValue <= UInt64(s.map.length) { return s.map }
            let map = try Mapping(descriptor: io.descriptor, length: Mapping.reservation(forFileSize: fileSize), path: path)
            s.map = map
            return map
        }
    }
}
