import Foundation
import Synchronization
import Testing
import FirnTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The test harness's children (`ChildProcess`, on `SpawnedProcess`): the
/// races and the kill tests count on a child's exit being seen when it
/// happens, whatever other children run beside it.
@Suite struct ChildProcessTests {
    /// Short children run while other threads start long ones at the same
    /// moments. Each short run must return long before any long child ends.
    /// Foundation's `Process`, which the harness used before, learns of an
    /// exit from a descriptor a child spawned at the same moment by another
    /// thread could inherit: a short run then lasted until that long child
    /// ended (an `import` of the replacement races looked as if it ran for
    /// the writers' 12 s).
    @Test func aChildsExitIsSeenWhileChildrenStartedBesideItStillRun() throws {
        let longSeconds = 30
        let slowest = Mutex<Duration>(.zero)
        let failures = Mutex<[String]>([])
        let long = Mutex<[ChildProcess]>([])
        let deadline = ContinuousClock.now + .seconds(3)
        let group = DispatchGroup()
        for thread in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                var round = 0
                while ContinuousClock.now < deadline {
                    do {
                        if thread % 2 == 0, round % 4 == 0 {
                            let sleeper = try ChildProcess("/bin/sleep", ["\(longSeconds)"])
                            long.withLock { $0.append(sleeper) }
                        } else {
                            let started = ContinuousClock.now
                            let run = try ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
                            let took = ContinuousClock.now - started
                            slowest.withLock { $0 = max($0, took) }
                            if run.status != 3 || run.crashed || run.stdout != "out\n" || run.stderr != "err\n" {
                                failures.withLock { $0.append("exit \(run.status) \(run.stdout) \(run.stderr)") }
                            }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    round += 1
                }
            }.start()
        }
        group.wait()
        let sleepers = long.withLock { $0 }
        #expect(!sleepers.isEmpty && sleepers.allSatisfy(\.isRunning))
        for sleeper in sleepers { sleeper.kill(SIGKILL) }
        for sleeper in sleepers {
            #expect(sleeper.waitForExit(timeout: .seconds(20)) == SIGKILL && sleeper.wasSignalled)
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        // Well under the long children's life even on a loaded machine.
        let took = slowest.withLock { $0 }
        #expect(took < .seconds(longSeconds / 2), "a short child's run took \(took)")
    }

    /// A child starts as from a shell: no signal blocked (threads of the
    /// test process block some), SIGPIPE at its default, stdin /dev/null.
    @Test func aChildStartsWithNoSignalBlockedAndSIGPIPEAtItsDefault() throws {
        signal(SIGPIPE, SIG_IGN)
        var blocked = sigset_t()
        sigfillset(&blocked)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let run = try ChildProcess.run("/bin/sh", ["-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status; wc -c"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let mask = { (name: String) in lines.first { $0.first == name + ":" }.flatMap { UInt64($0.last ?? "", radix: 16) } }
        #expect(mask("SigBlk") == 0, "\(run.stdout)")
        let ignored = try #require(mask("SigIgn"), "\(run.stdout)")
        #expect(ignored & (1 << (UInt64(SIGPIPE) - 1)) == 0, "\(run.stdout)")
        #expect(lines.last?.first?.trimmingCharacters(in: .whitespaces) == "0", "stdin is empty: \(run.stdout)")
    }

    /// Stdin given is fed and closed; the working directory is set.
    @Test func stdinIsFedAndTheDirectoryIsSet() throws {
        let dir = try TemporaryDirectory()
        let run = try ChildProcess.run("/bin/sh", ["-c", "pwd; cat"], stdin: Data("fed\n".utf8), directory: dir.path)
        #expect(run.status == 0)
        let resolved = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        #expect(run.stdout == "\(resolved)\nfed\n" || run.stdout == "\(dir.path)\nfed\n", "\(run.stdout)")
    }
}
