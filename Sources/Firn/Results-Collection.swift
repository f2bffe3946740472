/// Results are a random-access collection of their objects, indexed from
/// 0 like an array (`indices`, `last`, slicing, `reversed()`, binary
/// search over sorted results). Live results move to another version only
/// at refresh points and writes, so their indices hold between those.
extension Results: RandomAccessCollection {
    public typealias Index = Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
}
