/// Sizes, counts and durations as the text output shows them to people.
enum Human {
    /// "4.1 GiB", "812 KiB", "96 B".
    static func bytes(_ value: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1024 && unit < units.count - 1 {
            amount /= 1024
            unit += 1
        }
        if unit == 0 { return "\(value) B" }
        return amount >= 100 ? "\(Int(amount.rounded())) \(units[unit])" : "\(oneDecimal(amount)) \(units[unit])"
    }

    /// Signed byte difference: "+1.2 MiB", "-40 KiB".
    static func delta(_ before: UInt64, _ after: UInt64) -> String {
        after >= before ? "+" + bytes(after - before) : "-" + bytes(before - after)
    }

    static func oneDecimal(_ value: Double) -> String {
        // Beyond Int's range (or not a number), Int(_:) would trap.
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        let scaled = (value * 10).rounded()
        let whole = Int(scaled / 10)
        let tenth = abs(Int(scaled) % 10)
        return "\(whole).\(tenth)"
    }

    /// 1532 → "1,532".
    static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }

    /// "2 h", "5 min", "40 s", "3 d".
    static func duration(seconds: Double) -> String {
        let s = max(0, seconds)
        if s < 90 { return "\(Int(s.rounded())) s" }
        if s < 90 * 60 { return "\(Int((s / 60).rounded())) min" }
        if s < 36 * 3600 { return "\(oneDecimal(s / 3600).droppingSuffix(".0")) h" }
        return "\(oneDecimal(s / 86400).droppingSuffix(".0")) d"
    }
}

extension String {
    /// Left-aligned in a column of `width` characters.
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    /// Right-aligned in a column of `width` characters.
    func leftPadding(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }

    func droppingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
