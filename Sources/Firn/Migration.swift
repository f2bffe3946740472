import FirnCore
import Foundation

/// What a `Configuration.migrationBlock` works with: the file's objects as
/// the old schema stored them, and the values they get under the new one.
/// Valid only while the block runs (inside the migration's write
/// transaction, before anything is rewritten).
///
/// ```swift
/// config.schemaVersion = 2
/// config.migrationBlock = { migration, oldVersion in
///     if oldVersion < 2 {
///         try migration.enumerateObjects(ofType: "Person") { old, new in
///             new["fullName"] = "\(old["first"] as? String ?? "") \(old["last"] as? String ?? "")"
///         }
///     }
/// }
/// ```
public final class Migration {
    let state: MigrationState

    init(state: MigrationState) { self.state = state }

    /// The schema version the file was written with.
    public var oldSchemaVersion: UInt64 { state.oldVersion }
    /// The configuration's schema version, which the file gets.
    public var newSchemaVersion: UInt64 { state.newVersion }

    /// Calls `body` with each stored object of type `typeName`: `old` reads
    /// the values as stored (by property name, old schema); `new` reads and
    /// sets the values the object gets (new schema). A value of the wrong
    /// type for the new property throws `.typeMismatch` naming the type and
    /// property (after `body` returns, when set with the subscript). A type
    /// the file does not have yet has no objects.
    public func enumerateObjects(ofType typeName: String, _ body: (_ old: MigrationObject, _ new: MigrationObject) throws -> Void) throws {
        guard let new = state.newSchemas[typeName] else {
            throw DatabaseError.invalidMigration(type: typeName, property: "", detail: "the type is not in the configuration's objectTypes")
        }
        guard let old = state.oldSchemas[typeName] else { return }
        let records = try engine { () throws(FirnError) in try state.oldRecords(old) }
        for (key, record) in records {
            let oldObject = MigrationObject(state: state, schema: old, key: key, record: record, isNew: false)
            let newObject = MigrationObject(state: state, schema: new, key: key, record: record, isNew: true)
            try body(oldObject, newObject)
            if let error = state.takeError() { throw error }
        }
    }

    /// Keeps the values (and list elements) of `typeName`'s old property
    /// `oldName` under the new schema's property `newName`. Both must have
    /// the same stored type (a `List` only to a `List` of the same elements).
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) throws {
        guard let old = state.oldSchemas[typeName], let new = state.newSchemas[typeName] else {
            throw DatabaseError.invalidMigration(type: typeName, property: oldName, detail: "renaming needs the type in both the file and the configuration")
        }
        guard let from = old.properties.first(where: { $0.name == oldName }) else {
            throw DatabaseError.invalidMigration(type: typeName, property: oldName, detail: "the file's schema has no property \(oldName) to rename")
        }
        guard let to = new.properties.first(where: { $0.name == newName }) else {
            throw DatabaseError.invalidMigration(type: typeName, property: newName, detail: "the class has no property \(newName) to rename \(oldName) to")
        }
        guard MigrationState.carries(from, to) else {
            throw DatabaseError.invalidMigration(type: typeName, property: newName,
                                                 detail: "cannot rename \(from) to \(to): the stored types differ (convert with enumerateObjects)")
        }
        let renamed = state.renames[typeName] ?? [:]
        guard renamed[newName] == nil, !renamed.values.contains(oldName) else {
            throw DatabaseError.invalidMigration(type: typeName, property: newName, detail: "\(oldName) or \(newName) was renamed already (rename each property once)")
        }
        state.renames[typeName, default: [:]][newName] = oldName
    }
}

/// One object in a migration: an `old` one reads the stored values by the
/// old schema's property names; a `new` one reads and sets those of the new
/// schema. Values are Swift values: Bool, Int, Int8…Int64, Double, Float,
/// String, Data, Date, UUID or nil; a link reads as the target's old
/// `MigrationObject` and is set to one (old or new) of the target type; a
/// list reads as an array of those and is set to an array.
public final class MigrationObject {
    let state: MigrationState
    let schema: ObjectSchema
    /// The object's key in the file as it was (its identity in the migration).
    let key: [UInt8]
    let record: [UInt8]
    /// Whether this is the `new` side (writable).
    let isNew: Bool

    init(state: MigrationState, schema: ObjectSchema, key: [UInt8], record: [UInt8], isNew: Bool) {
        self.state = state
        self.schema = schema
        self.key = key
        self.record = record
        self.isNew = isNew
    }

