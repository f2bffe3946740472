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
            its name alone); with --json, one JSON object per line.

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
    @Flag(help: "With --entries: write keys and values as hex even when printable.") var hex = false
    @Flag(help: "The stored objects, decoded with the file's schema.") var objects = false
    @Option(help: ArgumentHelp("With --objects: only objects of this type.", valueName: "name")) var type: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("With --objects: at most N objects per type (1…1000000000).", valueName: "n"),
            transform: NumericOption.objectLimit) var limit: Int?
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if [pages, page != nil, entries, objects].filter({ $0 }).count > 1 {
            throw ValidationError("--pages, --page, --entries and --objects are exclusive")
        }
        if !objects {
            if type != nil { throw ValidationError("--type needs --objects") }
            if limit != nil { throw ValidationError("--limit needs --objects") }
        } else if tree != nil {
            throw ValidationError("--tree and --objects are exclusive (--type picks an object type)")
        }
        if hex && !entries { throw ValidationError("--hex needs --entries") }
    }

    func run() throws {
        var options = Dump.Options(path: file)
        options.version = version
        options.tree = tree
        if let page { return try showPage(page) }
        if objects { return try showObjects() }
        if entries {
            let summary = try Dump.entries(options, hex: hex, json: common.json) { (line) throws(ToolError) in try Console.write(line) }
            common.note(summary.note)
            if common.showProgress { Console.note("\(Human.grouped(summary.entries)) entries from \(summary.trees) tree(s) of version \(summary.version)") }
            return
        }
        if pages {
            let report = try Dump.pages(options)
            common.note(report.note)
            if common.json { return try Console.json(report) }
            try Console.line("PAGE      TREE             TYPE      LEVEL COUNT  FILL    BIRTH   FIRST KEY … LAST KEY")
            for p in report.pages {
                let keys = p.firstKey.map { "\($0) … \(p.lastKey ?? "")" } ?? ""
                try Console.line("\(String(p.page).padding(9)) \(p.treeKind.label(p.tree).padding(16)) \(p.type.description.padding(9)) \(String(p.level).padding(5)) \(String(p.count).padding(6)) \((Human.oneDecimal(p.fillPercent) + "%").padding(7)) \(String(p.birth).padding(7)) \(keys)")
            }
            return
        }
        let report = try Dump.structure(options)
        common.note(report.note)
        if common.json { return try Console.json(report) }
        try Console.line("\(file): version \(report.version), page size \(report.pageSize)")
        for t in report.trees {
            try Console.line("tree \(t.kind.label(t.name)): \(Human.grouped(t.entries)) entries, depth \(t.depth)\(t.overflowPages > 0 ? ", \(t.overflowPages) overflow pages" : "")")
            if let first = t.firstKey { try Console.line("  keys \(first) … \(t.lastKey ?? "")") }
            for level in t.levels {
                try Console.line("  level \(level.level) \(level.level == 0 ? "(leaves)  " : "(branches)"): \(Human.grouped(level.pages)) pages, \(Human.grouped(level.cells)) cells, \(Human.oneDecimal(level.fillPercent))% full")
            }
        }
    }

    private func showObjects() throws {
        var options = ObjectDump.Options(path: file)
        options.version = version
        options.type = type
        options.limit = limit
        let summary = try ObjectDump.run(options, type: { stored in
            guard !common.json else { return }
            let key = stored.primaryKey.map { "primary key \($0)" } ?? "generated keys"
            let shown = limit.map { UInt64($0) < stored.objects ? ", showing \($0)" : "" } ?? ""
            try Console.line("\(stored.name): \(Human.grouped(stored.objects)) object\(stored.objects == 1 ? "" : "s") (\(key)\(shown))")
        }, object: { object in
            try Console.line(common.json ? ObjectText.json(object) : "  " + ObjectText.text(object))
        })
        common.note(summary.note)
        if summary.types == 0, !common.json { try Console.line("\(file): version \(summary.version) stores no objects") }
        if common.showProgress {
            Console.note("\(Human.grouped(summary.objects)) objects of \(summary.types) type(s) from version \(summary.version)")
        }
    }

    private func showPage(_ number: UInt64) throws {
        let p = try Dump.page(file, number: number)
        if common.json { return try Console.json(p) }
        let type = p.kind == .commitSlot ? "" : " (type byte \(p.typeByte))"
        try Console.line("page \(p.page) of \(file): \(p.kind.rawValue)\(type), checksum \(p.checksumOK ? "ok" : "BAD")")
        if let record = p.commitRecord {
            try Console.line("  commit record: version \(record.version), page size \(record.pageSize), \(record.logicalPageCount) pages, committed \(Units.iso8601(nanoseconds: record.timestampNanoseconds))")
            try Console.line("  catalog root \(record.catalogRoot), space root \(record.spaceRoot)")
            try Console.line("  free pages \(record.freePages), retired pages \(record.retiredPages), bytes written \(record.bytesWritten)")
        }
        if let problem = p.slotProblem { try Console.line("  slot: \(problem)") }
        if let level = p.level, let count = p.count {
            try Console.line("  level \(level), \(count) entries, self page \(p.storedPageNumber ?? 0), birth \(p.birth ?? 0), used \(p.usedBytes ?? 0) of \(p.pageSize) bytes")
            try Console.line("  checksum stored \(p.storedChecksum ?? "?"), computed \(p.computedChecksum ?? "?")")
        }
        if let length = p.payloadLength { try Console.line("  overflow payload \(length) bytes, next \(p.next?.description ?? "none")") }
        for e in p.entries {
            if let child = e.child {
                try Console.line("  [\(e.index)] \(e.index == 0 ? "(lowest)" : e.key) → \(child)")
            } else if let overflow = e.overflow {
                try Console.line("  [\(e.index)] \(e.key) = \(e.valueLength ?? 0) bytes in overflow chain at \(overflow)")
            } else {
                try Console.line("  [\(e.index)] \(e.key) = \(e.value ?? "")\((e.valueLength ?? 0) > UInt64(64) ? " … (\(e.valueLength ?? 0) bytes)" : "")")
            }
        }
        for problem in p.problems { try Console.line("  problem: \(problem)") }
    }
}
