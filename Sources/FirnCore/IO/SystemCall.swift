#if canImport(Glibc)
import Glibc
#endif

/// Runs a system call that reports failure as -1 with errno, retrying on
/// EINTR, and turns a failure into `FirnError.io` naming the file and call
/// (`operation` is only built then: a commit makes several calls).
@inline(__always)
func retryingEINTR<T: FixedWidthInteger>(
    path: String, _ operation: @autoclosure () -> String, _ call: () -> T
) throws(FirnError) -> T {
    while true {
        let result = call()
        if result >= 0 { return result }
        let code = errno
        if code == EINTR { continue }
        throw FirnError.io(path: path, operation: operation(), errno: code)
    }
}
