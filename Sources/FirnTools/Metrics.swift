import FirnCore

/// `firn metrics`: what a monitor watches of each database, read with the
/// operations `info`, `pins` and (when asked) `verify` use, as numbers per
/// file. The CLI writes them in the Prometheus text format
/// (`MetricsText`), for node_exporter's textfile collector.
package enum Metrics {
    package struct Options: Sendable {
        package var paths: [String]
        /// Also verify each file (reads every page: minutes on a large file).
        package var verify = false
        package init(paths: [String]) { self.paths = paths }
    }

    /// The live pins of one kind (stale slots of exited processes are
    /// counted apart: they hold nothing a writer will not reclaim).
    package struct KindSample: Codable, Sendable, Equatable {
        package var kind: RecordedPinKind
        package var pins: Int = 0
        /// The oldest pin's commits behind the latest version, and its age.
        package var oldestLag: UInt64 = 0
        package var oldestAgeSeconds: Double = 0
        package var frozenObjects: UInt64 = 0
    }

    package struct VerifySample: Codable, Sendable, Equatable {
        package var clean: Bool
        package var findings: Int
        package var seconds: Double
    }

    /// One file's numbers.
    package struct Sample: Codable, Sendable {
        package var fileBytes: UInt64
        package var liveBytes: UInt64
        package var freeBytes: UInt64
        package var pinnedBytes: UInt64
        package var awaitingReclaimBytes: UInt64
        package var currentVersion: UInt64
        package var durableVersion: UInt64
        package var livePins: Int
        package var stalePins: Int
        package var kinds: [KindSample]
        package var verify: VerifySample?
    }

    /// A file's sample, or why it could not be read (the others are still
    /// sampled: one broken file must not blind the monitor to the rest).
    package struct File: Sendable {
        package var path: String
        package var sample: Sample?
        package var failure: (any Error)?
    }

    package static func run(_ options: Options) -> [File] {
        options.paths.map { path in
            do {
                return File(path: path, sample: try sample(path, verify: options.verify), failure: nil)
            } catch {
                return File(path: path, sample: nil, failure: error)
            }
        }
    }

    private static func sample(_ path: String, verify: Bool) throws -> Sample {
        let info = try Info.run(Info.Options(path: path))
        let pins = try Pins.run(Pins.Options(path: path))
        var kinds: [KindSample] = []
        for pin in pins.pins where !pin.stale {
            let index = kinds.firstIndex { $0.kind == pin.kind } ?? {
                kinds.append(KindSample(kind: pin.kind))
                return kinds.count - 1
            }()
            kinds[index].pins += 1
            kinds[index].oldestLag = max(kinds[index].oldestLag, pin.lag)
            kinds[index].oldestAgeSeconds = max(kinds[index].oldestAgeSeconds, pin.sinceSeconds)
            kinds[index].frozenObjects += pin.frozenObjects
        }
        var sample = Sample(fileBytes: info.fileBytes, liveBytes: info.liveBytes, freeBytes: info.freeBytes,
                            pinnedBytes: info.pinnedBytes, awaitingReclaimBytes: info.awaitingReclaimBytes,
                            currentVersion: info.currentVersion, durableVersion: info.durableVersion,
                            livePins: pins.pins.filter { !$0.stale }.count, stalePins: pins.pins.filter(\.stale).count,
                            kinds: kinds.sorted { $0.kind.description < $1.kind.description }, verify: nil)
        if verify {
            let report = try Verify.run(Verify.Options(path: path))
            sample.verify = VerifySample(clean: report.clean, findings: report.verify.findings.count, seconds: report.seconds)
        }
        return sample
    }
}
