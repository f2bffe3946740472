import FirnCore

extension Object {
    /// The changes of this object as an asynchronous sequence, the Swift
    /// concurrency way to observe it:
    ///
    /// ```swift
    /// for await change in rex.changes {
    ///     if case let .change(dog, properties) = change { show(dog, properties) }
    /// }
    /// ```
    ///
    /// The same `ObjectChange` values as `observe`, with the object of each
    /// `.change` *frozen* at the version the change took it to (the loop
    /// takes an element when it gets to it, possibly after later commits).
    /// Observing starts when iteration does, on the object's binding (where
    /// a live object is used anyway), and stops when the loop ends or its
    /// task is cancelled. The sequence ends after `.deleted` or `.error`,
    /// and when the instance is closed.
    public var changes: ObjectChanges { ObjectChanges(object: self) }
}

/// `Object.changes`: an `AsyncSequence` of `ObjectChange`. Each iteration is
/// an observer of its own.
public struct ObjectChanges: AsyncSequence {
    public typealias Element = ObjectChange
    let object: Object

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(object) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        /// A change crosses from the observer's callback to the loop's
        /// task: its object is frozen and its values are plain values.
        struct Carried: @unchecked Sendable {
            let change: ObjectChange
        }

        private let subscription: ChangesSubscription
        private var changes: AsyncStream<Carried>.Iterator

        init(_ object: Object) {
            let (stream, continuation) = AsyncStream.makeStream(of: Carried.self)
            let subscription = ChangesSubscription()
            self.subscription = subscription
            changes = stream.makeAsyncIterator()
            continuation.onTermination = { _ in subscription.end() }
            do throws(DatabaseError) {
                let token = try object.observeFrozen(onClose: { continuation.finish() }) { change in
                    continuation.yield(Carried(change: change))
                    switch change {
                    case .deleted, .error: continuation.finish()
                    case .change: break
                    }
                }
                subscription.attach(token)
            } catch {
                continuation.yield(Carried(change: .error(error)))
                continuation.finish()
            }
        }

        public mutating func next() async -> ObjectChange? { await changes.next()?.change }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> ObjectChange? {
            await changes.next(isolation: actor)?.change
        }
    }
}