    /// The type's name.
    public var objectType: String { schema.name }

    /// The value of property `name`. Reading a property the schema does not
    /// have gives nil (and the enumeration throws `.unknownProperty`);
    /// setting one on an old object, or a value of the wrong type, throws
    /// likewise after the enumeration's body returns. Use `set(_:for:)` to
    /// get the error at once.
    public subscript(name: String) -> Any? {
        get {
            do { return try value(for: name) } catch {
                state.record(error)
                return nil
            }
        }
        set {
            do { try set(newValue, for: name) } catch { state.record(error) }
        }
    }

    public func value(for name: String) throws(DatabaseError) -> Any? {
        guard let property = schema.properties.first(where: { $0.name == name }) else {
            throw DatabaseError.unknownProperty(type: schema.name, property: name)
        }
        let stored = try isNew ? state.newValue(of: self, property) : state.oldValue(of: self, property)
        switch stored {
        case let .scalar(value): return try state.swiftValue(value, property)
        case let .list(values):
            var out: [Any?] = []
            for value in values { out.append(try state.swiftValue(value, property)) }
            return out
        case let .map(entries):
            // A dictionary, as a map reads in Swift.
            var out: [String: Any?] = [:]
            for (key, value) in entries { out[key] = .some(try state.swiftValue(value, property)) }
            return out
        }
    }

    /// Sets property `name` of a new object; throws `.typeMismatch` naming
    /// the type and property for a value that does not fit it.
    public func set(_ value: Any?, for name: String) throws(DatabaseError) {
        guard isNew else {
            throw DatabaseError.invalidMigration(type: schema.name, property: name, detail: "an old object is read-only; set the new one")
        }
        guard let property = schema.properties.first(where: { $0.name == name }) else {
            throw DatabaseError.unknownProperty(type: schema.name, property: name)
        }
        let stored: MigrationState.Stored
        if property.isMap {
            guard let value, let entries = Self.entries(value) else {
                throw DatabaseError.typeMismatch(type: schema.name, property: name, expected: "[String: \(property.elementDescription)]",
                                                 found: value.map { "\(type(of: $0))" } ?? "nil")
            }
            var out: [(key: String, value: FieldValue?)] = []
            for (key, element) in entries { out.append((key, try state.fieldValue(element, for: property, of: schema.name))) }
            // Stored in key order (FORMAT.md §12.4).
            stored = .map(out.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) })
        } else if property.isList {
            guard let value, let elements = Self.elements(value) else {
                throw DatabaseError.typeMismatch(type: schema.name, property: name, expected: "[\(property.elementDescription)]",
                                                 found: value.map { "\(type(of: $0))" } ?? "nil")
            }
            var out: [FieldValue?] = []
            for element in elements { out.append(try state.fieldValue(element, for: property, of: schema.name)) }
            stored = .list(out)
        } else {
            if property.isPrimaryKey, value == nil {
                throw DatabaseError.typeMismatch(type: schema.name, property: name, expected: property.elementDescription, found: "nil")
            }
            stored = .scalar(try state.fieldValue(value, for: property, of: schema.name))
        }
        state.sets[schema.name, default: [:]][key, default: [:]][name] = stored
    }

    private static func entries(_ value: Any) -> [(String, Any?)]? {
        if let dictionary = value as? [String: Any?] { return dictionary.map { ($0.key, $0.value) } }
        if let dictionary = value as? [String: Any] { return dictionary.map { ($0.key, $0.value) } }
        return nil
    }

    private static func elements(_ value: Any) -> [Any?]? {
        if let array = value as? [Any?] { return array }
        if let array = value as? [Any] { return array.map { $0 } }
        return nil
    }
}

/// The shared state of one migration: the transaction (still holding the
/// old data while the block runs), both schemas, the renames and the values
/// the block set, by type and old object key.
final class MigrationState {
    enum Stored {
        case scalar(FieldValue?)
        case list([FieldValue?])
        /// A map's entries, in key order.
        case map([(key: String, value: FieldValue?)])
    }

    let transaction: WriteTransaction
    let oldSchemas: [String: ObjectSchema]
    let newSchemas: [String: ObjectSchema]
    let oldVersion: UInt64
    let newVersion: UInt64
    /// Per type: new property name → old property name.
    var renames: [String: [String: String]] = [:]
    /// Per type, per old object key: the values the block set, by new property name.
    var sets: [String: [[UInt8]: [String: Stored]]] = [:]
    private var error: DatabaseError?

