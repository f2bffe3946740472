import ArgumentParser
import FirnDemo
import FirnCore
import FirnTools
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The demo's application, as processes of their own (hidden: `firn demo`
/// runs `cache` as its second process; the tests use both to make real SDK
/// files and real frozen pins). They open the file with the demo's Person
/// and Dog types, so they work on files they or `firn demo` made.
struct DemoAppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-app",
        abstract: "The demo's application: write Person and Dog objects, or cache frozen results.",
        shouldDisplay: false,
        subcommands: [Write.self, Cache.self])

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Commit demo objects (people, new dogs, birthdays, departures) with the Firn SDK, creating the file when missing.",
            discussion: "JSON keys: path, commits, version, people, dogs.")

        @Argument(help: "The database file.") var file: String
        @Option(parsing: .unconditional, help: ArgumentHelp("Commits to make (1…100000; default 1).", valueName: "n"),
                transform: NumericOption.demoCommits) var commits = 1
        @OptionGroup var common: CommonOptions

        struct Report: Codable {
            var path: String
            var commits: Int
            var version: UInt64
            var people: Int
            var dogs: Int
        }

        func run() throws {
            if DatabaseInput.fileExists(file) { try DatabaseInput.checkRegularFile(file) }
            var writer = try DemoWriter(path: file)
            for _ in 0..<commits { try writer.commit() }
            let report = Report(path: file, commits: commits, version: writer.database.version,
                                people: writer.database.objects(Person.self).count, dogs: writer.database.objects(Dog.self).count)
            try common.format.show(json: { report }, text: { DemoAppText.written(report, file: file) })
        }
    }

    struct Cache: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cache",
            abstract: "Freeze every Dog (sorted by name) and keep the frozen objects until interrupted or --seconds pass.",
            discussion: "Prints one line (\"cached N frozen Dog objects of version V (pid P)\"), then waits; ends with exit 0 on SIGINT/SIGTERM. With --objects-to PATH, first writes the cached dogs as the application reads them from its frozen objects, one JSON object per line ({\"id\", \"name\", \"age\"}, in the cache's order), to compare with firn dump --version V --objects. JSON keys: path, version, pid, frozenObjects.")

        @Argument(help: "The database file (made by firn demo or demo-app write).") var file: String
        @OptionGroup var holding: HoldingTime
        @Option(help: ArgumentHelp("Write the cached dogs, as the application reads them, to this file (JSON lines).", valueName: "path"))
        var objectsTo: String?
        @OptionGroup var common: CommonOptions

        func run() throws {
            Interruption.install(exitOnSignal: false)
            try Self.checkDemoTypes(file)
            let cache = try FrozenCache(path: file)
            defer { cache.release() }
            if let objectsTo {
                let output = try OutputFile(destination: objectsTo, replace: true)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                var bytes: [UInt8] = []
                for dog in cache.cachedDogs {
                    bytes += Array(try encoder.encode(dog))
                    bytes.append(10)
                }
                try output.write(bytes)
                try output.commit()
            }
            try common.format.show(json: { cache.report }, text: { DemoAppText.cached(cache.report) })
            holding.wait(checking: {})
        }

        /// Refuses, without writing, a file whose schema lacks the demo's
        /// types (opening it with the SDK would add them).
        static func checkDemoTypes(_ path: String) throws {
            let access = try ReadAccess.open(path, label: "firn demo-app")
            defer { access.close() }
            let stored = Set(try StoredSchema.read(access.snapshot).map(\.name))
            guard stored.isSuperset(of: ["Dog", "Person"]) else {
                throw ToolError.badInput(path: path, detail: "not a demo database: it stores no Dog and Person objects (make one with firn demo or firn demo-app write)")
            }
        }
    }
}
