import FirnTestSupport
import Foundation
import Testing

/// The committed man pages and completion scripts match the binary: they
/// are generated from `firn --experimental-dump-help` and
/// `firn --generate-completion-script`, so comparing those outputs with the
/// committed files catches every stale one. Regenerate with `make docs`.
/// The documents' Swift snippets are the Examples package's marked regions.
@Suite struct DocsTests {
    static func committed(_ path: String) throws -> String {
        try String(contentsOfFile: Repository.root + "/" + path, encoding: .utf8)
    }

    @Test(arguments: [("bash", "completions/firn.bash"), ("zsh", "completions/_firn"), ("fish", "completions/firn.fish")])
    func completionScriptIsCurrent(_ shell: String, _ path: String) throws {
        let run = try FirnRun.run(["--generate-completion-script", shell])
        #expect(run.status == 0)
        #expect(run.stdout == (try Self.committed(path)), "\(path) is stale: run `make docs` and commit the result")
    }

    @Test func manPagesAreGeneratedFromTheCurrentHelp() throws {
        let run = try FirnRun.run(["--experimental-dump-help"])
        #expect(run.status == 0)
        #expect(run.stdout == (try Self.committed("man/.help.json")),
                "man/ is stale (the help it was generated from changed): run `make docs` and commit the result")
        let pages = try FileManager.default.contentsOfDirectory(atPath: Repository.root + "/man").filter { $0.hasSuffix(".1") }
        for command in ["info", "versions", "pins", "growth", "dump", "load", "verify", "compact", "export", "import", "hold", "demo"] {
            #expect(pages.contains("firn.\(command).1"), "man/firn.\(command).1 is missing: run `make docs`")
        }
        #expect(pages.contains("firn.1"))
    }

    // MARK: the documents' Swift snippets

    /// The documents whose ```swift blocks must compile and run.
    static let snippetDocuments = ["README.md", "docs/SDK.md"]

    static func snippetBlocks() throws -> [DocSnippets.Block] {
        try snippetDocuments.flatMap { try DocSnippets.swiftBlocks(in: committed($0), document: $0) }
    }

    static func snippetRegions() throws -> [DocSnippets.Region] {
        try DocSnippets.regions(under: Repository.root + "/Examples", root: Repository.root)
    }

    /// Every ```swift block of README.md and docs/SDK.md is exactly one
    /// marked region of the Examples package, and every region is in a
    /// document: `make examples` compiles the regions in Swift 6 mode and
    /// runs them (doc-snippets), so the documents show code that builds and
    /// does what they say. A block edited in a document and not in its
    /// region (or the other way round) fails here, naming the document, the
    /// block's first line and the first line that differs (the next test
    /// makes sure of it). Output that is not Swift goes in ```text or ```sh.
    @Test func everySwiftSnippetIsAMarkedRegionOfTheExamples() throws {
        let blocks = try Self.snippetBlocks()
        let regions = try Self.snippetRegions()
        #expect(!blocks.isEmpty && !regions.isEmpty)
        for problem in DocSnippets.problems(blocks: blocks, regions: regions) {
            Issue.record(Comment(rawValue: problem))
        }
    }

    /// The check above fails when a document's block changes alone, and when
    /// a region changes alone: a check that passed whatever the documents
    /// said would keep nothing from drifting.
    @Test func aSnippetEditedOnOneSideFailsTheCheck() throws {
        let regions = try Self.snippetRegions()
        let readme = try Self.committed("README.md")
        let readmeBlocks = try DocSnippets.swiftBlocks(in: readme, document: "README.md")
        let block = try #require(readmeBlocks.first)
        let line = try #require(block.text.split(separator: "\n").last { $0.contains("(") })
        let editedReadme = readme.replacingOccurrences(of: line, with: line.replacingOccurrences(of: "(", with: "( "))
        let editedBlocks = try DocSnippets.swiftBlocks(in: editedReadme, document: "README.md")
            + (try DocSnippets.swiftBlocks(in: Self.committed("docs/SDK.md"), document: "docs/SDK.md"))
        let problems = DocSnippets.problems(blocks: editedBlocks, regions: regions)
        #expect(problems.contains { $0.hasPrefix("README.md:\(block.line) (the ```swift block starting `\(block.firstLine)`)") && $0.contains("( ") },
                "an edited README block was not reported: \(problems)")

        let region = try #require(regions.first)
        let editedRegions = regions.map { $0.name == region.name ? DocSnippets.Region(name: $0.name, file: $0.file, line: $0.line, text: $0.text + "\n// edited") : $0 }
        let fromRegions = DocSnippets.problems(blocks: try Self.snippetBlocks(), regions: editedRegions)
        #expect(fromRegions.contains { $0.contains("region \(region.name)") }, "an edited region was not reported: \(fromRegions)")
    }

    /// doc-snippets runs every region it compiles: each region's name is in
    /// its list, but the manifest's (building the package checks that one).
    @Test func theSnippetProgramRunsEveryRegion() throws {
        let driver = try Self.committed("Examples/Sources/doc-snippets/main.swift")
        let runnable = try Self.snippetRegions().filter { $0.file != "Examples/Package.swift" }
        let named = runnable.filter { region in
            // A region is named in the list either as a program's name or by
            // the `name:` its own snippet gives, in its file.
            driver.contains("\"\(region.name)\"")
                || ((try? Self.committed(region.file))?.contains("name: \"\(region.name)\"") == true
                    && driver.contains(Self.enclosingType(of: region)))
        }
        #expect(named.count == runnable.count,
                "doc-snippets does not run \(runnable.filter { r in !named.contains { $0.name == r.name } }.map(\.place))")
    }

    /// The snippet's type in doc-snippets, `Name.snippet` (its file's name).
    static func enclosingType(of region: DocSnippets.Region) -> String {
        URL(fileURLWithPath: region.file).deletingPathExtension().lastPathComponent + ".snippet"
    }
}
