/// A difference between two versions' catalogs: a tree created, dropped,
/// or changed, as `Snapshot.treeChanges(since:)` reports it, in name order.
public enum TreeChange: Sendable, Equatable {
    /// The tree exists in the newer version only.
    case created(name: String, entry: CatalogEntry)
    /// The tree exists in the older version only.
    case dropped(name: String, entry: CatalogEntry)
    /// The tree's catalog entry (root reference or count) differs, also
    /// when it was dropped and created again in between. Its entries
    /// usually differ too, but need not: a transaction that added a key and
    /// removed it again still rewrote the root. Ask
    /// `changes(in:since:_:)` for the keys.
    case changed(name: String, old: CatalogEntry, new: CatalogEntry)

    public var name: String {
        switch self {
        case let .created(name, _), let .dropped(name, _), let .changed(name, _, _): name
        }
    }
}
