/// Whose tree a report line describes: one of the user's named trees (the
/// catalog's entries), or one of the two system trees every version has —
/// the catalog of named trees and the space tree (free and retired pages,
/// pins, commit history). Reports carry it so that a user tree named
/// "(catalog)", "(space)" or "(x" is never taken for a system tree.
package enum TreeKind: String, Codable, Sendable, Equatable {
    case user
    case catalog
    case space

    /// How reports name a system tree: "(catalog)", "(space)"; nil for a user tree.
    package var systemTreeName: String? {
        switch self {
        case .user: nil
        case .catalog: "(catalog)"
        case .space: "(space)"
        }
    }
}
