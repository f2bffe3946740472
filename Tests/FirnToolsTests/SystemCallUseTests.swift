import Foundation
import Testing

/// One system-call layer (Sources/FirnCore/IO/SystemCall.swift): a call a
/// signal interrupts is retried there, whole writes and reads loop there.
/// A hand-written EINTR check or write loop elsewhere is how a short write
/// or an interrupted call slipped through before (a single `write(2, …)`
/// with no retry, twelve copies of the loop).
@Suite struct SystemCallUseTests {
    static let layer = "Sources/FirnCore/IO/SystemCall.swift"

    @Test func noSystemCallIsRetriedOrLoopedOutsideTheLayer() throws {
        let files = try SourceFiles.swift(in: ["Sources", "Tests"])
        #expect(files.contains { $0.path == Self.layer })
        #expect(files.count > 100)
        for (path, text) in files where path != Self.layer && !path.hasSuffix("SystemCallUseTests.swift") {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for banned in ["EINTR", "Glibc.write(", "nanosleep("] where code.contains(banned) {
                    Issue.record("\(path):\(number + 1): \(banned) outside the system-call layer: \(line)")
                }
            }
        }
    }
}
