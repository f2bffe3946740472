import Firn
import FirnTools
import Foundation

/// The tour's second process: a dashboard that caches frozen results —
/// every dog, sorted by name, as the documents' reactive apps do — and
/// keeps them while the first process commits. The cached objects count on
/// the version's `frozen` pin, so `firn pins` names this process, its
/// frozen objects and the bytes the version keeps in the file.
package final class FrozenCache {
    package struct Report: Codable, Sendable {
        package var path: String
        package var version: UInt64
        package var pid: Int32
        package var frozenObjects: Int
    }

    /// One cached dog as the application reads it (its frozen object).
    package struct CachedDog: Codable, Sendable, Equatable, Hashable {
        package var id: Int
        package var name: String
        package var age: Int
    }

    package let report: Report
    private var cached: [Dog]

    /// What the application reads from the objects it keeps, in its order.
    package var cachedDogs: [CachedDog] { cached.map { CachedDog(id: $0.id, name: $0.name, age: $0.age) } }

    /// Opens `path`, freezes the dogs and keeps them; the live instance is
    /// closed before returning, so the frozen pin is the process's only one.
    package init(path: String) throws {
        let (version, cached) = try sdk(path) { () throws -> (UInt64, [Dog]) in
            let db = try Database(configuration: DemoModel.configuration(path))
            let frozen = try db.objects(Dog.self).sorted(byKeyPath: "name").freeze()
            return (db.version, Array(frozen))
        }
        self.cached = cached
        report = Report(path: path, version: version, pid: getpid(), frozenObjects: cached.count)
    }

    /// Drops the cached objects (the pin goes with the last of them).
    package func release() { cached = [] }
}