    init(transaction: WriteTransaction, oldSchemas: [String: ObjectSchema], newSchemas: [String: ObjectSchema], oldVersion: UInt64, newVersion: UInt64) {
        self.transaction = transaction
        self.oldSchemas = oldSchemas
        self.newSchemas = newSchemas
        self.oldVersion = oldVersion
        self.newVersion = newVersion
    }

    func record(_ error: Error) {
        if self.error == nil { self.error = error as? DatabaseError ?? .invalidMigration(type: "", property: "", detail: "\(error)") }
    }

    func takeError() -> DatabaseError? {
        defer { error = nil }
        return error
    }

    /// Whether a value of old property `old` keeps its meaning as new property `new`.
    static func carries(_ old: PropertySchema, _ new: PropertySchema) -> Bool {
        guard old.type == new.type, old.objectType == new.objectType, old.isList == new.isList, old.isMap == new.isMap else { return false }
        // A list's elements carry when the new list accepts every old one.
        return !old.isList || old.isOptional == new.isOptional || new.isOptional
    }

    /// The old property whose values new property `property` of `type` keeps, if any.
    func source(of property: PropertySchema, in type: String) -> PropertySchema? {
        guard let old = oldSchemas[type] else { return nil }
        let renamed = renames[type] ?? [:]
        let name: String
        if let from = renamed[property.name] {
            name = from
        } else if renamed.values.contains(property.name) {
            return nil  // that old property went to another name
        } else {
            name = property.name
        }
        guard let source = old.properties.first(where: { $0.name == name }), Self.carries(source, property) else { return nil }
        return source
    }

    // MARK: reading the old data

    func oldRecords(_ schema: ObjectSchema) throws(FirnError) -> [(key: [UInt8], value: [UInt8])] {
        guard let tree = try transaction.tree(schema.treeName, create: false) else { return [] }
        return try SchemaMigration.entries(tree)
    }

    func oldValue(of object: MigrationObject, _ property: PropertySchema) throws(DatabaseError) -> Stored {
        guard let tag = object.schema.properties.firstIndex(of: property) else { return .scalar(nil) }
        if property.isMap {
            return .map(try engine { () throws(FirnError) in try oldMap(object.schema, property, owner: object.key) })
        }
        if property.isList {
            return .list(try engine { () throws(FirnError) in try oldList(object.schema, property, owner: object.key) })
        }
        let value = try engine { () throws(FirnError) in
            try object.record.withUnsafeBytes { buffer in
                Result { () throws(FirnError) in try ObjectRecord.field(tag, in: buffer) }
            }.get().map { (field) throws(FirnError) -> FieldValue? in
                guard let type = field.type else { return nil }
                guard type == property.type else { throw ByteScanner.defect("\(object.schema.name).\(property.name) holds a \(type)") }
                return try FieldValue.decode(field.bytes, as: type)
            }
        }
        // No field: the type's default (§12.2).
        return .scalar(value ?? property.absentValue)
    }

    /// The elements of `owner`'s list `property` as stored.
    func oldList(_ schema: ObjectSchema, _ property: PropertySchema, owner: [UInt8]) throws(FirnError) -> [FieldValue?] {
        try oldEntries(schema, property, owner: owner) { (buffer) throws(FirnError) in try ListElement.decode(buffer, as: property.type) }
    }

    /// The entries of `owner`'s map `property` as stored, in key order.
    func oldMap(_ schema: ObjectSchema, _ property: PropertySchema, owner: [UInt8]) throws(FirnError) -> [(key: String, value: FieldValue?)] {
        try oldEntries(schema, property, owner: owner) { (buffer) throws(FirnError) in try MapEntry.decode(buffer, as: property.type) }
    }

