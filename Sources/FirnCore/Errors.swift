/// The errors FirnCore throws. Each names the file and, where one is
/// involved, the page and version, so a message alone says what went wrong
/// and where. The `firn` tool maps each case to one sysexits code.
public enum FirnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed. `errno` is the raw error number.
    case io(path: String, operation: String, errno: Int32)
    /// The file does not exist (or is not a regular file).
    case notFound(path: String, detail: String)
    /// The file exists but is not a Firn database (bad magic, unknown format).
    case notAFirnFile(path: String, detail: String)
    /// The file is a Firn database but fails a structural check.
    case corrupt(path: String, page: UInt64?, version: UInt64?, detail: String)
    /// A lock could not be obtained in time, or exclusivity was refused.
    case busy(path: String, detail: String)
    /// No space left to create or grow a file.
    case noSpace(path: String, detail: String)
    /// A file cannot be created: its directory is missing or not writable.
    case cannotCreate(path: String, detail: String)
    /// The caller asked for something invalid (bad option, key too long…).
    case invalidArgument(String)
    /// The store, snapshot or transaction was used after it ended, or a write
    /// was attempted through a read-only handle.
    case misuse(String)

    public var description: String {
        switch self {
        case let .io(path, operation, errno):
            return "\(path): \(operation) failed: \(errnoDescription(errno)) (errno \(errno))"
        case let .notFound(path, detail):
            return "\(path): \(detail)"
        case let .notAFirnFile(path, detail):
            return "\(path): not a Firn database: \(detail)"
        case let .corrupt(path, page, version, detail):
            var location = path
            if let page { location += ": page \(page)" }
            if let version { location += " (version \(version))" }
            return "\(location): corrupt: \(detail)"
        case let .busy(path, detail):
            return "\(path): busy: \(detail)"
        case let .noSpace(path, detail):
            return "\(path): no space: \(detail)"
        case let .cannotCreate(path, detail):
            return "\(path): cannot create: \(detail)"
        case let .invalidArgument(detail):
            return detail
        case let .misuse(detail):
            return detail
        }
    }

    /// True for errors caused by ENOSPC/EDQUOT, whatever case carries them.
    public var isNoSpace: Bool {
        switch self {
        case .noSpace: return true
        case let .io(_, _, errno): return errno == ENOSPC || errno == EDQUOT
        default: return false
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func errnoDescription(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
