import FirnCore

/// What a query's scan reads from each record, set up once per scan: the
/// properties its condition, aggregate or sort read, found in one walk over
/// the record's fields (`ObjectRecord.fields`, every field on the way
/// checked), and the condition compiled into a flat program evaluated on
/// those fields in place. Integers are compared and added as integers: no
/// `FieldValue`, no `RecordFields` and no allocation per record, and no
/// reference counting in the loop (the program and the buffers are plain
/// values). Profiled before it (a count with a condition on 1M records,
/// ~150 ns a record): copying and releasing `RecordFields` ~28%, walking
/// the record to the property and decoding a `FieldValue` ~22%, reading
/// the schema entry and matching the `Condition` enum ~12%.
///
/// A condition that reads through a link or a list (other trees) is not
/// compiled (`isCompiled` false): the scan evaluates it with
/// `Condition.matches` on the record, as before. Not thread-safe: one
/// reader per scan.
final class RecordReader {
    /// The schema indices read, ascending (a record's field tags).
    private let tags: UnsafeMutableBufferPointer<Int>
    /// The fields of the record loaded last, one per tag.
    private let fields: UnsafeMutableBufferPointer<ObjectRecord.Field?>
    private let types: [PropertyType]
    /// What each property reads as when its record has no field for it or
    /// a null one (`PropertySchema.absentValue`: null, or the type's default).
    private let absent: [FieldValue?]
    private let absentIntegers: [Int64?]
    /// The compiled condition (`Program`); constants after `init`, so
    /// reading them in the loop takes no exclusivity check.
    private let program: Program
    /// False when a condition was given but reads through links or lists.
    let isCompiled: Bool
    /// The condition when it is only `&&`ed comparisons of one integer
    /// property with integers (`<`, `==`, a range): the closed interval its
    /// values must lie in. Null satisfies none of them (null has no order
    /// and equals no integer), so a null value is outside.
    private let interval: (slot: Int, lower: Int64, upper: Int64)?

    /// A condition's instructions in post-order (the root last; empty for
    /// none) and the operands of those that compare other than integers.
    private struct Program {
        var instructions: [Instruction] = []
        var values: [FieldValue?] = []
        var valueLists: [[FieldValue?]] = []
        var patterns: [(match: Condition.TextMatch, pattern: String, caseInsensitive: Bool)] = []
        /// The types of the slots the instructions read.
        let types: [PropertyType]
    }

    private struct Instruction {
        enum Kind { case integer, value, oneOf, text, and, or, not, constant }
        var kind: Kind
        var slot = 0
        var comparison = Condition.Comparison.equal
        /// An integer comparison's operand (nil: null).
        var bound: Int64?
        /// `and`, `or`: both operands' instructions; `not`: the first;
        /// `constant`: the first is 1 for true.
        var operands = (0, 0)
        /// `value`, `oneOf`, `text`: the operand's place in its table.
        var side = 0
    }

    /// A reader of the properties `condition` reads and of `reading` (more
    /// schema indices: an aggregate's property, a sort's columns).
    init(_ schema: ObjectSchema, condition: Condition?, reading: [Int] = []) {
        var indices = Set(reading)
        let compilable = condition.map { Self.collect($0, into: &indices) } ?? true
        // An uncompiled condition reads its record itself (`RecordFields`).
        if !compilable { indices = Set(reading) }
        let sorted = indices.sorted()
        tags = .allocate(capacity: max(sorted.count, 1))
        _ = tags.initialize(from: sorted)
        fields = .allocate(capacity: max(sorted.count, 1))
        fields.initialize(repeating: nil)
        let types = sorted.map { schema.properties[$0].type }
        self.types = types
        let absent = sorted.map { schema.properties[$0].absentValue }
        self.absent = absent
        absentIntegers = absent.map { if case let .int(x)? = $0 { x } else { nil } }
        isCompiled = compilable
        var program = Program(types: types)
        if compilable, let condition {
            _ = Self.compile(condition, into: &program) { index in Self.slot(of: index, in: sorted) }
        }
        self.program = program
        interval = Self.interval(program.instructions)
    }

