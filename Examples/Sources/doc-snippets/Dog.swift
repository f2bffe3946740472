import Firn

/// The README's Dog, which the SDK snippets use. (doc-snippet-sdk declares
/// its own: there the declaration is part of the snippet.)
final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0

    convenience init(id: Int, name: String, age: Int = 0) {
        self.init()
        self.id = id
        self.name = name
        self.age = age
    }
}
