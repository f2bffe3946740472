import CFirnShims

/// True on the process's main thread (a compare with the thread the
/// library was loaded on, `firn_is_main_thread`). Foundation's
/// `Thread.isMainThread` cost ~350 ns a call here (Linux): too slow for a
/// check made on every object read.
package func isProcessMainThread() -> Bool { firn_is_main_thread() }
