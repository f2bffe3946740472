import ArgumentParser
import FirnTools
import Foundation

struct GrowthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "growth",
        abstract: "Chart file size, live, free and held-by-pins bytes over the recorded commits, and explain the growth.",
        discussion: "JSON keys: currentVersion, points[] (version, time, timestampNanoseconds, fileBytes, liveBytes, freeBytes, heldByPinsBytes, pagesWritten, commitsSincePrevious: the commits in the log a checkpoint applied, which the history does not date one by one), grewBytes, grewSinceVersion, pinnedBytes, topPin, pins[] (every live pin, most bytes retained first, with the keys of firn pins: slot, version, pid, threadID, kind, label, lag, since, sinceSeconds, frozenObjects, retainedBytes, retainedAfterCheckpointBytes, stale), explanation, checkpointVersion (the current version is a commit in the log since this checkpoint), nextCheckpoint (as in firn pins), pinned, note. On the commit log there is one point per checkpoint, the commits in the log between two checkpoints counted in the later one. Text lists the same pins under the chart: pid, kind, version, lag, age, frozen objects, bytes retained, label.")

    @Argument(help: "The database file.") var file: String
    @Option(help: ArgumentHelp("Also write the chart as SVG to this path.", valueName: "path")) var svg: String?
    @Flag(help: "Print the history as CSV instead of a chart.") var csv = false
    @Option(parsing: .unconditional, help: "Chart width in columns (10…400; default: 60).", transform: NumericOption.width) var width = 60
    @OptionGroup var common: CommonOptions

    func validate() throws {
        if csv && common.json { throw ValidationError("--csv and --json are exclusive") }
    }

    func run() throws {
        let report = try Growth.run(Growth.Options(path: file))
        common.note(report.note)
        if let svg {
            let output = try OutputFile(destination: svg, replace: true)
            try output.write(Array(GrowthSVG.render(report).utf8))
            try output.commit()
        }
        if csv { return try Console.write(GrowthCSV.render(report)) }
        try Self.show(report, file: file, width: width, common.format, note: false)
        if let svg, !common.json { try Console.line(GrowthText.chartWritten(to: svg)) }
    }

    static func show(_ report: Growth.Report, file: String, width: Int, _ format: ReportFormat, note: Bool = true) throws {
        try format.show(note: note ? report.note : nil, json: { GrowthText.json(report) },
                        text: { GrowthText.lines(report, file: file, width: width) })
    }
}
