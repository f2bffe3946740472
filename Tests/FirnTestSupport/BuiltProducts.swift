import Foundation

/// The products built with the tests (`swift build --build-tests`): the
/// `firn` command, `firn-testkit` (the crash tests' child process) and
/// `firn-sdk-client` (an app on the SDK), next to the test bundle.
package enum BuiltProducts {
    /// The test bundle's directory (`/proc/self/exe`): the products built
    /// with the tests and their modules (`Modules/`); `.build/debug` under
    /// the current directory when it cannot be read.
    package static let directory: String = {
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return (exe as NSString).deletingLastPathComponent
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug"
    }()

    package static var firn: String { path(of: "firn") }
    /// `$FIRN_TESTKIT` when set.
    package static var testkit: String { path(of: "firn-testkit", override: "FIRN_TESTKIT") }
    package static var sdkClient: String { path(of: "firn-sdk-client") }

    /// The first of `$override`, `directory/name` and
    /// `.build/debug/name` under the current directory that is an
    /// executable file; `directory/name` when none is (starting it then
    /// fails with `ChildProcess.Failure.notExecutable`, naming it).
    package static func path(of name: String, override: String? = nil) -> String {
        var candidates: [String] = []
        if let override, let explicit = ProcessInfo.processInfo.environment[override] { candidates.append(explicit) }
        candidates.append(directory + "/" + name)
        candidates.append(FileManager.default.currentDirectoryPath + "/.build/debug/" + name)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? directory + "/" + name
    }
}
