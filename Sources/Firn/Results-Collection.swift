/// Results are a random-access collection of their objects, indexed from
/// 0 like an array (`indices`, `last`, slicing, `reversed()`, binary
/// search over sorted results). Live results move to another version only
/// at refresh points and writes, so their indices hold between those.
extension Results: RandomAccessCollection {
    public typealias Index = Int
    public var startIndex: Int { 0 }

    /// `count`, but a query's keys are found (and kept for the version)
    /// rather than counted: the collection algorithms ask for `endIndex`
    /// at every step (`firstIndex(where:)`, slicing), where a count by scan
    /// each time would make them quadratic.
    public var endIndex: Int {
        guard plan != nil else { return count }
        source.checkAccess()
        return planKeyCount
    }
}
