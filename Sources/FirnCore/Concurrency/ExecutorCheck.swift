import CFirnShims

/// True when the caller runs on `executor` (an actor's `unownedExecutor`):
/// the check behind `Actor.preconditionIsolated()`, as a Bool, so a
/// confinement check can say what went wrong in its own words. One lookup
/// of the running task's executor.
package func isCurrentExecutor(_ executor: UnownedSerialExecutor) -> Bool {
    // UnownedSerialExecutor is the runtime's two-word SerialExecutorRef.
    let (identity, implementation) = unsafeBitCast(executor, to: (UnsafeRawPointer?, UInt).self)
    return firn_is_current_executor(identity, implementation)
}
