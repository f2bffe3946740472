import FirnCore

/// An actor as the binding of a live instance (`Database.open`): code runs
/// on it exactly when the running task's executor is the actor's (one
/// lookup, the check behind `preconditionIsolated()`). The actor is
/// retained, so the cache key made from its identity cannot be reused by
/// another actor while an instance bound to this one lives.
struct ActorIdentity: Sendable {
    let actor: any Actor

    var isCurrent: Bool { isCurrentExecutor(actor.unownedExecutor) }

    /// `actor Writer` (its type; the main actor by name).
    var description: String {
        if actor === MainActor.shared { return "the main actor" }
        return "actor \(String(reflecting: type(of: actor)))"
    }

    /// Runs `body` on the actor, later.
    func enqueue(_ body: @escaping @Sendable () -> Void) {
        let actor = actor
        Task { await Self.run(on: actor, body) }
    }

    private static func run(on actor: isolated any Actor, _ body: @Sendable () -> Void) { body() }
}
