import CFirnShims

/// The kernel thread id (`gettid`) of the calling thread, as the reader
/// table records it: the SDK names threads with it in pins and in its
/// wrong-thread message.
package func currentKernelThreadID() -> Int64 { firn_gettid() }
