import ArgumentParser
import FirnCore
import FirnTools
#if canImport(Glibc)
import Glibc
#endif

/// How long `hold` and `demo-app cache` keep what they hold: `--seconds`,
/// or until SIGINT/SIGTERM (they end with exit 0 then).
struct HoldingTime: ParsableArguments {
    @Option(parsing: .unconditional, help: "Release after this many seconds (0…31536000; default: until interrupted).",
            transform: NumericOption.seconds) var seconds: Double?

    /// Waits until interrupted or `--seconds` pass, calling `check` every 50 ms.
    func wait(checking check: () throws -> Void) rethrows {
        let deadline = seconds.map { monotonicDeadline(afterSeconds: $0) }
        while !Interruption.isRequested {
            if let deadline, monotonicNanoseconds() >= deadline { break }
            try check()
            usleep(50_000)
        }
    }
}
