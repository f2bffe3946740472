import FirnCore
import Foundation

extension Object: CustomStringConvertible {}

/// What `Object.description` prints, in Realm's shape: the type, then one
/// `name = value;` line per stored property, in schema order:
///
/// ```text
/// Dog {
///     id = 7;
///     name = Rex;
///     owner = Person(name = Ann);
///     tags = List<String> [good, small];
/// }
/// ```
///
/// Links and list elements that are objects are summarized as their type and
/// primary key (`Person(name = Ann)`, or `LogEntry(#3)` for a generated key)
/// rather than printed whole: an object graph may be large or have cycles.
/// Lists show their first `listShown` elements. An object that cannot be
/// read says why instead of stopping the program (a property getter would):
/// a deleted object, one of an instance that `invalidate()` released, a live
/// object described off its binding (nothing is read there), a damaged record.
enum ObjectDescription {
    /// How many elements of a list are printed.
    static let listShown = 10

    static func text(of object: Object) -> String {
        let typeName = String(describing: type(of: object))
        guard let info = try? ClassInfo.of(type(of: object)) else { return "\(typeName) { [not a storable class] }" }
        guard let managed = object.managed else {
            return block(typeName, lines(unmanaged: object, info))
        }
        if let core = managed.source as? DatabaseCore, !core.binding.isCurrent {
            return "\(typeName) { [a live object of the Database on \(core.binding.description): describe it there] }"
        }
        if managed.session != managed.source.session {
            return "\(typeName) { [invalidated: its Database instance's invalidate() released the version it read] }"
        }
        let header = (managed.source as? FrozenVersion).map { "\(typeName) (frozen at version \($0.version))" } ?? typeName
        let record: RecordBytes?
        do {
            record = try managed.record()
        } catch {
            return "\(header) { [unreadable: \(error)] }"
        }
        guard let record else { return "\(header) { [deleted] }" }
        return block(header, lines(managed, record, info))
    }

    private static func block(_ header: String, _ lines: [String]) -> String {
        "\(header) {\n" + lines.map { "\t\($0);\n" }.joined() + "}"
    }

    // MARK: managed objects: from the record and the list trees

    private static func lines(_ managed: ManagedObject, _ record: RecordBytes, _ info: ClassInfo) -> [String] {
        let source = managed.source
        return info.schema.properties.enumerated().map { index, property in
            let value: String
            do throws(DatabaseError) {
                if property.isList {
                    let list = ListStorage(source: source, owner: info, ownerKey: managed.key, index: index)
                    let count = try list.count()
                    var shown: [String] = []
                    for position in 0..<min(count, listShown) {
                        if property.isMap {
                            guard let entry = try list.mapEntry(at: position) else { break }
                            shown.append("\(entry.key): " + (try text(entry.value, property, source)))
                        } else {
                            guard let element = try list.element(at: position) else { break }
                            shown.append(try text(element, property, source))
                        }
                    }
                    value = property.collectionDescription + " " + listText(shown, count: count)
                } else {
                    let type = property.type
                    let stored = try engine { () throws(FirnError) in
                        try record.withBytes { (bytes) throws(FirnError) in try ObjectRecord.value(index, as: type, in: bytes) }
                    }
                    value = try text(stored ?? property.absentValue, property, source)
                }
            } catch {
                value = "[unreadable: \(error)]"
            }
            return "\(property.name) = \(value)"
        }
    }

    /// A stored value as its property's Swift type prints.
    private static func text(_ value: FieldValue?, _ property: PropertySchema, _ source: any ObjectSource) throws(DatabaseError) -> String {
        guard let value else { return "nil" }
        switch value {
        case let .bool(v): return String(v)
        case let .int(v): return String(v)
        case let .double(v): return String(v)
        case let .float(v): return String(v)
        case let .string(v): return v
        case let .data(v): return "<\(v.count) bytes>"
        case let .date(v): return String(describing: Date(timeIntervalSinceReferenceDate: v))
        case let .uuid(v): return ObjectKey.uuidString(v)
        case let .decimal(v): return v.description
        case let .link(key):
            guard let target = property.objectType.flatMap({ source.info(named: $0) }) else {
                return "\(property.objectType ?? "Object")(\(key.count)-byte key)"
            }
            // A link whose target was deleted reads nil (docs/FORMAT.md §12.2).
            guard try source.record(target, key: key) != nil else { return "nil" }
            return try summary(target, key: key, source)
        }
    }

    /// `Type(primaryKey = value)`, or `Type(#id)` for a generated key.
    private static func summary(_ info: ClassInfo, key: [UInt8], _ source: any ObjectSource) throws(DatabaseError) -> String {
        guard let (_, property) = info.primaryKey else {
            let id = key.withUnsafeBytes { ObjectKey.generatedID($0) }
            return "\(info.name)(#\(id.map(String.init) ?? "?"))"
        }
        let type = property.type
        let value = try engine { () throws(FirnError) in
            try key.withUnsafeBytes { bytes in Result { () throws(FirnError) in try ObjectKey.decode(bytes, as: type) } }.get()
        }
        return "\(info.name)(\(property.name) = \(try text(value, property, source)))"
    }

    private static func listText(_ shown: [String], count: Int) -> String {
        let more = count > shown.count ? ", … \(count - shown.count) more" : ""
        return "[" + shown.joined(separator: ", ") + more + "]"
    }

    // MARK: unmanaged objects: from their wrappers

    private static func lines(unmanaged object: Object, _ info: ClassInfo) -> [String] {
        storedWrappers(of: object).map { name, wrapper in "\(name) = \(text(any: wrapper.unmanagedAny))" }
    }

    /// The stored properties' wrappers, in schema order (not the computed
    /// `LinkingObjects`, which a managed object's description leaves out too).
    private static func storedWrappers(of object: Object) -> [(String, any PersistedProperty)] {
        ClassInfo.wrappers(of: object).filter { $0.1.linking == nil }
    }

    /// A Swift value as the managed path prints its stored form.
    static func text(any value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first else { return "nil" }
            return text(any: wrapped.value)
        }
        switch value {
        case let object as Object: return summary(of: object)
        // As the file holds it, and as a managed object prints it.
        case let value as any PersistableEnum: return text(any: value.rawValue)
        case let list as any DescribedList: return list.describedText
        case let data as Data: return "<\(data.count) bytes>"
        case let uuid as UUID: return uuid.uuidString
        default: return String(describing: value)
        }
    }

    /// A link's target as `summary(_:key:)` prints it, for an object in a
    /// value of an unmanaged object (managed or not itself).
    static func summary(of object: Object) -> String {
        let typeName = String(describing: type(of: object))
        guard let info = try? ClassInfo.of(type(of: object)) else { return typeName }
        if let managed = object.managed {
            return (try? summary(info, key: managed.key, managed.source)) ?? typeName
        }
        guard let (index, property) = info.primaryKey else { return "\(typeName)(unmanaged)" }
        return "\(typeName)(\(property.name) = \(text(any: storedWrappers(of: object)[index].1.unmanagedAny)))"
    }

    static func listText(_ elements: [Any], count: Int) -> String {
        listText(elements.prefix(listShown).map { text(any: $0) }, count: count)
    }
}

/// A `List`, for a description that does not know its element type.
protocol DescribedList {
    var describedText: String { get }
}

extension List: DescribedList {
    var describedText: String {
        let stored = Element._persistedType
        let element = (stored.type == .object ? stored.objectType ?? "Object" : stored.type.description) + (stored.isOptional ? "?" : "")
        return "List<\(element)> " + ObjectDescription.listText(Array(prefix(ObjectDescription.listShown)), count: count)
    }
}
