import FirnCore
import FirnTools

extension TreeKind {
    /// How text output names a tree: a system tree as "(catalog)" or
    /// "(space)"; a user tree by its name, quoted when it starts with "(" so
    /// it cannot be read as a system tree (JSON carries the kind instead).
    func label(_ name: String) -> String {
        if let system = systemTreeName { return system }
        return name.hasPrefix("(") ? "\"\(name)\"" : name
    }
}
