/// Which exit statuses each command ends with, and what each means for it:
/// the EXIT STATUS section of its man page. The statuses are ExitStatus's
/// (the README's table); a command lists those its operation can produce.
enum CommandExitStatus {
    /// Opening a database: usage, a damaged page, a missing or foreign
    /// file, an internal error, I/O, a busy lock.
    private static let reading: [Int32] = [64, 65, 66, 70, 74, 75]

    static func codes(for command: String) -> [Int32] {
        switch command {
        case "firn": [0, 1, 64, 65, 66, 70, 73, 74, 75, 130]
        case "info", "versions", "dump", "verify", "metrics": [0] + reading
        case "growth": [0] + reading + [73]
        case "pins", "readers", "get": [0, 1] + reading
        case "hold": [0] + reading
        case "checkpoint": [0] + reading + [73]
        case "load", "compact", "export", "import": [0] + reading + [73, 130]
        case "demo": [0, 64, 70, 73, 74]
        default: [0, 64, 70]
        }
    }

    static func meaning(_ code: Int32, for command: String) -> String {
        switch (code, command) {
        case (0, "verify"): "The version is clean."
        case (0, "hold"): "The pin was held and released (also when interrupted: SIGINT and SIGTERM end the hold)."
        case (0, _): "Success."
        case (1, "firn"): "A threshold you set was crossed (pins), or the key asked for is absent (get)."
        case (130, "firn"): "Interrupted (SIGINT, SIGTERM): temporary files removed, nothing changed; load keeps the batches "
            + "it committed and says how many."
        case (1, "get"): "The key or the tree is absent (one line on stderr says which)."
        case (1, _): "A threshold given (--max-lag, --max-age, --max-retained) was crossed by a live pin."
        case (64, "demo"): "A claim the tour checks did not hold (the line is marked with a cross)."
        case (64, _): "Usage error: an unknown option, a value out of its range, options that do not go together."
        case (65, "verify"): "The version has findings: the file is corrupt."
        case (65, "load"): "A line of the input is malformed (its number is named), or a page read is damaged."
        case (65, _): "A page the command reads, copies or builds on is damaged; nothing is written."
        case (66, "import"): "The snapshot is missing or not an LZ4 frame."
        case (66, _): "The input is missing or not a Firn file."
        case (70, _): "An internal error (a misuse of the engine): a bug to report."
        case (73, _): "The output cannot be created: it exists without --force, is a directory, its directory is missing, "
            + "or there is no space. Refused before any work."
        case (74, _): "An I/O error. A closed standard output (a reader that stopped, as head does) is not one: the "
            + "command ends quietly with 0."
        case (75, _): "Busy: the lock was not obtained within --lock-timeout, exclusivity was refused, or the lock file "
            + "publishes a version the data file does not hold. Retry later."
        case (130, "load"): "Interrupted (SIGINT, SIGTERM): the batches committed stay, and stderr says how many batches and entries."
        case (130, _): "Interrupted (SIGINT, SIGTERM): temporary files removed, nothing changed."
        default: "See firn(1)."
        }
    }
}
