import FirnCore
import Foundation

/// `Codable` objects, as in Realm: a class declared
/// `final class Dog: Object, Codable` decodes into an unmanaged object (the
/// compiler synthesizes `init(from:)` from its `@Persisted` properties) and
/// encodes — managed or not — its stored properties by name, in schema
/// order. Realm encodes unmanaged objects only (its synthesized `encode`
/// cannot reach a managed object's record and throws); here `encode(to:)`
/// is the SDK's, read through the object like its getters, with typed errors
/// instead of the getters' stops: a deleted object is `.invalidatedObject`,
/// an undecodable value its `DatabaseError`.
extension Encodable where Self: Object {
    public func encode(to encoder: any Encoder) throws { try ObjectCoding.encode(self, to: encoder) }
}

extension Persisted: Decodable where Value: Decodable {
    /// The property's value, decoded (its object is unmanaged) through a
    /// single-value container, so the decoder's strategies apply (a
    /// `JSONDecoder`'s for dates, data and decimals: `Value(from:)` would
    /// skip them).
    public init(from decoder: any Decoder) throws {
        self.init(wrappedValue: try decoder.singleValueContainer().decode(Value.self))
    }
}

extension KeyedDecodingContainer {
    /// A property missing from the input takes its type's default (0, "",
    /// nil, an empty list), as in Realm: synthesized decoding otherwise
    /// requires every key, optionals included, since a wrapper is not optional.
    public func decode<Value: Decodable>(_ type: Persisted<Value>.Type, forKey key: Key) throws -> Persisted<Value> {
        try decodeIfPresent(type, forKey: key) ?? Persisted()
    }
}

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the decoded elements.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        var elements: [Element] = []
        while !container.isAtEnd { elements.append(try container.decode(Element.self)) }
        storage = .unmanaged(elements)
    }
}

extension List: Encodable where Element: Encodable {
    /// The elements, as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension LinkingObjects: Decodable {
    /// Computed, so nothing is decoded: the object is unmanaged, and its
    /// linking objects are found once it is stored.
    public init(from decoder: any Decoder) throws { self.init(originProperty: "") }
}

/// The SDK's encoding of an object's stored properties.
enum ObjectCoding {
    /// A property name as a coding key.
    struct PropertyKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// The objects being encoded on this thread, by type and key: a link
    /// back to one of them is a cycle, which would recurse without end.
    private static let encodingKey = "firn.encoding"

    static func encode(_ object: Object, to encoder: any Encoder) throws {
        let info = try ClassInfo.of(type(of: object))
        let identity: String
        if let managed = object.managed {
            managed.source.checkAccess()
            guard managed.session == managed.source.session else { throw DatabaseError.invalidatedInstance(type: info.name) }
            guard try managed.record() != nil else { throw DatabaseError.invalidatedObject(type: info.name) }
            identity = info.name + ":" + managed.key.map { String($0, radix: 16) }.joined(separator: ".")
        } else {
            identity = "\(info.name):\(ObjectIdentifier(object).hashValue)"
        }
        let thread = Thread.current.threadDictionary
        var encoding = thread[encodingKey] as? Set<String> ?? []
        guard !encoding.contains(identity) else {
            throw EncodingError.invalidValue(object, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "\(info.name) links back to an object being encoded (a cycle of links cannot be encoded as nested objects)"))
        }
        encoding.insert(identity)
        thread[encodingKey] = encoding
        defer {
            var encoding = thread[encodingKey] as? Set<String> ?? []
            encoding.remove(identity)
            thread[encodingKey] = encoding
        }
        var container = encoder.container(keyedBy: PropertyKey.self)
        for index in info.schema.properties.indices {
            try info.encodeProperty(index, of: object, into: &container)
        }
    }
}

extension ClassInfo {
    /// Encodes stored property `index` of `object` under its name: nothing
    /// for nil, as synthesized encoding leaves an optional out.
    func encodeProperty(_ index: Int, of object: Object, into container: inout KeyedEncodingContainer<ObjectCoding.PropertyKey>) throws {
        let property = schema.properties[index]
        let value = try wrapperType(index)._value(of: object, index: index, at: wrapperOffset(index))
        guard let value = ObjectCoding.unwrapped(value) else { return }
        guard let encodable = value as? any Encodable else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: container.codingPath + [ObjectCoding.PropertyKey(stringValue: property.name)],
                debugDescription: "\(name).\(property.name) holds a \(Swift.type(of: value)), which is not Encodable"))
        }
        try container.encode(encodable, forKey: ObjectCoding.PropertyKey(stringValue: property.name))
    }
}

extension ObjectCoding {
    /// The value an optional holds, nil for none (any other value as it is).
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }
}
