import Foundation

// Runs every Swift snippet of README.md and docs/SDK.md (the marked regions of
// this package's sources, which DocsTests in the main package holds equal to
// the documents' blocks), each in a fresh directory that is also the current
// one while it runs; prints one line per snippet and exits 1 if any did not
// do what the documents say. Top-level code in the documents is a program of
// its own (Snippet.program). Every region but readme-package (the manifest's
// dependency, which building this package checks) is named here.
let snippets: [Snippet] = [
    .program(name: "readme-engine", executable: "doc-snippet-engine", output: ""),
    ReadmeDiff.snippet,
    .program(name: "readme-sdk", executable: "doc-snippet-sdk", output: "Rex\n"),
    ReadmeQueue.snippet,
    ReadmeActor.snippet,
    ReadmeObserve.snippet,
    ReadmeChanges.snippet,
    .program(name: "readme-queries", executable: "doc-snippet-queries", output: "1 1 Ben 1 2 Bo 12 5\n"),
    SDKWriteAsync.snippet,
    SDKMigration.snippet,
    SDKNotifications.snippet,
    SDKQueries.snippet,
    SDKEnums.snippet,
    SDKLinkingObjects.snippet,
    SDKLinkingObjects.querySnippet,
    SDKEmbedded.snippet,
    SDKSets.snippet,
    SDKMaps.snippet,
    SDKCodable.snippet,
]

/// A snippet that hangs (a queue that never runs, a lock never granted) must
/// fail the run, not stall CI: past this, the program reports it and exits.
let patience: Double = 120

var failures = 0
for snippet in snippets {
    let directory = ScratchDirectory.of(snippet.name)
    let watchdog = DispatchWorkItem {
        print("FAIL  \(snippet.name): did not finish in \(Int(patience)) s")
        exit(1)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + patience, execute: watchdog)
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard FileManager.default.changeCurrentDirectoryPath(directory) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: directory])
        }
        try await snippet.run(directory)
        print("ok    \(snippet.name)")
    } catch {
        failures += 1
        print("FAIL  \(snippet.name): \(error)")
    }
    watchdog.cancel()
}
_ = FileManager.default.changeCurrentDirectoryPath("/")
try? FileManager.default.removeItem(atPath: ScratchDirectory.root)
print(failures == 0 ? "\(snippets.count) snippets ran as the documents say"
                    : "\(failures) of \(snippets.count) snippets failed")
if failures > 0 { exit(1) }
