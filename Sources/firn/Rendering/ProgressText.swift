import FirnTools

/// The progress line a long command draws on stderr: with a known total, a
/// bar, the percent, the count, the rate and the time left; without one
/// (`load`, a snapshot read from stdin), the count alone.
enum ProgressText {
    static let barWidth = 20

    static func line(_ progress: ToolProgress, elapsedSeconds: Double) -> String {
        let phase = progress.phase.rawValue
        guard let total = progress.total, total > 0 else {
            return "\(phase) \(amount(progress.done, progress.unit))"
        }
        let done = min(progress.done, total)
        let fraction = Double(done) / Double(total)
        let filled = Int((fraction * Double(barWidth)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        var text = "\(phase) [\(bar)] \(Int(fraction * 100))%  \(Human.grouped(done))/\(Human.grouped(total)) \(progress.unit.rawValue)"
        let rate = elapsedSeconds > 0 ? Double(done) / elapsedSeconds : 0
        if rate > 0 {
            text += "  " + (progress.unit == .bytes ? Human.bytes(UInt64(rate)) : Human.grouped(UInt64(rate)) + " " + progress.unit.rawValue) + "/s"
            text += "  ETA " + Human.duration(seconds: Double(total - done) / rate)
        }
        return text
    }

    private static func amount(_ value: UInt64, _ unit: ToolProgress.Unit) -> String {
        unit == .bytes ? Human.bytes(value) : "\(Human.grouped(value)) \(unit.rawValue)"
    }
}
