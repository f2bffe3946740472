/// The entries text format that `dump --entries` writes and `load` reads:
/// one entry per line, three tab-separated fields — tree name, key, value —
/// each either `"text"` (UTF-8 with `\\ \" \t \n \r \xHH` escapes) or
/// `x` followed by hex digits. A line with the tree name alone names a tree
/// that has no entries (so an empty tree survives a dump and load). Lines
/// starting with `#` and empty lines are ignored. When every entry goes
/// into one tree (`load --tree`), a line may also be two fields, key and
/// value: the tree it would name is given.
///
/// ```
/// # firn entries 1
/// "users"	"alice"	"{\"age\": 31}"
/// "blobs"	x0001	x89504e47
/// "drafts"
/// ```
package enum EntryCodec {
    package static let header = "# firn entries 1"

    package struct Entry: Sendable, Equatable {
        package var tree: String
        package var key: [UInt8]
        package var value: [UInt8]
        package init(tree: String, key: [UInt8], value: [UInt8]) {
            self.tree = tree
            self.key = key
            self.value = value
        }
    }

    /// One line of the format.
    package enum Line: Sendable, Equatable {
        case entry(Entry)
        /// A tree with no entries.
        case emptyTree(String)
    }

    package static func encode(tree: String, key: some Collection<UInt8>, value: some Collection<UInt8>, hex: Bool) -> String {
        ByteText.field(Array(tree.utf8)) + "\t" + ByteText.field(key, hex: hex) + "\t" + ByteText.field(value, hex: hex)
    }

    /// The line of a tree without entries.
    package static func encode(emptyTree tree: String) -> String { ByteText.field(Array(tree.utf8)) }

    /// One line of the format (without its newline); `hex` spells keys and values in hex.
    package static func encode(_ line: Line, hex: Bool) -> String {
        switch line {
        case let .entry(entry): encode(tree: entry.tree, key: entry.key, value: entry.value, hex: hex)
        case let .emptyTree(name): encode(emptyTree: name)
        }
    }

    /// The fields a line may have.
    package struct Fields: Sendable {
        /// Every entry goes into this tree: two fields (key, value) are an
        /// entry of it, as well as the three of the dump format.
        package var intoTree: String?
        package init(intoTree: String? = nil) { self.intoTree = intoTree }
    }

    /// Decodes one line; nil for comments and blank lines. Throws a usage
    /// error naming the line for anything malformed.
    package static func decode(_ line: Substring, lineNumber: Int, source: String,
                               fields accepted: Fields = Fields()) throws(ToolError) -> Line? {
        var text = line
        if text.last == "\r" { text = text.dropLast() }
        if text.isEmpty || text.first == "#" { return nil }
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
        if let tree = accepted.intoTree, fields.count == 2 {
            guard let key = ByteText.parse(fields[0]) else {
                throw ToolError.corruptInput(path: source, detail: "line \(lineNumber): the key is not \"text\" or x<hex>")
            }
            guard let value = ByteText.parse(fields[1]) else {
                throw ToolError.corruptInput(path: source, detail: "line \(lineNumber): the value is not \"text\" or x<hex>")
            }
            return .entry(Entry(tree: tree, key: key, value: value))
        }
        guard fields.count == 3 || fields.count == 1 else {
            let expected = accepted.intoTree == nil ? "3 tab-separated fields (tree, key, value) or a tree name alone"
                : "2 tab-separated fields (key, value), 3 (tree, key, value) or a tree name alone"
            throw ToolError.corruptInput(path: source, detail: "line \(lineNumber): expected \(expected), found \(fields.count)")
        }
        guard let name = ByteText.parse(fields[0]), let tree = String(validating: name, as: UTF8.self) else {
            throw ToolError.corruptInput(path: source, detail: "line \(lineNumber): the tree name is not a valid field")
        }
        if fields.count == 1 { return .emptyTree(tree) }
        guard let key = ByteText.parse(fields[1]) else {
            throw ToolError.corruptInput(path: source, detail: "line \(lineNumber): the key is not \"text\" or x<hex>")
        }
        guard let value = ByteText.parse(fields[2]) else {
            throw ToolError.corruptInput(path: source, detail: "line \(lineNumber): the value is not \"text\" or x<hex>")
        }
        return .entry(Entry(tree: tree, key: key, value: value))
    }
}
