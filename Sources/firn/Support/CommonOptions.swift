import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Options every command takes (the toolkit contract in DESIGN.md).
struct CommonOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON with stable keys on stdout.")
    var json = false

    @Flag(inversion: .prefixedNo, help: "Show progress on stderr (default: only when stderr is a terminal).")
    var progress: Bool?

    @Option(name: .customLong("lock-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Wait at most this many seconds (0…86400) for a lock, then exit 75 (default: 30 for the writer lock, 0 for exclusivity).",
                               valueName: "seconds"),
            transform: NumericOption.lockTimeout)
    var lockTimeout: Double?

    var showProgress: Bool { progress ?? (isatty(2) == 1) }

    /// The wait for the writer lock: `--lock-timeout`, else 30 s (never forever).
    var writerLockTimeout: Double { lockTimeout ?? 30 }

    func progressLine() -> ProgressLine { ProgressLine(enabled: showProgress && !json) }

    /// Prints a read's note (no pin, why) on stderr.
    func note(_ text: String?) {
        if let text { Console.note(text) }
    }
}
