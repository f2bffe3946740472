import FirnCore
import FirnTools
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How `dump --objects` prints an object: one line of text in Swift-like
/// literals (`Dog(id: 1, name: "Rex", owner: Person[7F1C…])`) or one JSON
/// object per line (`{"type":"Dog","key":1,"properties":{…}}`, properties in
/// schema order). Both are documented in `firn help dump`.
enum ObjectText {
    /// The line before a type's objects: "Dog: 696 objects (primary key id, showing 3)".
    static func header(_ stored: StoredType, limit: Int?) -> String {
        let key = stored.primaryKey.map { "primary key \($0)" } ?? "generated keys" + (stored.embedded ? ", embedded" : "")
        let shown = limit.map { UInt64($0) < stored.objects ? ", showing \($0)" : "" } ?? ""
        return "\(stored.name): \(Human.grouped(stored.objects)) object\(stored.objects == 1 ? "" : "s") (\(key)\(shown))"
    }

    /// An object's line under its type's.
    static func line(_ object: ObjectDump.Object) -> String { "  " + text(object) }

    /// The line for a version without objects, or nil.
    static func empty(_ summary: ObjectDump.Summary, file: String) -> String? {
        summary.types == 0 ? "\(file): version \(summary.version) stores no objects" : nil
    }

    /// What `--objects` wrote (a note on stderr with progress shown).
    static func count(_ summary: ObjectDump.Summary) -> String {
        "\(Human.grouped(summary.objects)) objects of \(summary.types) type(s) from version \(summary.version)"
    }

    static func text(_ object: ObjectDump.Object) -> String {
        let fields = object.fields.map { "\($0.name): \(text($0.value))" }.joined(separator: ", ")
        if case let .generatedID(id) = object.key { return "\(object.type) #\(id)(\(fields))" }
        return "\(object.type)(\(fields))"
    }

    static func text(_ value: ObjectDump.Value) -> String {
        switch value {
        case .null: "nil"
        case let .field(field): text(field)
        case let .generatedID(id): "#\(id)"
        case let .link(type, key): "\(type)[\(text(key))]"
        case let .list(elements): "[" + elements.map(text).joined(separator: ", ") + "]"
        case let .map(entries): "[" + (entries.isEmpty ? ":" : entries.map { quoted($0.key) + ": " + text($0.value) }.joined(separator: ", ")) + "]"
        }
    }

    private static func text(_ field: FieldValue) -> String {
        switch field {
        case let .bool(v): String(v)
        case let .int(v): String(v)
        case let .double(v): String(v)
        case let .float(v): String(v)
        case let .string(v): quoted(v)
        case let .data(v), let .link(v): "<" + ByteText.hexString(v) + ">"
        case let .date(v): iso8601(v)
        case let .uuid(v): ObjectKey.uuidString(v)
        case let .decimal(v): v.description
        }
    }

    static func json(_ object: ObjectDump.Object) -> String {
        let properties = object.fields.map { quoted($0.name) + ":" + json($0.value) }.joined(separator: ",")
        return "{\"type\":\(quoted(object.type)),\"key\":\(json(object.key)),\"properties\":{\(properties)}}"
    }

    /// Numbers as JSON numbers (non-finite ones as the strings "nan",
    /// "inf", "-inf"; a Decimal as a string of its digits), Data as base64, dates as ISO 8601 UTC, a link as its
    /// target's key.
    static func json(_ value: ObjectDump.Value) -> String {
        switch value {
        case .null: "null"
        case let .field(field): json(field)
        case let .generatedID(id): String(id)
        case let .link(_, key): json(key)
        case let .list(elements): "[" + elements.map(json).joined(separator: ",") + "]"
        case let .map(entries): "{" + entries.map { quoted($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        }
    }

    private static func json(_ field: FieldValue) -> String {
        switch field {
        case let .bool(v): String(v)
        case let .int(v): String(v)
        case let .double(v): number(v)
        case let .float(v): v.isFinite ? String(v) : number(Double(v))
        case let .string(v): quoted(v)
        case let .data(v), let .link(v): quoted(Data(v).base64EncodedString())
        case let .date(v): quoted(iso8601(v))
        case let .uuid(v): quoted(ObjectKey.uuidString(v))
        // A string: JSON readers parse numbers as binary64, which would
        // round a Decimal's 38 digits.
        case let .decimal(v): quoted(v.description)
        }
    }

    private static func number(_ v: Double) -> String {
        if v.isNaN { return "\"nan\"" }
        if v.isInfinite { return v < 0 ? "\"-inf\"" : "\"inf\"" }
        return String(v)
    }

    /// A Date (seconds since 2001-01-01 UTC) as ISO 8601 with the fraction
    /// it has (up to microseconds); one outside years 1…9999 as its seconds.
    static func iso8601(_ seconds: Double) -> String {
        // 0001-01-01 and 10000-01-01 relative to 2001-01-01.
        guard seconds.isFinite, seconds >= -63_113_904_000, seconds < 252_423_993_600 else {
            return "date(\(seconds))"
        }
        let micros = (seconds * 1_000_000).rounded()
        let whole = (micros / 1_000_000).rounded(.down)
        let fraction = Int(micros - whole * 1_000_000)
        // Seconds from 1970 for gmtime_r; the range check keeps it in time_t.
        var unix = time_t(whole) + 978_307_200
        var parts = tm()
        gmtime_r(&unix, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var year = String(parts.tm_year + 1900)
        while year.count < 4 { year = "0" + year }
        var text = "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        if fraction > 0 {
            var digits = String(fraction)
            while digits.count < 6 { digits = "0" + digits }
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }

    /// A JSON string literal (also the text form), as `dump --json` quotes.
    static func quoted(_ s: String) -> String { JSONText.quoted(s) }
}