    /// `Program.instructions` as one interval of an integer property, nil
    /// when they are anything else (see `interval`). An empty interval
    /// (`x > Int64.max`, `x > 5 && x < 3`) is kept as lower > upper.
    private static func interval(_ instructions: [Instruction]) -> (slot: Int, lower: Int64, upper: Int64)? {
        guard let root = instructions.last else { return nil }
        var slot: Int?
        var lower = Int64.min, upper = Int64.max
        var empty = false
        func add(_ at: Int) -> Bool {
            let instruction = instructions[at]
            switch instruction.kind {
            case .and: return add(instruction.operands.0) && add(instruction.operands.1)
            case .integer:
                guard let bound = instruction.bound, slot == nil || slot == instruction.slot else { return false }
                slot = instruction.slot
                switch instruction.comparison {
                case .equal: lower = max(lower, bound); upper = min(upper, bound)
                case .less: if bound == .min { empty = true } else { upper = min(upper, bound - 1) }
                case .lessOrEqual: upper = min(upper, bound)
                case .greater: if bound == .max { empty = true } else { lower = max(lower, bound + 1) }
                case .greaterOrEqual: lower = max(lower, bound)
                case .notEqual: return false
                }
                return true
            default: return false
            }
        }
        _ = root
        guard add(instructions.count - 1), let slot else { return nil }
        return empty ? (slot, 1, 0) : (slot, lower, upper)
    }

    deinit {
        tags.deallocate()
        fields.deallocate()
    }

    /// What a scan with this reader can decide in the cursor's leaf loop
    /// (`IntegerScan`): the condition when it is an interval of an `Int`
    /// property, and with `tallying` the records in it counted there and,
    /// with `summing` (an `Int` property's slot), their values added. Nil
    /// when there is nothing to decide, the condition is anything else (a
    /// record must be tested by `holds`), or the summed property is not an `Int`.
    func integerScan(tallying: Bool, summing slot: Int? = nil) -> IntegerScan? {
        guard isCompiled else { return nil }
        var filter: (tag: Int, lower: Int64, upper: Int64)?
        if let interval {
            guard case .int = types[interval.slot] else { return nil }
            filter = (tags[interval.slot], interval.lower, interval.upper)
        } else if !program.instructions.isEmpty {
            return nil
        }
        if let slot {
            guard tallying, case .int = types[slot] else { return nil }
        }
        guard filter != nil || tallying else { return nil }
        return IntegerScan(filter: filter, tallies: tallying, summing: slot.map { tags[$0] })
    }

    /// The slot of schema index `index` (one the reader was made to read).
    func slot(of index: Int) -> Int { Self.slot(of: index, in: Array(tags.prefix(types.count))) }

    private static func slot(of index: Int, in tags: [Int]) -> Int {
        guard let slot = tags.firstIndex(of: index) else { preconditionFailure("a property the reader was not made to read") }
        return slot
    }

    /// The properties `condition` reads, added to `indices`; false when it
    /// reads through a link or a list (not compiled).
    private static func collect(_ condition: Condition, into indices: inout Set<Int>) -> Bool {
        switch condition {
        case let .compare(index, _, _), let .oneOf(index, _), let .text(index, _, _, _):
            indices.insert(index)
            return true
        case let .and(lhs, rhs), let .or(lhs, rhs):
            return collect(lhs, into: &indices) && collect(rhs, into: &indices)
        case let .not(operand): return collect(operand, into: &indices)
        case .constant, .isNull: return true
        case .link, .list, .values, .keys, .mapValue, .count, .linking: return false
        }
    }

    /// Appends `condition`'s instructions (operands first) to `program`;
    /// returns the index of its own. Only for conditions `collect` accepted.
    private static func compile(_ condition: Condition, into program: inout Program, slot: (Int) -> Int) -> Int {
        var instruction: Instruction
        switch condition {
        case let .compare(index, comparison, value):
            let slot = slot(index)
            let integer = isInteger(program.types[slot])
            switch value {
            case let .int(bound)? where integer:
                instruction = Instruction(kind: .integer, slot: slot, comparison: comparison, bound: bound)
            case nil where integer:
                instruction = Instruction(kind: .integer, slot: slot, comparison: comparison, bound: nil)
            default:
                instruction = Instruction(kind: .value, slot: slot, comparison: comparison, side: program.values.count)
                program.values.append(value)
            }
        case let .oneOf(index, list):
            instruction = Instruction(kind: .oneOf, slot: slot(index), side: program.valueLists.count)
            program.valueLists.append(list)
        case let .text(index, match, pattern, caseInsensitive):
            instruction = Instruction(kind: .text, slot: slot(index), side: program.patterns.count)
            program.patterns.append((match, pattern, caseInsensitive))
        case let .and(lhs, rhs), let .or(lhs, rhs):
            let operands = (compile(lhs, into: &program, slot: slot), compile(rhs, into: &program, slot: slot))
            if case .and = condition {
                instruction = Instruction(kind: .and, operands: operands)
            } else {
                instruction = Instruction(kind: .or, operands: operands)
            }
        case let .not(operand):
            instruction = Instruction(kind: .not, operands: (compile(operand, into: &program, slot: slot), 0))
        case let .constant(value):
            instruction = Instruction(kind: .constant, operands: (value ? 1 : 0, 0))
        case .isNull:
            // A scanned record is an object, never the null object.
            instruction = Instruction(kind: .constant, operands: (0, 0))
        case .link, .list, .values, .keys, .mapValue, .count, .linking:
            preconditionFailure("not compiled: \(condition)")
        }
        program.instructions.append(instruction)
        return program.instructions.count - 1
    }

