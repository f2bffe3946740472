import FirnCore

extension Results {
    /// The changes of these results as an asynchronous sequence, the Swift
    /// concurrency way to observe them:
    ///
    /// ```swift
    /// for await change in dogs.changes {
    ///     switch change {
    ///     case let .initial(dogs): show(dogs)
    ///     case let .update(dogs, deletions, insertions, modifications): apply(dogs, deletions, insertions, modifications)
    ///     case let .error(error): report(error)
    ///     }
    /// }
    /// ```
    ///
    /// The same changesets as `observe` (docs/SDK.md "Notifications"), each
    /// with the results *frozen* at the version it takes them to: a consumer
    /// reads an element when it gets to it, possibly after later commits and
    /// on another thread, and live results would have moved past the
    /// changeset by then. Observing starts when iteration does (on the
    /// instance's queue, actor or main actor when the iterating task runs
    /// elsewhere; a thread-bound instance must be iterated on its thread)
    /// and stops when the loop ends or its task is cancelled. The sequence
    /// ends after an `.error`, and when the instance is closed.
    public var changes: ResultsChanges<Element> { ResultsChanges(results: self) }
}

/// `Results.changes`: an `AsyncSequence` of `ResultsChange`, each holding
/// frozen results. Each iteration is an observer of its own.
public struct ResultsChanges<Observed: Object>: AsyncSequence, Sendable {
    public typealias Element = ResultsChange<Observed>
    let results: Results<Observed>

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(results) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Ends the observation when the iterator goes (a loop left by
        /// `break` or `return`); the stream's termination ends it too (a
        /// cancelled task).
        private let subscription: ChangesSubscription
        private var changes: AsyncStream<ResultsChange<Observed>>.Iterator

        init(_ results: Results<Observed>) {
            let (stream, continuation) = AsyncStream.makeStream(of: ResultsChange<Observed>.self)
            let subscription = ChangesSubscription()
            self.subscription = subscription
            changes = stream.makeAsyncIterator()
            continuation.onTermination = { _ in subscription.end() }
            let start: @Sendable () -> Void = {
                do throws(DatabaseError) {
                    let token = try results.observe(deliversFrozen: true, onClose: { continuation.finish() }) { change in
                        continuation.yield(change)
                        if case .error = change { continuation.finish() }
                    }
                    subscription.attach(token)
                } catch {
                    continuation.yield(.error(error))
                    continuation.finish()
                }
            }
            // Observing must start on the instance's binding: on a queue,
            // an actor or the main actor it is scheduled there when the
            // iterating task runs elsewhere; a thread has no loop to run it.
            guard let core = results.source as? DatabaseCore, !core.binding.isCurrent else {
                start()
                return
            }
            if !core.binding.schedule(start) { core.binding.failIncorrectThread() }
        }

        public mutating func next() async -> ResultsChange<Observed>? { await changes.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> ResultsChange<Observed>? {
            await changes.next(isolation: actor)
        }
    }
}

/// The notification token of one iteration of `changes`, released when the
/// iteration ends, whichever way it ends (and whichever comes first: the
/// observation may start later, on the instance's binding).
final class ChangesSubscription: @unchecked Sendable {
    private enum State {
        case starting
        case observing(NotificationToken)
        case ended
    }

    private let state = Locked(State.starting)

    /// Keeps `token`, or invalidates it at once when the iteration already ended.
    func attach(_ token: NotificationToken) {
        let ended = state.withLock { state -> Bool in
            if case .ended = state { return true }
            state = .observing(token)
            return false
        }
        if ended { token.invalidate() }
    }

    func end() {
        let token = state.withLock { state -> NotificationToken? in
            defer { state = .ended }
            if case let .observing(token) = state { return token }
            return nil
        }
        token?.invalidate()
    }

    deinit { end() }
}
