import ArgumentParser
import FirnCore
import FirnTools

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Show the B+ trees of a readable version: levels, pages, one decoded page, every entry, or its objects.",
        discussion: """
            Default: per tree, pages per level, fill and key range. --pages: one line per page. \
            --page N: header, cells and checksum of page N. --entries: key/value lines in the format \
            `firn load` reads (tab-separated tree, key, value; "text" or x<hex>; a tree without entries is a line with \
            its name alone); with --json, one JSON object per line. --from KEY and --to KEY keep the keys from KEY \
            (inclusive) up to KEY (exclusive) in each tree, as UTF-8 text or, with --hex, hex digits; --limit N \
            stops after N entries in all (a range or limit prints no line for a tree it leaves empty).

            --objects: the objects the Firn SDK stored, decoded with the schema kept in the file (no application \
            code needed), type by type in key order. Text: a line "Dog: N objects (primary key id)" per type, then \
            one line per object, e.g. Dog(id: 1, name: "Rex", owner: Person[7F1C…], tags: ["a"]); a type without \
            a primary key shows its generated key (Note #3(…)); nil for null, <hex> for Data, ISO 8601 UTC for \
            dates, Type[key] for a link (nil once its target is deleted), [...] for lists. With --json, one JSON \
            object per line: {"type": "Dog", "key": <primary key or generated id>, "properties": {<every property \
            in schema order>}}; Data is base64, dates ISO 8601 strings, non-finite numbers the strings "nan", "inf", \
            "-inf", a link its target's key (null once the target is deleted), a list an array. --type NAME keeps \
            one type (an unknown type exits 64 and lists the stored ones); --limit N shows at most N objects per type.
            """)

    @Argument(help: "The database file.") var file: String
    @Option(parsing: .unconditional, help: "A readable version (default: the current one).",
            transform: NumericOption.version) var version: UInt64?
    @Option(help: "Only this tree; \"(catalog)\" and \"(space)\" name the system trees unless a user tree has that name.") var tree: String?
    @Flag(help: "One line per page.") var pages = false
    @Option(parsing: .unconditional, help: ArgumentHelp("Decode one page.", valueName: "n"),
            transform: NumericOption.page) var page: UInt64?
    @Flag(help: "Every entry, in the text format `firn load` reads.") var entries = false
    @Flag(help: "With --entries: write keys and values as hex even when printable (and read --from and --to as hex digits).") var hex = false
    @Flag(help: "The stored objects, decoded with the file's schema.") var objects = false
    @Option(help: ArgumentHelp("With --objects: only objects of this type.", valueName: "name")) var type: String?
    @Option(help: ArgumentHelp("With --entries: start at this key (inclusive).", valueName: "key")) var from: String?
    @Option(help: ArgumentHelp("With --entries: stop before this key (exclusive).", valueName: "key")) var to: String?
    @Option(parsing: .unconditional,
            help: ArgumentHelp("With --objects: at most N objects per type; with --entries: at most N entries (1…1000000000).", valueName: "n"),
            transform: NumericOption.objectLimit) var limit: Int?
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if [pages, page != nil, entries, objects].filter({ $0 }).count > 1 {
            throw ValidationError("--pages, --page, --entries and --objects are exclusive")
        }
        if !objects {
            if type != nil { throw ValidationError("--type needs --objects") }
            if limit != nil && !entries { throw ValidationError("--limit needs --objects or --entries") }
        } else if tree != nil {
            throw ValidationError("--tree and --objects are exclusive (--type picks an object type)")
        }
        if hex && !entries { throw ValidationError("--hex needs --entries") }
        if (from != nil || to != nil) && !entries { throw ValidationError("--from and --to need --entries") }
        for (name, key) in [("--from", from), ("--to", to)] {
            if let key, hex, HexKey.parse(key) == nil {
                throw ValidationError("\(name) with --hex: expected hex digits, found \"\(key)\"")
            }
        }
    }

    /// A key of --from or --to as bytes: its UTF-8, or its hex digits with --hex.
    private func keyBytes(_ text: String?) -> [UInt8]? {
        text.map { hex ? HexKey.parse($0) ?? [] : Array($0.utf8) }
    }

    func run() throws {
        var options = Dump.Options(path: file)
        options.version = version
        options.tree = tree
        options.from = keyBytes(from)
        options.to = keyBytes(to)
        options.limit = entries ? limit.map(UInt64.init) : nil
        if let page {
            let inspected = try Dump.page(file, number: page)
            return try common.format.show(json: { DumpJSON.Page(path: file, page: inspected) },
                                          text: { DumpText.page(inspected, file: file) })
        }
        if objects { return try showObjects() }
        if entries { return try showEntries(options) }
        if pages {
            let report = try Dump.pages(options)
            return try common.format.show(note: report.note, json: { DumpJSON.pages(report) }, text: { DumpText.pages(report) })
        }
        let report = try Dump.structure(options)
        try common.format.show(note: report.note, json: { DumpJSON.structure(report) }, text: { DumpText.structure(report, file: file) })
    }

    /// `--entries`: the lines `load` reads, or one JSON object per entry.
    private func showEntries(_ options: Dump.Options) throws {
        let summary = try Dump.entries(options, shapesChecked: { () throws(ToolError) in
            if !common.json { try Console.line(EntryCodec.header) }
        }, line: { (line) throws(ToolError) in
            try Console.line(common.json ? DumpJSON.entry(line, hex: hex) : EntryCodec.encode(line, hex: hex))
        })
        common.note(summary.note)
        if common.showProgress { Console.note(DumpText.count(summary)) }
    }

    /// Prints a listing of objects as `--objects` prints them (the demo's step).
    static func show(_ listing: ObjectDump.Listing, file: String, limit: Int?, _ format: ReportFormat) throws {
        let output = ObjectsOutput(format: format, limit: limit)
        for typed in listing.types {
            try output.type(typed.type)
            for object in typed.objects { try output.object(object) }
        }
        try output.end(listing.summary, file: file)
    }

    private func showObjects() throws {
        var options = ObjectDump.Options(path: file)
        options.version = version
        options.type = type
        options.limit = limit
        let output = ObjectsOutput(format: common.format, limit: limit)
        let summary = try ObjectDump.run(options, type: output.type, object: output.object)
        try output.end(summary, file: file)
        if common.showProgress {
            Console.note(ObjectText.count(summary))
        }
    }

    /// How `--objects` prints what it reads, streamed or listed: a line per
    /// type and one per object (text), or one JSON object per object.
    private struct ObjectsOutput {
        let format: ReportFormat
        let limit: Int?

        func type(_ stored: StoredType) throws {
            if format == .text { try Console.line(ObjectText.header(stored, limit: limit)) }
        }

        func object(_ object: ObjectDump.Object) throws {
            switch format {
            case .text: try Console.line(ObjectText.line(object))
            case .json: try Console.line(ObjectText.json(object))
            case .silent: break
            }
        }

        func end(_ summary: ObjectDump.Summary, file: String) throws {
            if let note = summary.note { Console.note(note) }
            if format == .text, let empty = ObjectText.empty(summary, file: file) { try Console.line(empty) }
        }
    }
}