    static func isInteger(_ type: PropertyType) -> Bool {
        switch type {
        case .int, .int8, .int16, .int32, .int64: return true
        default: return false
        }
    }

    /// Finds the fields of `record` this reader reads.
    @inline(__always)
    func load(_ record: UnsafeRawBufferPointer) throws(FirnError) {
        try ObjectRecord.fields(UnsafeBufferPointer(tags), in: record, into: fields)
    }

    /// What a cursor's scan reads into this reader (`Cursor.forEachEntry`):
    /// the tags and the fields' buffer, filled for each record before its
    /// visit, as `load` fills them.
    var loadedByScan: (tags: UnsafeBufferPointer<Int>, fields: UnsafeMutableBufferPointer<ObjectRecord.Field?>) {
        (UnsafeBufferPointer(rebasing: UnsafeBufferPointer(tags)[0..<types.count]),
         UnsafeMutableBufferPointer(rebasing: fields[0..<types.count]))
    }

    /// The loaded record's integer property in `slot` (as a query reads it:
    /// no field or a null one reads as null or 0).
    @inline(__always)
    func integer(_ slot: Int) throws(FirnError) -> Int64? {
        guard let field = fields[slot], let type = field.type else { return absentIntegers[slot] }
        // An `Int` property's field, in line; every other width, and a
        // field of the wrong type or length, through `ObjectRecord`.
        if case .int = type, case .int = types[slot], field.bytes.count == 8, let base = field.bytes.baseAddress {
            return Int64(littleEndian: base.loadUnaligned(as: Int64.self))
        }
        return try ObjectRecord.integer(of: field, as: types[slot])
    }

    /// The loaded record's property in `slot`, of any type.
    func value(_ slot: Int) throws(FirnError) -> FieldValue? {
        guard let field = fields[slot], field.type != nil else { return absent[slot] }
        return try ObjectRecord.value(of: field, as: types[slot])
    }

    /// True when the loaded record satisfies the compiled condition (and
    /// when there is none).
    @inline(__always)
    func holds() throws(FirnError) -> Bool {
        if let interval {
            guard let value = try integer(interval.slot) else { return false }
            return value >= interval.lower && value <= interval.upper
        }
        guard !program.instructions.isEmpty else { return true }
        return try program.instructions.withUnsafeBufferPointer { (program) throws(FirnError) in try holds(program.count - 1, program) }
    }

    private func holds(_ at: Int, _ program: UnsafeBufferPointer<Instruction>) throws(FirnError) -> Bool {
        let instruction = program[at]
        switch instruction.kind {
        case .integer:
            return Self.compare(try integer(instruction.slot), instruction.comparison, instruction.bound)
        case .and:
            guard try holds(instruction.operands.0, program) else { return false }
            return try holds(instruction.operands.1, program)
        case .or:
            if try holds(instruction.operands.0, program) { return true }
            return try holds(instruction.operands.1, program)
        case .not:
            return try !holds(instruction.operands.0, program)
        case .constant:
            return instruction.operands.0 != 0
        case .value:
            return Condition.compare(try value(instruction.slot), instruction.comparison, self.program.values[instruction.side])
        case .oneOf:
            let stored = try value(instruction.slot)
            return self.program.valueLists[instruction.side].contains { Condition.compare(stored, .equal, $0) }
        case .text:
            let text = self.program.patterns[instruction.side]
            return Condition.matchesText(try value(instruction.slot), text.match, text.pattern, caseInsensitive: text.caseInsensitive)
        }
    }

    /// `Condition.compare` for integers: null equals only null and has no
    /// order; integers compare by value.
    @inline(__always)
    static func compare(_ stored: Int64?, _ comparison: Condition.Comparison, _ value: Int64?) -> Bool {
        switch comparison {
        case .equal: return stored == value
        case .notEqual: return stored != value
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let stored, let value else { return false }
            switch comparison {
            case .less: return stored < value
            case .lessOrEqual: return stored <= value
            case .greater: return stored > value
            default: return stored >= value
            }
        }
    }
}
