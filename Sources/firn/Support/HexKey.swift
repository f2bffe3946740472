import FirnTools

/// A key given as hex digits (`--hex`, `dump --from/--to --hex`).
enum HexKey {
    static func parse(_ text: String) -> [UInt8]? {
        ByteText.parse(Substring("x" + text))
    }
}
