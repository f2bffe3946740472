#if canImport(Glibc)
import Glibc
#endif
import Synchronization
@testable import FirnCore

/// A `FileIO` that passes calls through to the real file but makes the k-th
/// write, sync or extend (counted from 1 since it was installed) fail with
/// EIO or ENOSPC, once or — `sticky` — for every later call of that kind
/// too, as a failing or full disk would. A failing write of 1 KiB or more
/// first writes its first half (a short write), as a real one may.
/// Without a fault it only counts, for a dry run.
final class FaultyIO: FileIO, @unchecked Sendable {
    enum Kind: String, CaseIterable, Sendable { case write, sync, extend }
    enum Code: String, CaseIterable, Sendable { case eio, enospc }

    struct Fault: Sendable, CustomStringConvertible {
        var kind: Kind
        /// 1-based: the first call of `kind` is 1.
        var index: Int
        var code: Code
        var sticky = false
        var description: String { "\(kind) #\(index) \(code)\(sticky ? " (sticky)" : "")" }
    }

    private struct State {
        var counts: [Kind: Int] = [:]
        var injected: [FirnError] = []
    }

    let base: any FileIO
    let fault: Fault?
    private let state = Mutex(State())

    init(_ base: any FileIO, fault: Fault?) {
        self.base = base
        self.fault = fault
    }

    /// Calls of each kind so far (failed ones included).
    func count(_ kind: Kind) -> Int { state.withLock { $0.counts[kind] ?? 0 } }
    /// The errors thrown so far.
    var injected: [FirnError] { state.withLock { $0.injected } }

    var path: String { base.path }
    var descriptor: Int32 { base.descriptor }

    /// The error a real `POSIXFile` throws for this failure.
    static func error(_ kind: Kind, _ code: Code, path: String) -> FirnError {
        switch (kind, code) {
        case (.extend, .enospc): return .noSpace(path: path, detail: "cannot grow the file (injected)")
        case (_, .enospc): return .io(path: path, operation: "injected \(kind)", errno: ENOSPC)
        case (_, .eio): return .io(path: path, operation: "injected \(kind)", errno: EIO)
        }
    }

    /// Counts a call of `kind`; the error to throw when it must fail.
    private func check(_ kind: Kind) -> FirnError? {
        state.withLock { s in
            let n = (s.counts[kind] ?? 0) + 1
            s.counts[kind] = n
            guard let fault, fault.kind == kind, n == fault.index || (fault.sticky && n > fault.index) else { return nil }
            let error = Self.error(kind, fault.code, path: base.path)
            s.injected.append(error)
            return error
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        if let error = check(.write) {
            if bytes.count >= 1024 {
                try base.write(UnsafeRawBufferPointer(rebasing: bytes[0..<bytes.count / 2]), at: offset)
            }
            throw error
        }
        try base.write(bytes, at: offset)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        try base.read(into: buffer, at: offset)
    }

    func sync() throws(FirnError) {
        if let error = check(.sync) { throw error }
        try base.sync()
    }

    func extend(to size: UInt64) throws(FirnError) {
        if let error = check(.extend) { throw error }
        try base.extend(to: size)
    }

    func size() throws(FirnError) -> UInt64 { try base.size() }

    func close() { base.close() }
}
