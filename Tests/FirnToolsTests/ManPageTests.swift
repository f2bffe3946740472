import FirnTestSupport
import Foundation
import Testing

/// The man pages as `man` shows them: rendered with groff (every warning a
/// failure), current with the binary, with ranges that keep their "…", an
/// EXIT STATUS of the command's own codes, and no hidden command in SEE
/// ALSO. `make deps` installs groff and man-db.
@Suite struct ManPageTests {
    static let directory = Repository.root + "/man"

    static func pages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".1") }.sorted()
    }

    static func page(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
    }

    /// `man` as a user runs it, on the committed page, at 100 columns.
    static func rendered(_ name: String) throws -> ChildProcess.Outcome {
        try ChildProcess.run("/usr/bin/env", ["man", "--warnings", "-E", "UTF-8", "-l", directory + "/" + name],
                             environment: ["LC_ALL": "C.UTF-8", "MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"])
    }

    @Test func committedPagesAreWhatTheBinaryGenerates() throws {
        let dir = try TemporaryDirectory()
        let run = try FirnRun.run(["--generate-manual", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let generated = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(generated == (try Self.pages()), "man/ is stale: run `make docs` and commit the result")
        for name in generated {
            let fresh = try String(contentsOfFile: dir.file(name), encoding: .utf8)
            #expect(fresh == (try Self.page(name)), "man/\(name) is stale: run `make docs` and commit the result")
        }
    }

    @Test func everyPageRendersWithoutAWarning() throws {
        for name in try Self.pages() {
            let groff = try ChildProcess.run("/usr/bin/env", ["groff", "-mandoc", "-ww", "-z", "-Tutf8", Self.directory + "/" + name])
            #expect(groff.status == 0 && groff.stderr.isEmpty, "groff on man/\(name) (install it: make deps): \(groff.stderr)")
            let man = try Self.rendered(name)
            #expect(man.status == 0 && man.stderr.isEmpty, "man on man/\(name) (install it: make deps): \(man.stderr)")
            #expect(!man.stdout.isEmpty, "man/\(name) renders empty")
        }
    }

    @Test func rangesKeepTheirEllipsisAndEachFlagItsOwnHelp() throws {
        let verify = try Self.rendered("firn.verify.1").stdout
        #expect(verify.contains("(1…1000000; default: 100)"), "\(verify)")
        #expect(verify.contains("(0…86400)"))
        let progress = verify.components(separatedBy: "--no-progress").dropFirst().joined()
        #expect(progress.contains("Show no progress"), "--no-progress repeats --progress's help:\n\(verify)")
        for name in try Self.pages() {
            let text = try Self.rendered(name).stdout
            #expect(!text.contains("086400") && !text.contains("11000000"), "man/\(name) lost a range's …")
        }
    }

    /// The section after "EXIT STATUS" up to the next section.
    static func exitStatus(_ rendered: String) -> [String] {
        let section = rendered.components(separatedBy: "\nEXIT STATUS\n").dropFirst().first ?? ""
        let body = section.components(separatedBy: "\n\n").prefix { !$0.hasPrefix("SEE ALSO") && !$0.hasPrefix("BSD") }
        return body.compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) }
    }

    @Test func exitStatusListsTheCommandsOwnCodes() throws {
        let verify = Self.exitStatus(try Self.rendered("firn.verify.1").stdout)
        #expect(verify == ["0", "64", "65", "66", "70", "74", "75"], "\(verify)")
        let load = try Self.rendered("firn.load.1").stdout
        #expect(Self.exitStatus(load).contains("130") && Self.exitStatus(load).contains("73"))
        #expect(load.contains("the batches committed stay"))
        let get = try Self.rendered("firn.get.1").stdout
        #expect(Self.exitStatus(get).contains("1") && get.contains("The key or the tree is absent"))
        let top = Self.exitStatus(try Self.rendered("firn.1").stdout)
        #expect(top == ["0", "1", "64", "65", "66", "70", "73", "74", "75", "130"], "\(top)")
        for name in try Self.pages() {
            #expect(!(try Self.page(name)).contains(".Ex -std"), "man/\(name) has the generic EXIT STATUS")
        }
    }

    @Test func seeAlsoNamesNoHiddenCommand() throws {
        let top = try Self.rendered("firn.1").stdout
        let seeAlso = top.components(separatedBy: "\nSEE ALSO\n").last ?? ""
        #expect(seeAlso.contains("firn.verify(1)") && seeAlso.contains("firn.get(1)"))
        #expect(!seeAlso.contains("demo-app"), "\(seeAlso)")
    }

    /// The README names the pages as they are installed (`man firn.verify`),
    /// each one it names exists, and its links stay inside the repository.
    @Test func readmeNamesThePagesThatExistAndLinksOnlyInside() throws {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        #expect(!readme.contains("man firn-"), "README names man pages firn-COMMAND; they are firn.COMMAND")
        let pages = try Self.pages()
        let named = readme.matches(of: /man (firn\.[a-z-]+)/).map { String($0.output.1) }
        #expect(!named.isEmpty)
        for name in named where name != "firn.COMMAND" {
            #expect(pages.contains(name + ".1"), "README names `man \(name)`, which is not in man/")
        }
        for link in readme.matches(of: /\]\(([^)#]+)(#[^)]*)?\)/).map({ String($0.output.1) }) where !link.contains("://") {
            let resolved = URL(fileURLWithPath: Repository.root + "/" + link).standardizedFileURL.path
            #expect(resolved.hasPrefix(Repository.root + "/"), "README links \(link), outside the repository")
            #expect(FileManager.default.fileExists(atPath: resolved), "README links \(link), which does not exist")
        }
    }
}
