import FirnCore
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
    _ = SystemCall.writeAll(1, Array((text + "\n").utf8))
}
