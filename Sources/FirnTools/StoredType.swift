import FirnCore
/// The object types a version stores, read from its schema tree `sys.schema`
/// alone (docs/FORMAT.md §12.1) — no application code, no SDK runtime. `info`
/// lists them with their counts; `dump --objects` decodes their records.
package struct StoredType: Codable, Sendable, Equatable {
    package struct Property: Codable, Sendable, Equatable {
        package var name: String
        /// The stored type's Swift name (`Int`, `String`, `Date`, `Object`…);
        /// for a list, its elements' type.
        package var type: String
        package var optional: Bool
        package var primaryKey: Bool
        package var indexed: Bool
        package var list: Bool
        /// A list of unique elements (a `MutableSet`).
        package var set: Bool
        /// A list of keyed entries (a `Map<String, V>`); `type` is the values'.
        package var map: Bool
        /// The type a link or a list of objects points to.
        package var target: String?
        /// As Swift declares it: `List<Dog>`, `Map<String, Int>`, `String?`, `Person?`.
        package var declaration: String
    }

    package var name: String
    /// Objects in the version (entries of `obj.<name>`).
    package var objects: UInt64
    /// The primary key property, nil when keys are generated.
    package var primaryKey: String?
    /// An embedded type (§12.7): its objects are held by their owners' links and lists.
    package var embedded: Bool
    package var properties: [Property]

    init(_ schema: ObjectSchema, objects: UInt64) {
        name = schema.name
        self.objects = objects
        primaryKey = schema.primaryKeyIndex.map { schema.properties[$0].name }
        embedded = schema.isEmbedded
        properties = schema.properties.map {
            Property(name: $0.name, type: $0.type.description, optional: $0.isOptional, primaryKey: $0.isPrimaryKey,
                     indexed: $0.isIndexed, list: $0.isList, set: $0.isSet, map: $0.isMap, target: $0.objectType,
                     declaration: $0.isList ? $0.collectionDescription : $0.elementDescription)
        }
    }
}
