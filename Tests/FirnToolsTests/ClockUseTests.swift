import Foundation
import Testing
import FirnCore
import FirnTools

/// Durations, timeouts and deadlines use the monotonic clock: a wall clock
/// stepped back (NTP, an admin) must never make a duration negative or a
/// wait endless. The wall clock is for stamps only.
@Suite struct ClockUseTests {
    /// Files of the toolkit that may read the wall clock, and why.
    static let wallClockAllowed: [String: String] = [
        "Sources/FirnTools/Units.swift": "the age of a pin from its recorded wall-clock stamp (another process's clock)",
    ]

    @Test func theToolkitTimesDurationsAndDeadlinesWithTheMonotonicClock() throws {
        let files = try SourceFiles.swift(in: ["Sources/FirnTools", "Sources/firn"])
        #expect(files.count > 20)
        for (path, text) in files {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.contains("wallClockNanoseconds()") && Self.wallClockAllowed[path] == nil {
                    Issue.record("\(path):\(number + 1): wall clock used for a duration or deadline: \(line)")
                }
                if line.contains("Date()") || line.contains("timeIntervalSince") {
                    Issue.record("\(path):\(number + 1): Date used for a duration or deadline: \(line)")
                }
            }
        }
    }

    @Test func aDurationNeverGoesNegativeOrTrapsWhenTheEndIsBeforeTheStart() {
        #expect(elapsedSeconds(since: 5_000_000_000, until: 1) == 0)
        #expect(elapsedSeconds(since: UInt64.max, until: 0) == 0)
        #expect(elapsedSeconds(since: 1_000_000_000, until: 3_500_000_000) == 2.5)
        let start = monotonicNanoseconds()
        #expect(elapsedSeconds(since: start) >= 0 && monotonicNanoseconds() >= start)
    }

    @Test func timeoutsFromAnySecondsSaturateInsteadOfTrapping() {
        #expect(timeoutNanoseconds(seconds: .nan) == 0)
        #expect(timeoutNanoseconds(seconds: -1) == 0)
        #expect(timeoutNanoseconds(seconds: -.infinity) == 0)
        #expect(timeoutNanoseconds(seconds: .infinity) == Int64.max)
        #expect(timeoutNanoseconds(seconds: 1e300) == Int64.max)
        #expect(timeoutNanoseconds(seconds: 1.5) == 1_500_000_000)
        #expect(monotonicDeadline(afterSeconds: .infinity, now: 10) == 10 + UInt64(Int64.max))
        #expect(monotonicDeadline(afterSeconds: 1, now: UInt64.max - 5) == UInt64.max)
        #expect(monotonicDeadline(afterSeconds: .nan, now: 42) == 42)
    }
}
