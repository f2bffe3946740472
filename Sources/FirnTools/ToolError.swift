#if canImport(Glibc)
import Glibc
#endif

/// Errors of the toolkit's own making (FirnCore's are `FirnError`). Each
/// case says what went wrong and where, as data; the `firn` executable
/// words each as one line and maps each to one exit status (`ExitStatus`).
package enum ToolError: Error, Sendable, Equatable {
    /// The arguments make no sense together.
    case usage(String)
    /// A policy threshold the user set was crossed (`pins --max-lag` …).
    case thresholdCrossed(path: String, detail: String)
    /// What was asked for is not there (`get`: no such key or tree).
    case absent(path: String, detail: String)
    /// `verify` (or the check after compact/import) found defects.
    case verificationFailed(path: String, findings: Int, first: String)
    /// The output exists and `--force` was not given.
    case outputExists(path: String)
    /// The output cannot be created (directory missing, no permission, no space).
    case cannotCreate(path: String, detail: String)
    /// The output needs more free space in `directory` than it has.
    case insufficientSpace(path: String, directory: String, availableBytes: UInt64, neededBytes: UInt64)
    /// An input that is not what the command reads (not an LZ4 frame …).
    case badInput(path: String, detail: String)
    /// An input that is damaged (LZ4 checksum mismatch, truncated frame …).
    case corruptInput(path: String, detail: String)
    /// Reading or writing failed.
    case io(path: String, operation: String, errno: Int32)
    /// SIGINT or SIGTERM arrived; temporary files were removed, nothing changed.
    case interrupted
    /// SIGINT or SIGTERM stopped `load` after `batches` whole batches
    /// (`entries` entries, now at `version`) were committed; the batch being
    /// read was not.
    case loadInterrupted(path: String, batches: Int, entries: UInt64, version: UInt64)
    /// The reader of a pipe the command writes went away (`| head`): EPIPE.
    /// Not a failure of the command: it ends quietly with exit 0.
    case outputClosed(path: String)

    /// An errno from creating or writing an output, as the right case.
    static func writing(_ path: String, _ operation: String, errno code: Int32) -> ToolError {
        switch code {
        case ENOSPC, EDQUOT: return .cannotCreate(path: path, detail: "no space left on the device")
        case EACCES, EPERM, EROFS, ENOENT, ENOTDIR:
            return .cannotCreate(path: path, detail: "\(operation): \(String(cString: strerror(code)))")
        case EEXIST: return .outputExists(path: path)
        case EPIPE: return .outputClosed(path: path)
        default: return .io(path: path, operation: operation, errno: code)
        }
    }
}
