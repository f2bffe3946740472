import Foundation
import FirnTestSupport

/// Type-checks a Swift source file as an app would compile it — Swift 6
/// language mode, importing the `Firn` module built with these tests — and
/// returns the compiler's errors. For the checks that only a compiler can
/// make: an app's mistake that must be a compile-time error, not a trap.
enum SwiftTypeCheck {
    struct Diagnostic: CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    /// The errors `swiftc -typecheck` reports for `source` (one per line of
    /// the source: notes and repeated renderings are dropped).
    static func errors(in source: String, scratch: Scratch) throws -> [Diagnostic] {
        let file = scratch.path + "/App.swift"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        // The modules are in the build directory's `Modules/`, the C
        // shim's module map in its target's build directory.
        let build = BuiltProducts.directory
        let run = try ChildProcess.run("/usr/bin/env", [
            "swiftc", "-typecheck", "-swift-version", "6",
            "-I", build + "/Modules",
            "-Xcc", "-fmodule-map-file=\(build)/CFirnShims.build/module.modulemap",
            file,
        ], timeout: .seconds(300))
        let text = run.stdout + run.stderr
        var seen = Set<Int>()
        var found: [Diagnostic] = []
        // "<path>/App.swift:LINE:COLUMN: error: …" (the compiler may spell
        // the directory differently: match the file's name).
        for line in text.split(separator: "\n") {
            guard let name = line.range(of: "/App.swift:"), line.hasPrefix("/") else { continue }
            let parts = line[name.upperBound...].split(separator: ":", maxSplits: 3)
            guard parts.count == 4, let number = Int(parts[0]), parts[2].trimmingCharacters(in: .whitespaces) == "error",
                  seen.insert(number).inserted else { continue }
            found.append(Diagnostic(line: number, message: parts[3].trimmingCharacters(in: .whitespaces)))
        }
        if found.isEmpty, run.status != 0 {
            // A failure that names no line (a missing module): report it whole.
            found.append(Diagnostic(line: 0, message: text))
        }
        return found
    }
}
