import ExampleSupport
import Firn
import Foundation

// Runs each of the reference documents' examples on a fresh database in a
// temporary directory; prints one line per example and exits 1 if any
// did not do what the documents say.
let examples: [Example] = [
    FrozenObjects.freezeAndThaw,
    FrozenObjects.thawThenAppend,
    FrozenObjects.cachingFrozenObjects,
    Threading.serialQueue,
    Threading.threadSafeReference,
    Threading.threadSafeWrapper,
]

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("firn-examples-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

var failures = 0
for (index, example) in examples.enumerated() {
    let configuration = Configuration(path: "\(directory)/example-\(index).firn", objectTypes: [Dog.self, Person.self])
    do {
        try example.run(configuration)
        print("ok    \(example.name)")
    } catch {
        failures += 1
        print("FAIL  \(example.name): \(error)")
    }
}
try? FileManager.default.removeItem(atPath: directory)
print(failures == 0 ? "\(examples.count) examples ran as the documents say" : "\(failures) of \(examples.count) examples failed")
if failures > 0 { exit(1) }
