import Firn
import Foundation

/// The seeds' Person and Dog, adapted: a dog links to its owner, a person
/// lists their dogs (`ownerID` is the first slice's stand-in for a link).
final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var ownerID: UUID?
    @Persisted var owner: Person?
}

final class Person: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var name = ""
    @Persisted(indexed: true) var city: String?
    @Persisted var dogs = List<Dog>()
    @Persisted var nicknames = List<String>()
    @Persisted var bestFriend: Person?
}

/// Every property type, optional and not.
final class Everything: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var double = 0.0
    @Persisted var float: Float = 0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var uuid = UUID()
    @Persisted var optionalBool: Bool?
    @Persisted var optionalInt: Int?
    @Persisted var optionalInt8: Int8?
    @Persisted var optionalInt16: Int16?
    @Persisted var optionalInt32: Int32?
    @Persisted var optionalInt64: Int64?
    @Persisted var optionalDouble: Double?
    @Persisted var optionalFloat: Float?
    @Persisted var optionalString: String?
    @Persisted var optionalData: Data?
    @Persisted var optionalDate: Date?
    @Persisted var optionalUUID: UUID?
}

/// A type without a primary key: keys are generated.
final class LogEntry: Object {
    @Persisted var message = ""
    @Persisted var level: Int8 = 0
}

/// Two primary keys: cannot be stored.
final class TwoKeys: Object {
    @Persisted(primaryKey: true) var a = 0
    @Persisted(primaryKey: true) var b = 0
}

/// Lists of every scalar type, optional and not; a type without a primary key.
final class Bag: Object {
    @Persisted var label = ""
    @Persisted var bools = List<Bool>()
    @Persisted var ints = List<Int>()
    @Persisted var int8s = List<Int8>()
    @Persisted var int16s = List<Int16>()
    @Persisted var int32s = List<Int32>()
    @Persisted var int64s = List<Int64>()
    @Persisted var doubles = List<Double>()
    @Persisted var floats = List<Float>()
    @Persisted var strings = List<String>()
    @Persisted var datas = List<Data>()
    @Persisted var dates = List<Date>()
    @Persisted var uuids = List<UUID>()
    @Persisted var optionalInts = List<Int?>()
    @Persisted var optionalStrings = List<String?>()
    @Persisted var logs = List<LogEntry>()
}

/// A link that is not optional: cannot be stored (it could not read nil).
final class RequiredLink: Object {
    @Persisted var owner = Person()
}

/// A list of optional objects: cannot be stored.
final class OptionalObjects: Object {
    @Persisted var dogs = List<Dog?>()
}

/// Same name as a stored type but a different property type (see the schema test).
enum Renamed {
    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = ""
        @Persisted var ownerID: UUID?
        @Persisted var owner: Person?
    }
}

/// Every indexable kind, indexed, and `plainName` (the same value as
/// `name`, not indexed) so a lookup through the index can be checked
/// against a scan.
final class Tagged: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted(indexed: true) var rank = 0
    @Persisted(indexed: true) var small: Int8?
    @Persisted(indexed: true) var flag = false
    @Persisted(indexed: true) var when = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted(indexed: true) var tag: UUID?
    @Persisted var plainName = ""
    @Persisted var plainRank = 0

    /// Reads no stored property: not something a query can name.
    var constant: Int { 7 }
}

/// An index on a property that cannot have one.
final class IndexedDouble: Object {
    @Persisted(indexed: true) var weight = 0.0
}

/// A to-do item: a Bool to query by itself, ranges and aggregates over
/// several numeric widths and optionals, a link to query through.
final class Chore: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted var urgent: Bool?
    @Persisted var priority: Int8 = 0
    @Persisted var minutes: Int?
    @Persisted var cost = 0.0
    @Persisted var weight: Float?
    @Persisted var due: Date?
    @Persisted var assignee: Person?

    /// Objects made since the process started (by the SDK, for every
    /// managed object it hands out): aggregates must not make one per row.
    static let made = Counter()

    required init() {
        super.init()
        Self.made.add(1)
    }
}

/// A counter any thread may bump.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.withLock { count += n } }
    var value: Int { lock.withLock { count } }
}

/// A list of chores: queries on a list's objects with a Bool condition.
final class Checklist: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var items = List<Chore>()
}
