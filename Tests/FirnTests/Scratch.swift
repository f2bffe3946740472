import Firn
import FirnTestSupport

/// A fresh directory for one test's database: the shared
/// `TemporaryDirectory` (removed at deinit), with the SDK's file and
/// configuration in it.
typealias Scratch = TemporaryDirectory

extension TemporaryDirectory {
    /// A directory for the SDK tests, which make one in nearly every test
    /// (most of them not throwing): failing to make it stops the run.
    convenience init() {
        try! self.init(prefix: "firn-sdk")
    }

    /// The database file.
    var file: String { path + "/test.firn" }

    func configuration(_ types: [Object.Type] = [Dog.self, Person.self, Everything.self, LogEntry.self]) -> Configuration {
        Configuration(path: file, objectTypes: types)
    }
}
