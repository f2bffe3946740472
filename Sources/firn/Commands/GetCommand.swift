import ArgumentParser
import FirnTools

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one key's value: exit 0 with the value on stdout, exit 1 when the key is absent.",
        discussion: """
            KEY is the key's bytes as typed (UTF-8), or hex digits with --hex. The value is written as it is \
            stored, followed by a newline; --hex writes it as hex digits. An absent key or tree exits 1 with one \
            line on stderr naming the tree, the key and the version (as `bbolt get` does), so a script tells absent \
            from empty. Exit status: 0 found; 1 absent; 64 usage; 65 corrupt; 66 no such database; 74 I/O error; \
            75 busy. JSON keys: path, version, tree, key, value (the entries format's spelling: "text" or x<hex>; \
            null when absent), absence (noTree or noKey), pinned, note.
            """)

    @Argument(help: "The database file.") var file: String
    @Argument(help: "The tree.") var tree: String
    @Argument(help: "The key (UTF-8 text, or hex digits with --hex).") var key: String
    @Option(parsing: .unconditional, help: "A readable version (default: the current one).",
            transform: NumericOption.version) var version: UInt64?
    @Flag(help: "KEY is hex digits, and the value is written as hex digits.") var hex = false
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if hex && HexKey.parse(key) == nil { throw ValidationError("KEY with --hex: expected hex digits, found \"\(key)\"") }
    }

    func run() throws {
        var options = Get.Options(path: file, tree: tree, key: hex ? HexKey.parse(key) ?? [] : Array(key.utf8))
        options.version = version
        let report = try Get.run(options)
        common.note(report.note)
        switch common.format {
        case .json: try Console.json(GetJSON(report))
        case .text: if let value = report.value { try Console.write(bytes: GetText.value(value, hex: hex)) }
        case .silent: break
        }
        if let absence = report.absence {
            throw ToolError.absent(path: file, detail: GetText.absence(absence, report))
        }
    }
}
