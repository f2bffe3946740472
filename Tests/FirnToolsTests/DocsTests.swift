import Foundation
import Testing

/// The committed man pages and completion scripts match the binary: they
/// are generated from `firn --experimental-dump-help` and
/// `firn --generate-completion-script`, so comparing those outputs with the
/// committed files catches every stale one. Regenerate with `make docs`.
@Suite struct DocsTests {
    static var root: String {
        // Tests/FirnToolsTests/DocsTests.swift → the package root.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    static func committed(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
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
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/man").filter { $0.hasSuffix(".1") }
        for command in ["info", "versions", "pins", "growth", "dump", "load", "verify", "compact", "export", "import", "hold", "demo"] {
            #expect(pages.contains("firn.\(command).1"), "man/firn.\(command).1 is missing: run `make docs`")
        }
        #expect(pages.contains("firn.1"))
    }
}
