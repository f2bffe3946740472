import FirnTestSupport
import Foundation

/// The repository's Swift sources, for the tests that hold a rule over
/// all of them (one clock, one system-call layer).
enum SourceFiles {
    /// Every `.swift` file under `directories` (relative to the
    /// repository's root), with its path from the root and its text.
    static func swift(in directories: [String]) throws -> [(path: String, text: String)] {
        var out: [(String, String)] = []
        for directory in directories {
            let root = Repository.root + "/" + directory
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            for case let name as String in walker where name.hasSuffix(".swift") {
                out.append((directory + "/" + name, try String(contentsOfFile: root + "/" + name, encoding: .utf8)))
            }
        }
        return out
    }
}
