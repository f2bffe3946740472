import Firn
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory for one test's database, removed at deinit.
final class Scratch: @unchecked Sendable {
    let path: String

    init() {
        var template = Array("\(NSTemporaryDirectory())/firn-sdk.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
        path = made.map { String(cString: $0) } ?? NSTemporaryDirectory()
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var file: String { path + "/test.firn" }

    func configuration(_ types: [Object.Type] = [Dog.self, Person.self, Everything.self, LogEntry.self]) -> Configuration {
        Configuration(path: file, objectTypes: types)
    }
}
