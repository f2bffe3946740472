import FirnCore

/// `LinkingObjects` properties in queries, as lists of objects are:
/// `$0.pets.age > 5` (some pet linking here is older than 5),
/// `$0.pets.allSatisfy { $0.age > 5 }`, `$0.pets.count >= 2`, `$0.pets.isEmpty`.
extension Query {
    /// The objects whose link (or list) names the queried object, through
    /// the `LinkingObjects` property `keyPath`.
    public subscript<Target: Object>(dynamicMember keyPath: KeyPath<Root, LinkingObjects<Target>>) -> QueryList<Target> {
        QueryList(source: source, state: state.flatMap { (info, path) in
            guard let linking = info.linkingProperty(of: keyPath) else {
                return .failure(.unknownProperty(type: info.name, property: ClassInfo.unnamed(keyPath)))
            }
            return Result { () throws(DatabaseError) in
                let origin = try source.info(Target.self)
                return (path, .linking(origin: origin, index: try linking.originIndex(origin, target: info.name)), origin)
            }
        })
    }
}

/// The objects a `QueryList` reaches from its owner: the elements of a
/// list (or set) of objects, or the objects of another type whose link
/// or list property names the owner (a `LinkingObjects` property).
enum QueryCollection {
    case list(Int)
    /// The origin type and its link (or list of objects) property.
    case linking(origin: ClassInfo, index: Int)

    /// `condition` on the collection's objects, holding for some (`.any`) or
    /// every (`.all`) one, as a condition on the owner. For linking objects:
    /// some is "more than none satisfy it", every is "none fails it".
    func quantified(_ quantifier: Condition.Quantifier, _ target: ObjectSchema, _ condition: Condition) -> Condition {
        switch self {
        case let .list(index): return .list(index, target, quantifier, condition)
        case let .linking(origin, index):
            switch quantifier {
            case .any: return .linking(LinkingTally(origin: origin, index: index, condition: condition, comparison: .greater, count: 0))
            case .all: return .linking(LinkingTally(origin: origin, index: index, condition: .not(condition), comparison: .equal, count: 0))
            }
        }
    }

    /// The number of the collection's objects compared with `count`.
    func count(_ comparison: Condition.Comparison, _ count: Int) -> Condition {
        switch self {
        case let .list(index): return .count(index, comparison, count)
        case let .linking(origin, index):
            return .linking(LinkingTally(origin: origin, index: index, condition: .constant(true), comparison: comparison, count: count))
        }
    }
}

/// A condition through a `LinkingObjects` property: how many objects of
/// the origin type that satisfy `condition` link to the object (through
/// their property `index`, a link or a list of objects: each origin object
/// counts once), compared with `count`. A class, so one scan finds its
/// tallies once (`QueryReads.linkingCount`) and reads them for every
/// object it tests, instead of walking the origin type once per object.
final class LinkingTally: Sendable {
    let origin: ClassInfo
    let index: Int
    let condition: Condition
    let comparison: Condition.Comparison
    let count: Int

    init(origin: ClassInfo, index: Int, condition: Condition, comparison: Condition.Comparison, count: Int) {
        self.origin = origin
        self.index = index
        self.condition = condition
        self.comparison = comparison
        self.count = count
    }

    /// Whether it holds for an object linked to by `linking` origin objects
    /// that satisfy the condition.
    func holds(_ linking: Int) -> Bool {
        Condition.compare(.int(Int64(linking)), comparison, .int(Int64(count)))
    }

    /// For each object some origin object satisfying the condition links
    /// to, how many do: one scan of the origin type (an index used as
    /// `where` uses one), reading each match's link, or its list's run.
    func tallies(_ source: any ObjectSource, _ reads: QueryReads) throws(DatabaseError) -> [[UInt8]: Int] {
        let schema = origin.schema
        let isList = schema.properties[index].isList
        let plan = QueryPlan(condition: condition)
        var tallies: [[UInt8]: Int] = [:]
        try plan.scan(source, origin, RecordReader(schema, condition: condition)) { (match) throws(DatabaseError) in
            if isList {
                // Each origin object once, however often its list names the target.
                var seen = Set<[UInt8]>()
                for case let .link(key)? in try reads.listElements(schema, index, owner: Array(match.key)) where seen.insert(key).inserted {
                    tallies[key, default: 0] += 1
                }
            } else {
                var fields = RecordFields(match.bytes, schema, keyBytes: match.key)
                if case let .link(key)? = try fields.value(index) { tallies[key, default: 0] += 1 }
            }
        }
        return tallies
    }
}
