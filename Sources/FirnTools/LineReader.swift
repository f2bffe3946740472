import FirnCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a file descriptor in 64 KiB chunks (memory bounded by
/// the longest line), retrying on EINTR and stopping when interrupted.
package struct LineReader {
    private let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false

    package init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// The next line without its newline; nil at the end of input.
    package mutating func next() throws(ToolError) -> Substring? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                return Substring(line)
            }
            if eof {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return Substring(line)
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            // A read that Ctrl-C interrupts ends the command; other signals
            // only interrupt the read, which is retried.
            let read = chunk.withUnsafeMutableBytes { buffer in
                SystemCall.result(stopOnSignal: { Interruption.isRequested }) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            let n: Int
            switch read {
            case let .success(count): n = count
            case let .failure(error) where error.isInterruption: throw ToolError.interrupted
            case let .failure(error): throw ToolError.io(path: path, operation: "read", errno: error.code)
            }
            if n == 0 { eof = true } else { buffer.append(contentsOf: chunk[..<n]) }
        }
    }
}
