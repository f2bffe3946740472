import FirnTestSupport
import Foundation
import Testing

/// The public API of the SDK (`Firn`) and the engine (`FirnCore`) is what the
/// README lists, no more and no less. The list is read from the modules
/// built with these tests by `swift-symbolgraph-extract` (the compiler's own
/// account of what an app can call), so a declaration made `public` by
/// accident — or an internal type leaking through a public signature —
/// fails here until it is either listed, on purpose, or made `package`.
@Suite struct PublicAPITests {
    /// Why the symbols could not be read from the built modules.
    struct ExtractionFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// The public symbols of both modules, extracted once for the suite's
    /// tests (each extraction runs the compiler's module loader).
    static let built: Result<[String: Set<String>], any Error> = Result {
        let scratch = Scratch()
        let info = try ChildProcess.run("/usr/bin/env", ["swiftc", "-print-target-info"], timeout: .seconds(60))
        guard let data = info.stdout.data(using: .utf8),
              let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let target = json["target"] as? [String: Any], let triple = target["triple"] as? String
        else { throw ExtractionFailed(description: "swiftc -print-target-info gave no target triple: \(info.stdout) \(info.stderr)") }
        var symbols: [String: Set<String>] = [:]
        for module in ["Firn", "FirnCore"] {
            symbols[module] = try publicSymbols(of: module, triple: triple, scratch: scratch)
        }
        return symbols
    }

    /// Every public symbol declared in `module`'s sources: a type as `Type`,
    /// a member as `Type.member` (nested: `Type.Inner.member`). Symbols the
    /// compiler synthesizes or inherits (`!=` from Equatable…) carry no
    /// source location and are left out; overloads collapse into one name.
    static func publicSymbols(of module: String, triple: String, scratch: Scratch) throws -> Set<String> {
        let build = BuiltProducts.directory
        let run = try ChildProcess.run("/usr/bin/env", [
            "swift-symbolgraph-extract", "-module-name", module, "-target", triple,
            "-I", build + "/Modules",
            "-Xcc", "-fmodule-map-file=\(build)/CFirnShims.build/module.modulemap",
            "-minimum-access-level", "public", "-output-dir", scratch.path,
        ], timeout: .seconds(120))
        guard run.status == 0 else {
            throw ExtractionFailed(description: "swift-symbolgraph-extract \(module) exited \(run.status): \(run.stderr)")
        }
        var symbols = Set<String>()
        // `Module.symbols.json` plus `Module@Other.symbols.json` for members
        // the module adds to other modules' types.
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
            .filter { $0 == "\(module).symbols.json" || $0.hasPrefix("\(module)@") }
        for file in files {
            let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path + "/" + file)))
            let entries = (graph as? [String: Any])?["symbols"] as? [[String: Any]] ?? []
            for entry in entries where entry["location"] != nil {
                guard let path = entry["pathComponents"] as? [String], let type = path.first else { continue }
                symbols.insert(type)
                if path.count > 1 { symbols.insert(path.joined(separator: ".")) }
            }
        }
        return symbols
    }

    /// The README's list for `module`: the lines between
    /// `<!-- public API: module -->` and `<!-- end public API -->`, each
    /// "- `Type`: `member`, `member`…".
    static func listedSymbols(of module: String) throws -> Set<String>? {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        guard let start = readme.range(of: "<!-- public API: \(module) -->"),
              let end = readme.range(of: "<!-- end public API -->", range: start.upperBound..<readme.endIndex)
        else { return nil }
        var listed = Set<String>()
        for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("- `") {
            let names = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            guard let type = names.first else { continue }
            listed.insert(type)
            for member in names.dropFirst() { listed.insert(type + "." + member) }
        }
        return listed
    }

    @Test(arguments: ["Firn", "FirnCore"])
    func theReadmeListsThePublicAPI(module: String) throws {
        let built = try #require(try Self.built.get()[module])
        #expect(built.count > 20, "the symbol graph of \(module) looks empty: \(built.sorted())")
        guard let listed = try Self.listedSymbols(of: module) else {
            Issue.record("README.md has no `<!-- public API: \(module) -->` … `<!-- end public API -->` list")
            return
        }
        let unlisted = built.subtracting(listed).sorted()
        let gone = listed.subtracting(built).sorted()
        #expect(unlisted.isEmpty, """
            public in \(module) but not in the README's list (list it on purpose, or make it `package`): \
            \(unlisted.joined(separator: ", "))
            """)
        #expect(gone.isEmpty, "in the README's \(module) list but not public in the built module: \(gone.joined(separator: ", "))")
    }

    /// The check can fail: a symbol missing from the list, or listed but not
    /// built, is reported (the same comparison on a list with one line cut
    /// and one line added).
    @Test func aListThatDiffersIsReported() throws {
        let built = try #require(try Self.built.get()["FirnCore"])
        let listed = try #require(try Self.listedSymbols(of: "FirnCore"))
        #expect(built.contains("Store.open(_:options:)"))
        #expect(!built.contains("LockFile"), "the lock file's API is the package's, not an app's")
        var edited = listed
        edited.remove("Store.open(_:options:)")
        edited.insert("Store.publish(version:durable:)")
        #expect(built.subtracting(edited) == ["Store.open(_:options:)"])
        #expect(edited.subtracting(built) == ["Store.publish(version:durable:)"])
    }
}
