import ArgumentParser
import FirnTools

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show format, commit slots, space use (live, free, held by pins) and trees.",
        discussion: "JSON keys: formatVersion, pageSize, currentVersion, currentTime, durableVersion, slots[] (slot, valid, current, version, time, problem, unsealed), fileBytes, logicalBytes, liveBytes, freeBytes, pinnedBytes, awaitingReclaimBytes, freedByNextCommitBytes, nextCheckpoint (checkpoint, frames, replacedBytes, regionBytes, heldByPinsBytes, sharedBytes), trees[] (name, entries, depth, rootPage, loggedKeys, loggedReset), objectTypes[] (name, objects, primaryKey, properties[] (name, type, optional, primaryKey, indexed, list, target, declaration)), objectTypesProblem, log (epoch, firstPage, pages, bytes, commitFrames, deferredFrames, sealFrames, newestVersion, durableVersion, end: full, blank, foreign, otherEpoch, torn, stale or damaged, endOffset, endPage, endEpoch, endDetail, usedBytes, freeBytes, firstOpenerVersion, publishedVersion, unappliedPage, unappliedVersion, unappliedDetail), pins, stalePins, writerPID, pinned, note. log is the commit log of the checkpoint the version reads through, when it made one: the frames a scan of its region accepts, where the scan stopped and why (offsets are bytes from the region's start), and the version a first opener takes (the log's durable version) against the one the lock file publishes. objectTypes lists the types of the schema the Firn SDK keeps in the file (sys.schema) with the number of objects of each in the version; it is empty for a file the SDK did not write.")

    @Argument(help: "The database file.") var file: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try Self.show(try Info.run(Info.Options(path: file)), file: file, common.format)
    }

    static func show(_ report: Info.Report, file: String, _ format: ReportFormat) throws {
        try format.show(note: report.note, json: { report }, text: { InfoText.lines(report, file: file) })
    }
}
