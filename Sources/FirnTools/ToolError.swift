#if canImport(Glibc)
import Glibc
#endif

/// Errors of the toolkit's own making (FirnCore's are `FirnError`). Each
/// case says what went wrong and where; the `firn` executable maps each to
/// one exit status.
package enum ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The arguments make no sense together.
    case usage(String)
    /// A policy threshold the user set was crossed (`pins --max-lag` …).
    case thresholdCrossed(path: String, detail: String)
    /// `verify` (or the check after compact/import) found defects.
    case verificationFailed(path: String, findings: Int, first: String)
    /// The output exists and `--force` was not given.
    case outputExists(path: String)
    /// The output cannot be created (directory missing, no permission, no space).
    case cannotCreate(path: String, detail: String)
    /// An input that is not what the command reads (not an LZ4 frame …).
    case badInput(path: String, detail: String)
    /// An input that is damaged (LZ4 checksum mismatch, truncated frame …).
    case corruptInput(path: String, detail: String)
    /// Reading or writing failed.
    case io(path: String, operation: String, errno: Int32)
    /// SIGINT or SIGTERM arrived; temporary files were removed, nothing changed.
    case interrupted

    package var description: String {
        switch self {
        case let .usage(detail): return detail
        case let .thresholdCrossed(path, detail): return "\(path): \(detail)"
        case let .verificationFailed(path, findings, first):
            return "\(path): verification failed: \(findings) finding\(findings == 1 ? "" : "s"); first: \(first)"
        case let .outputExists(path): return "\(path): exists (use --force to replace it)"
        case let .cannotCreate(path, detail): return "\(path): cannot create: \(detail)"
        case let .badInput(path, detail): return "\(path): \(detail)"
        case let .corruptInput(path, detail): return "\(path): corrupt: \(detail)"
        case let .io(path, operation, code):
            return "\(path): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .interrupted: return "interrupted; nothing was changed"
        }
    }

    /// An errno from creating or writing an output, as the right case.
    static func writing(_ path: String, _ operation: String, errno code: Int32) -> ToolError {
        switch code {
        case ENOSPC, EDQUOT: return .cannotCreate(path: path, detail: "no space left on the device")
        case EACCES, EPERM, EROFS, ENOENT, ENOTDIR:
            return .cannotCreate(path: path, detail: "\(operation): \(String(cString: strerror(code)))")
        case EEXIST: return .outputExists(path: path)
        default: return .io(path: path, operation: operation, errno: code)
        }
    }
}
