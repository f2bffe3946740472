#if canImport(Glibc)
import Glibc
#endif

/// Prints a command's usage to stderr; returns the usage exit code (64).
func usageError(_ text: String) -> Int32 {
    FileHandleStderr.write("usage: firn-testkit \(text)\n")
    return 64
}

/// Writes `text` and a newline straight to fd 1: no stdio buffer, so a line
/// is in the pipe the moment this returns, and a kill right after loses nothing.
func writeLine(_ text: String) {
    var bytes = Array((text + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress.map { $0 + done }, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        done += n
    }
}
