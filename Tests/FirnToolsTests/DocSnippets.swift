import Foundation

/// The Swift code of the documents and where it is compiled: every ```swift
/// block of a document must be, line for line, one region of the Examples
/// package's sources between `// snippet: NAME` and `// snippet end` (the
/// code around a region supplies what the snippet takes for granted), so a
/// snippet cannot stop compiling, or drift from the code that runs, unseen.
enum DocSnippets {
    /// A ```swift block of a document, normalized.
    struct Block {
        let document: String
        /// The line of its opening fence, from 1.
        let line: Int
        let text: String

        var firstLine: String { text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? "" }
        var place: String { "\(document):\(line) (the ```swift block starting `\(firstLine)`)" }
    }

    /// A marked region of a source file, normalized.
    struct Region {
        let name: String
        let file: String
        /// The line of its `// snippet:` marker, from 1.
        let line: Int
        let text: String

        var place: String { "region \(name) (\(file):\(line))" }
    }

    /// Why a document or a source cannot be read as blocks or regions.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static let startMarker = "// snippet:"
    static let endMarker = "// snippet end"

    /// Lines as the comparison sees them: trailing whitespace dropped, blank
    /// lines at either end dropped, the indentation all lines share removed
    /// (a block in a list item and a region inside a function still match).
    static func normalized<S: StringProtocol>(_ lines: [S]) -> String {
        var trimmed = lines.map { line -> String in
            var line = String(line)
            while let last = line.last, last.isWhitespace { line.removeLast() }
            return line
        }
        while trimmed.first?.isEmpty == true { trimmed.removeFirst() }
        while trimmed.last?.isEmpty == true { trimmed.removeLast() }
        let indent = trimmed.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return trimmed.map { $0.isEmpty ? $0 : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }

    /// The ```swift blocks of a Markdown document. Blocks of other languages
    /// (```sh, ```text, none) are skipped whole.
    static func swiftBlocks(in markdown: String, document: String) throws -> [Block] {
        var blocks: [Block] = []
        var open: (line: Int, language: String, lines: [Substring])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.drop { $0 == " " }
            guard content.hasPrefix("```") else {
                open?.lines.append(line)
                continue
            }
            if let block = open {
                guard content.trimmingCharacters(in: .whitespaces) == "```" else {
                    open?.lines.append(line)
                    continue
                }
                if block.language == "swift" {
                    blocks.append(Block(document: document, line: block.line, text: normalized(block.lines)))
                }
                open = nil
            } else {
                open = (index + 1, content.dropFirst(3).trimmingCharacters(in: .whitespaces), [])
            }
        }
        if let open { throw Malformed(description: "\(document):\(open.line): a ``` fence is never closed") }
        return blocks
    }

    /// The marked regions of one source file.
    static func regions(in source: String, file: String) throws -> [Region] {
        var regions: [Region] = []
        var open: (name: String, line: Int, lines: [Substring])?
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.trimmingCharacters(in: .whitespaces)
            if content == endMarker {
                guard let region = open else { throw Malformed(description: "\(file):\(index + 1): `\(endMarker)` without a start") }
                regions.append(Region(name: region.name, file: file, line: region.line, text: normalized(region.lines)))
                open = nil
            } else if content.hasPrefix(startMarker) {
                if let region = open {
                    throw Malformed(description: "\(file):\(index + 1): a snippet starts inside \(region.name), which has no end")
                }
                let name = content.dropFirst(startMarker.count).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { throw Malformed(description: "\(file):\(index + 1): a snippet without a name") }
                open = (name, index + 1, [])
            } else {
                open?.lines.append(line)
            }
        }
        if let open { throw Malformed(description: "\(file):\(open.line): snippet \(open.name) has no `\(endMarker)`") }
        return regions
    }

    /// The marked regions of every Swift file under `directory` (build
    /// directories and other hidden ones skipped), files named relative to
    /// `root`.
    static func regions(under directory: String, root: String) throws -> [Region] {
        guard let walk = FileManager.default.enumerator(at: URL(fileURLWithPath: directory),
                                                        includingPropertiesForKeys: nil,
                                                        options: [.skipsHiddenFiles]) else {
            throw Malformed(description: "\(directory): cannot be listed")
        }
        var files: [String] = []
        for case let url as URL in walk where url.pathExtension == "swift" {
            files.append(url.path)
        }
        return try files.sorted().flatMap { path in
            let relative = path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
            return try regions(in: String(contentsOfFile: path, encoding: .utf8), file: relative)
        }
    }

    /// Every way the blocks and the regions fail to be one and the same
    /// code: a block equal to no region (named with the closest region and
    /// its first differing line) or to several, a region in no document, a
    /// name given to two regions.
    static func problems(blocks: [Block], regions: [Region]) -> [String] {
        var problems: [String] = []
        var seen: [String: Region] = [:]
        for region in regions {
            if let first = seen[region.name] {
                problems.append("\(region.place) has the name of \(first.place)")
            }
            seen[region.name] = region
        }
        for block in blocks {
            let equal = regions.filter { $0.text == block.text }
            if equal.count > 1 {
                problems.append("\(block.place) is \(equal.count) regions: \(equal.map(\.place).joined(separator: ", ")); keep one")
            } else if equal.isEmpty {
                problems.append("\(block.place) matches no region of Examples/: \(difference(of: block, from: regions))")
            }
        }
        for region in regions where !blocks.contains(where: { $0.text == region.text }) {
            problems.append("\(region.place) is in no document: a document's block that was this region was edited or removed")
        }
        return problems
    }

    /// What separates a block from the region most like it.
    static func difference(of block: Block, from regions: [Region]) -> String {
        let lines = block.text.split(separator: "\n", omittingEmptySubsequences: false)
        let nearest = regions.max { a, b in shared(lines, a) < shared(lines, b) }
        guard let region = nearest, shared(lines, region) > 0 else {
            return "no region shares a line with it; mark its code in a source of Examples/ with `\(startMarker) NAME` … `\(endMarker)`"
        }
        let other = region.text.split(separator: "\n", omittingEmptySubsequences: false)
        let at = zip(lines, other).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(lines.count, other.count)
        let documentLine = at < lines.count ? "`\(lines[at])`" : "nothing (the block ends)"
        let sourceLine = at < other.count ? "`\(other[at])`" : "nothing (the region ends)"
        return "the closest is \(region.place); at line \(at + 1) of the snippet the document has \(documentLine), the source \(sourceLine)"
    }

    /// How many of `lines` the region has too.
    private static func shared(_ lines: [Substring], _ region: Region) -> Int {
        let theirs = Set(region.text.split(separator: "\n"))
        return lines.filter { !$0.isEmpty && theirs.contains($0) }.count
    }
}
