import ArgumentParser
import FirnCore
import FirnTools
#if canImport(Glibc)
import Glibc
#endif

struct HoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Pin a version until interrupted or --seconds pass (to reproduce growth and test pin alerts).",
        discussion: "Prints the version pinned, then waits. Ends with exit 0 on SIGINT/SIGTERM. JSON keys: path, version, pid, kind, label. It holds a pin, not objects: for a frozen pin with real frozen objects, run an application (firn demo runs one).")

    @Argument(help: "The database file.") var file: String
    @OptionGroup var holding: HoldingTime
    @Option(help: "The pin's label, shown by `firn pins`.") var label = "firn hold"
    @Option(parsing: .unconditional, help: "A readable version to pin (default: the current one).",
            transform: NumericOption.version) var version: UInt64?
    @Option(help: "The pin kind: read, frozen, threadSafeReference, export, compact, tool.") var kind = "tool"
    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard PinKind(name: kind) != nil else { throw ValidationError("--kind: unknown pin kind \"\(kind)\"") }
    }

    func run() throws {
        Interruption.install(exitOnSignal: false)
        var options = Hold.Options(path: file)
        options.version = version
        options.kind = PinKind(name: kind) ?? .tool
        options.label = label
        let hold = try Hold(options)
        defer { hold.release() }
        try common.format.show(json: { hold.report }, text: { HoldText.lines(hold.report, file: file) })
        // The lock file is looked at as the pin is held: truncated under
        // it, hold exits 65 naming it, instead of SIGBUS when it lets go.
        try holding.wait(checking: hold.checkLockFile)
        try hold.checkLockFile()
    }
}
