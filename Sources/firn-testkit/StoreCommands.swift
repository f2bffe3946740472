/// Store commands (filled in with the engine).
let storeCommands: [String: @Sendable ([String]) throws -> Int32] = [:]
