import Firn
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import FirnTestSupport

/// Grouped async commits killed mid-group, through the SDK: a child process
/// (an exit test) asks for bursts of grouped `beginAsyncWrite` /
/// `commitAsyncWrite(allowGrouping: true)` writes on a queue-bound instance
/// and appends each completion to a log; it SIGKILLs itself a few
/// milliseconds after a given number of completions, while later groups
/// are being written.
/// Every acknowledged write must be in the file when it opens again, the
/// writes there must be a prefix of the ones asked for (order is kept, a
/// group is never split), and each completion must have come only once the
/// engine called its commit durable.
///
/// The group in flight at the kill is unsealed: the next opener rejects it
/// whole (FORMAT.md 2.1) and opens at its durable base, so a completion that
/// came before the group's sync would show up here as a lost write. Power
/// loss inside a group is the engine's crash-image test
/// (`GroupedCommitTests`), whose `.deferred` commits and `Store.sync()` the
/// SDK uses as they are.
@Suite struct AsyncWriteCrashTests {
    /// What one completion recorded: the write's number, its commit's
    /// version, and the durable version when the completion ran.
    struct Ack: Equatable {
        let number: Int
        let version: UInt64
        let durable: UInt64
    }

    /// (completions to wait for, then milliseconds to the kill)
    @Test(arguments: [(1, 0), (40, 15), (100, 30), (150, 10)])
    func killedMidGroupEveryAcknowledgedWriteSurvives(completions: Int, milliseconds: Int) async throws {
        let scratch = Scratch()
        let path = scratch.file, log = scratch.path + "/acks.log"
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [path = path as String, log = log as String, completions = completions as Int, milliseconds = milliseconds as Int] in
            AsyncWriteCrashTests.writeUntilKilled(path: path, log: log, completions: completions, milliseconds: milliseconds)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let acks = text.split(separator: "\n").compactMap { line -> Ack? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let number = Int(fields[0]), let version = UInt64(fields[1]),
                  let durable = UInt64(fields[2]) else { return nil }
            return Ack(number: number, version: version, durable: durable)
        }
        #expect(acks.count >= completions)
        #expect(acks.count == text.split(separator: "\n").count, "malformed acknowledgements")
        // Completions in commit order, none skipped, each after durability.
        #expect(acks.map(\.number) == Array(1..<(acks.count + 1)))
        #expect(acks.allSatisfy { $0.durable >= $0.version }, "a completion before its commit was durable")

        let configuration = Configuration(path: path, objectTypes: [LogEntry.self])
        let stored = try onNewThread { try Database(configuration: configuration).objects(LogEntry.self).compactMap { Int($0.message) } }
        let acknowledged = acks.last?.number ?? 0
        #expect(stored.sorted() == Array(1..<(stored.count + 1)), "the stored writes are not a prefix")
        #expect(stored.count >= acknowledged, "acknowledged \(acknowledged) writes, found \(stored.count)")
        print("AsyncWriteCrashTests: killed \(milliseconds) ms after \(completions) completions: \(acknowledged) acknowledged, \(stored.count) stored")
    }

    /// The child: bursts of grouped writes, one completion line each, until
    /// it kills itself `milliseconds` after the `completions`th completion
    /// (or after 20 s without them).
    static func writeUntilKilled(path: String, log: String, completions: Int, milliseconds: Int) {
        let fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let queue = DispatchQueue(label: "firn-crash-child")
        let configuration = Configuration(path: path, objectTypes: [LogEntry.self])
        let next = Box(1), bursts = Box(0)
        let reached = DispatchSemaphore(value: 0)
        @Sendable func burst() {
            guard let db = try? Database(configuration: configuration, queue: queue) else { exit(3) }
            // Bursts of 1 to 23 writes, 2 ms apart: some runs end (and are
            // synced) between bursts, others run into the group limit.
            bursts.update { $0 += 1 }
            for _ in 0..<(1 + bursts.value * 7 % 23) {
                let number = next.value
                next.value = number + 1
                db.beginAsyncWrite {
                    let entry = LogEntry()
                    entry.message = "\(number)"
                    try? db.add(entry)
                    let version = Box<UInt64>(0)
                    db.commitAsyncWrite(allowGrouping: true) { error in
                        guard error == nil else { return }
                        let durable = (try? db.store.durableVersion) ?? 0
                        let line = Array("\(number) \(version.value) \(durable)\n".utf8)
                        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                        if number == completions { reached.signal() }
                    }
                    version.value = db.version
                }
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(2), execute: burst)
        }
        queue.async(execute: burst)
        _ = reached.wait(timeout: .now() + 20)
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
        kill(getpid(), SIGKILL)
    }
}
