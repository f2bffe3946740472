import ArgumentParser
import FirnTools

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show format, commit slots, space use (live, free, held by pins) and trees.",
        discussion: "JSON keys: formatVersion, pageSize, currentVersion, currentTime, durableVersion, slots[] (slot, valid, current, version, time, problem, unsealed), fileBytes, logicalBytes, liveBytes, freeBytes, pinnedBytes, awaitingReclaimBytes, freedByNextCommitBytes, nextCheckpoint (checkpoint, frames, replacedBytes, regionBytes, heldByPinsBytes, sharedBytes), trees[] (name, entries, depth, rootPage, loggedKeys, loggedReset), objectTypes[] (name, objects, primaryKey, properties[] (name, type, optional, primaryKey, indexed, list, target, declaration)), objectTypesProblem, log (\(Self.logKeys), firstOpenerVersion, publishedVersion), pins, stalePins, writerPID, pinned, note. log is the commit log of the checkpoint the version reads through, when it made one: the frames a scan of its region accepts, where the scan stopped and why (offsets are bytes from the region's start), the newest version whose frames apply, and the version a first opener takes (the log's durable version) against the one the lock file publishes; firn verify --json reports the same keys with the same values, with its notes instead of the two opener versions. objectTypes lists the types of the schema the Firn SDK keeps in the file (sys.schema) with the number of objects of each in the version; it is empty for a file the SDK did not write.")

    /// The keys of the commit log summary both `info` and `verify` report
    /// (`LogReport`), named once so the two helps cannot disagree.
    static let logKeys = "epoch, firstPage, pages, bytes, commitFrames, deferredFrames, sealFrames, newestVersion, durableVersion, end: full, blank, foreign, otherEpoch, torn, stale or damaged, endOffset, endPage, endEpoch, endDetail, usedBytes, freeBytes, appliedVersion, unappliedPage, unappliedVersion, unappliedDetail"

    @Argument(help: "The database file.") var file: String
    @OptionGroup var common: CommonOptions

    func run() throws {
        try Self.show(try Info.run(Info.Options(path: file)), file: file, common.format)
    }

    static func show(_ report: Info.Report, file: String, _ format: ReportFormat) throws {
        try format.show(note: report.note, json: { report }, text: { InfoText.lines(report, file: file) })
    }
}
