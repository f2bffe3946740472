import FirnCore
/// The object types a version stores, read from its schema tree `sys.schema`
/// alone (docs/FORMAT.md §12.1) — no application code, no SDK runtime. `info`
/// lists them with their counts; `dump --objects` decodes their records.
public struct StoredType: Codable, Sendable, Equatable {
    public struct Property: Codable, Sendable, Equatable {
        public var name: String
        /// The stored type's Swift name (`Int`, `String`, `Date`, `Object`…);
        /// for a list, its elements' type.
        public var type: String
        public var optional: Bool
        public var primaryKey: Bool
        public var indexed: Bool
        public var list: Bool
        /// The type a link or a list of objects points to.
        public var target: String?
        /// As Swift declares it: `List<Dog>`, `String?`, `Person?`.
        public var declaration: String
    }

    public var name: String
    /// Objects in the version (entries of `obj.<name>`).
    public var objects: UInt64
    /// The primary key property, nil when keys are generated.
    public var primaryKey: String?
    public var properties: [Property]

    init(_ schema: ObjectSchema, objects: UInt64) {
        name = schema.name
        self.objects = objects
        primaryKey = schema.primaryKeyIndex.map { schema.properties[$0].name }
        properties = schema.properties.map {
            Property(name: $0.name, type: $0.type.description, optional: $0.isOptional, primaryKey: $0.isPrimaryKey,
                     indexed: $0.isIndexed, list: $0.isList, target: $0.objectType,
                     declaration: $0.isList ? "List<\($0.elementDescription)>" : $0.elementDescription)
        }
    }
}