    /// Each value of `owner`'s run in the list tree of `property`, decoded, in position order.
    private func oldEntries<T>(_ schema: ObjectSchema, _ property: PropertySchema, owner: [UInt8],
                               _ decode: (UnsafeRawBufferPointer) throws(FirnError) -> T) throws(FirnError) -> [T] {
        guard let tree = try transaction.tree(schema.listTreeName(property), create: false) else { return [] }
        let prefix = ListKey.prefix(owner)
        let cursor = try tree.cursor()
        try cursor.seek(ListKey.key(prefix: prefix, 0))
        var out: [T] = []
        while cursor.isValid, try cursor.withKey({ $0.starts(with: prefix) }) == true {
            guard let bytes = try cursor.value else { break }
            out.append(try bytes.withUnsafeBytes { buffer in Result { () throws(FirnError) in try decode(buffer) } }.get())
            try cursor.next()
        }
        return out
    }

    /// What new property `property` of `object` holds: set by the block,
    /// else kept from its source property, else its default.
    func newValue(of object: MigrationObject, _ property: PropertySchema) throws(DatabaseError) -> Stored {
        if let set = sets[object.schema.name]?[object.key]?[property.name] { return set }
        guard let old = oldSchemas[object.schema.name], let source = source(of: property, in: object.schema.name) else {
            return property.isMap ? .map([]) : property.isList ? .list([]) : .scalar(property.absentValue)
        }
        let view = MigrationObject(state: self, schema: old, key: object.key, record: object.record, isNew: false)
        switch try oldValue(of: view, source) {
        case let .scalar(value): return .scalar(value ?? property.absentValue)
        case let .list(values): return .list(values)
        case let .map(entries): return .map(entries)
        }
    }

    // MARK: converting

    /// A stored value as the Swift value the application reads.
    func swiftValue(_ value: FieldValue?, _ property: PropertySchema) throws(DatabaseError) -> Any? {
        guard let value else { return nil }
        switch (property.type, value) {
        case let (.bool, .bool(v)): return v
        case let (.int, .int(v)): return Int(v)
        case let (.int8, .int(v)): return Int8(truncatingIfNeeded: v)
        case let (.int16, .int(v)): return Int16(truncatingIfNeeded: v)
        case let (.int32, .int(v)): return Int32(truncatingIfNeeded: v)
        case let (.int64, .int(v)): return v
        case let (.double, .double(v)): return v
        case let (.float, .float(v)): return v
        case let (.string, .string(v)): return v
        case let (.data, .data(v)): return Data(v)
        case let (.date, .date(v)): return Date(timeIntervalSinceReferenceDate: v)
        case let (.uuid, .uuid(v)): return UUID._persisted(from: PersistedField(.uuid(v)))
        case let (.decimal, .decimal(v)): return Decimal(v)
        case let (.object, .link(key)):
            guard let target = property.objectType, let schema = oldSchemas[target] else { return nil }
            let record = try engine { () throws(FirnError) in try transaction.tree(schema.treeName, create: false)?.get(key) }
            return record.map { MigrationObject(state: self, schema: schema, key: key, record: $0, isNew: false) }
        default: return nil
        }
    }

    /// A Swift value as the stored value of `property` (an element of it,
    /// for a list); `.typeMismatch` when it does not fit.
    func fieldValue(_ value: Any?, for property: PropertySchema, of type: String) throws(DatabaseError) -> FieldValue? {
        func mismatch(_ found: String) -> DatabaseError {
            .typeMismatch(type: type, property: property.name, expected: property.elementDescription, found: found)
        }
        guard let value = Self.unwrapped(value) else {
            guard property.isOptional || (property.type == .object && !property.isList) else { throw mismatch("nil") }
            return nil
        }
        if property.type == .object {
            guard let object = value as? MigrationObject, object.schema.name == property.objectType else {
                throw mismatch((value as? MigrationObject)?.objectType ?? "\(Swift.type(of: value))")
            }
            return .link(object.key)
        }
        guard let persistable = value as? any PersistableValue, !(value is Object) else { throw mismatch("\(Swift.type(of: value))") }
        let given = Swift.type(of: persistable)._persistedType
        // Integers of any width are accepted when the value fits the property's.
        let integers: Set<PropertyType> = [.int, .int8, .int16, .int32, .int64]
        guard given.type == property.type || (integers.contains(given.type) && integers.contains(property.type)) else {
            throw mismatch("\(Swift.type(of: value))")
        }
        guard let field = persistable._persistedField.value, field.encoded(as: property.type) != nil else {
            throw mismatch("\(value) (\(Swift.type(of: value)))")
        }
        return field
    }

    /// `value` with nested optionals removed (an `Int?` passed as `Any?`).
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let child = mirror.children.first else { return nil }
        return unwrapped(child.value)
    }
}
