import Foundation

/// The repository the tests were built from: for the tests that read its
/// documents (README, man pages, Examples) or hold a rule over its sources.
package enum Repository {
    /// The package's root.
    package static var root: String {
        // Tests/FirnTestSupport/Repository.swift → the package root.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }
}
