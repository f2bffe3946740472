// firn-testkit: a child-process driver for FirnCore's multi-process, kill and
// power-loss tests. `firn-testkit COMMAND ARGS…`; each command lives in its
// own file and registers itself in `testkitCommands`.
#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let command = testkitCommands[name] else {
    let known = testkitCommands.keys.sorted().joined(separator: ", ")
    FileHandleStderr.write("usage: firn-testkit COMMAND ARGS… (commands: \(known))\n")
    exit(64)
}
do {
    exit(try command(Array(arguments.dropFirst())))
} catch {
    FileHandleStderr.write("firn-testkit \(name): \(error)\n")
    exit(1)
}

enum FileHandleStderr {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
