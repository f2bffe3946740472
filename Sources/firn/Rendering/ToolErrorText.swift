import FirnTools
#if canImport(Glibc)
import Glibc
#endif

extension ToolError {
    /// The error's line after "firn: ": what went wrong and where.
    var message: String {
        switch self {
        case let .usage(detail): return detail
        case let .thresholdCrossed(path, detail): return "\(path): \(detail)"
        case let .absent(path, detail): return "\(path): \(detail)"
        case let .verificationFailed(path, findings, first):
            return "\(path): verification failed: \(findings) finding\(findings == 1 ? "" : "s"); first: \(first)"
        case let .outputExists(path): return "\(path): exists (use --force to replace it)"
        case let .cannotCreate(path, detail): return "\(path): cannot create: \(detail)"
        case let .insufficientSpace(path, directory, available, needed):
            return "\(path): cannot create: not enough free space in \(directory) for the compacted copy: "
                + "\(Human.bytes(available)) free, about \(Human.bytes(needed)) needed"
        case let .badInput(path, detail): return "\(path): \(detail)"
        case let .corruptInput(path, detail): return "\(path): corrupt: \(detail)"
        case let .io(path, operation, code):
            return "\(path): \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .interrupted: return "interrupted; nothing was changed"
        case let .loadInterrupted(path, batches, entries, version):
            if batches == 0 { return "\(path): interrupted before the first batch was committed; nothing was loaded" }
            return "\(path): interrupted after \(batches) batch(es) were committed (\(Human.grouped(entries)) entries, "
                + "now at version \(version)); the batch being read was not loaded"
        case let .outputClosed(path): return "\(path): closed by its reader"
        }
    }
}
