/// Lock-file commands (filled in with the lock file).
let lockCommands: [String: @Sendable ([String]) throws -> Int32] = [:]
