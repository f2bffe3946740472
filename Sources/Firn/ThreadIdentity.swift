import FirnCore
import Foundation

/// The thread a live instance is bound to: `pthread_self` for the one
/// comparison made on every access, the kernel thread id and name (taken
/// when bound: the thread may be gone when the message is needed) for the
/// message when that comparison fails.
struct ThreadIdentity: @unchecked Sendable {
    typealias Handle = pthread_t
    let handle: pthread_t
    let tid: Int64
    let name: String

    static var current: ThreadIdentity {
        // The kernel's name of the thread (what pthread_setname_np set,
        // e.g. a Foundation Thread's name); Glibc's getter is not imported.
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
        return ThreadIdentity(handle: pthread_self(), tid: currentKernelThreadID(), name: name)
    }

    var isCurrent: Bool { Self.isCurrent(handle) }

    @inline(__always)
    static func isCurrent(_ handle: Handle) -> Bool { pthread_equal(handle, pthread_self()) != 0 }

    /// "thread 1234 (main)".
    var description: String { "thread \(tid)" + (name.isEmpty ? "" : " (\(name))") }
}
