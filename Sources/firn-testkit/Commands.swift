/// Every testkit command by name. Each returns the process exit status.
let testkitCommands: [String: @Sendable ([String]) throws -> Int32] = lockCommands
    .merging(storeCommands) { a, _ in a }
    .merging(readerCommands) { a, _ in a }
    .merging(replacementCommands) { a, _ in a }
    .merging(groupCommands) { a, _ in a }
    .merging(logCommands) { a, _ in a }
