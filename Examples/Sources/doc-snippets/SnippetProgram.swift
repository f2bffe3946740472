import ExampleSupport
import Foundation

extension Snippet {
    /// A snippet that is top-level code in the documents: the main.swift of
    /// `executable` (built beside this program), which checks what the
    /// snippet did and fails (a thrown check stops it) when it did not. It
    /// runs in the snippet's directory, so its "app.firn" is a new database;
    /// what it prints must be `output`.
    static func program(name: String, executable: String, output: String) -> Snippet {
        onThread(name: name) { directory in
            guard let bin = Bundle.main.executableURL?.deletingLastPathComponent() else {
                throw Unexpected(description: "cannot tell where this program is, to find \(executable)")
            }
            let stdout = URL(fileURLWithPath: directory + "/stdout.txt")
            let stderr = URL(fileURLWithPath: directory + "/stderr.txt")
            _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
            let process = Process()
            process.executableURL = bin.appendingPathComponent(executable)
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = try FileHandle(forWritingTo: stdout)
            process.standardError = try FileHandle(forWritingTo: stderr)
            try process.run()
            guard waitFor(upTo: 60, { !process.isRunning }) else {
                process.terminate()
                throw Unexpected(description: "\(executable) did not finish in 60 s")
            }
            let printed = (try? String(contentsOf: stdout, encoding: .utf8)) ?? ""
            let errors = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
            // A failed precondition or a thrown error stops the program with
            // a line saying why, which a backtrace follows: show that line.
            let lines = errors.split(separator: "\n")
            let why = lines.first { line in ["Fatal error", "Precondition failed"].contains { line.contains($0) } }
            let reason = why.map { [$0] } ?? Array(lines.prefix(12))
            try check(process.terminationReason == .exit && process.terminationStatus == 0,
                      "\(executable) failed (status \(process.terminationStatus)):\n    \(reason.joined(separator: "\n    "))")
            try check(printed == output, "\(executable) printed \(printed.debugDescription), not \(output.debugDescription)")
        }
    }
}
