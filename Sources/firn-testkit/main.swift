// firn-testkit: a child-process driver for FirnCore's multi-process, kill and
// power-loss tests. `firn-testkit COMMAND ARGS…`; each command lives in its
// own file and registers itself in `testkitCommands`.
import FirnCore
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
    static func write(_ text: String) { _ = SystemCall.writeAll(2, Array(text.utf8)) }
}
