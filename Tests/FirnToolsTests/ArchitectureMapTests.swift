import FirnTestSupport
import Foundation
import Testing

/// docs/ARCHITECTURE.md names the code a newcomer follows (the two walks,
/// the main types, where to change what). A name that no longer exists is
/// how a map goes stale unnoticed: every `Type`, `Type.member` and file it
/// names in backticks must be in the repository.
@Suite struct ArchitectureMapTests {
    /// Names the map uses that live outside the repository (Swift,
    /// Foundation, ArgumentParser, the C library) or are not code.
    static let external: Set<String> = [
        "Data", "Date", "NSCondition", "ParsableCommand", "Package",
    ]

    struct Declarations {
        var types: Set<String> = []
        var members: Set<String> = ["init"]
        /// File names without `.swift`, and every directory's name.
        var fileNames: Set<String> = []
        var paths: Set<String> = []
    }

    static func declarations() throws -> Declarations {
        var found = Declarations()
        let typePattern = try NSRegularExpression(
            pattern: #"\b(?:class|struct|enum|protocol|actor|typealias|extension)\s+([A-Z][A-Za-z0-9_]*)"#)
        let memberPattern = try NSRegularExpression(pattern: #"\b(?:func|var|let|case)\s+`?([a-z_][A-Za-z0-9_]*)"#)
        for (path, text) in try SourceFiles.swift(in: ["Sources", "Tests", "Benchmarks/Sources"]) {
            found.paths.insert(path)
            var components = path.split(separator: "/").map(String.init)
            if let last = components.popLast() { found.fileNames.insert(String(last.dropLast(".swift".count))) }
            for (index, directory) in components.enumerated() {
                found.fileNames.insert(directory)
                found.paths.insert(components[...index].joined(separator: "/") + "/")
            }
            let range = NSRange(text.startIndex..., in: text)
            for match in typePattern.matches(in: text, range: range) {
                if let name = Range(match.range(at: 1), in: text) { found.types.insert(String(text[name])) }
            }
            for match in memberPattern.matches(in: text, range: range) {
                if let name = Range(match.range(at: 1), in: text) { found.members.insert(String(text[name])) }
            }
        }
        return found
    }

    /// What in `token` (one backticked span) is not in the repository; nil
    /// when all of it is, or when it is not a name of code.
    static func missing(_ token: String, in found: Declarations) -> String? {
        if token.contains("<") || token.contains(" ") && !token.contains("(") { return nil }
        if token.hasSuffix(".swift") {
            if token.contains("/") {
                return found.paths.contains(where: { $0 == token || $0.hasSuffix("/" + token) }) ? nil : "no file \(token)"
            }
            return found.fileNames.contains(String(token.dropLast(".swift".count)))
                || FileManager.default.fileExists(atPath: Repository.root + "/" + token) ? nil : "no file \(token)"
        }
        if token.hasSuffix("/") {
            let root = Repository.root + "/" + token
            return found.paths.contains(where: { $0 == token || $0.hasSuffix("/" + token) })
                || FileManager.default.fileExists(atPath: root) ? nil : "no directory \(token)"
        }
        // `Type`, `Type.member`, `Type.member(label:)`: the name before any arguments.
        let name = token.split(separator: "(", maxSplits: 1).first.map(String.init) ?? token
        let parts = name.split(separator: ".").map(String.init)
        guard let first = parts.first, first.first?.isUppercase == true,
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber } }) else { return nil }
        for part in parts {
            if part.first?.isUppercase == true {
                // A module of C sources (`CLZ4`) has no Swift file to find it by.
                let module = FileManager.default.fileExists(atPath: Repository.root + "/Sources/" + part)
                guard found.types.contains(part) || found.fileNames.contains(part) || module || external.contains(part) else {
                    return "no type, file or module \(part)"
                }
            } else if !found.members.contains(part) {
                return "no member \(part)"
            }
        }
        return nil
    }

    @Test func everyNameTheMapUsesExists() throws {
        let map = try String(contentsOfFile: Repository.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        let found = try Self.declarations()
        #expect(found.types.contains("CommitLog") && found.members.contains("writeKeptFrames"))
        var checked = 0
        for piece in map.split(separator: "`", omittingEmptySubsequences: false).enumerated()
        where piece.offset % 2 == 1 && !piece.element.contains("\n") {
            let token = String(piece.element)
            if let problem = Self.missing(token, in: found) {
                Issue.record("docs/ARCHITECTURE.md names `\(token)`: \(problem)")
            }
            checked += 1
        }
        #expect(checked > 300)
    }

    /// The check itself: a renamed type, a removed member and a moved file
    /// are each reported; a name of code that exists is not.
    @Test func aStaleNameIsReported() throws {
        let found = try Self.declarations()
        #expect(Self.missing("CommitLog.seal", in: found) == nil)
        #expect(Self.missing("Sources/FirnCore/Log/CommitLog.swift", in: found) == nil)
        #expect(Self.missing("Store.sealLog", in: found) == "no member sealLog")
        #expect(Self.missing("LockFile.setBeforeWriterByteRelease", in: found) == "no member setBeforeWriterByteRelease")
        #expect(Self.missing("StoreLog", in: found) == "no type, file or module StoreLog")
        #expect(Self.missing("Sources/FirnCore/Transactions/CommitLog.swift", in: found) != nil)
    }
}
