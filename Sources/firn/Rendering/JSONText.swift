import FirnTools

/// JSON written by hand, one object per line (`dump --entries --json`,
/// `dump --objects --json`): string literals.
enum JSONText {
    /// A JSON string literal: `\"`, `\\`, `\n`, `\r`, `\t`, other controls
    /// and DEL as `\u00XX`.
    static func quoted(_ s: String) -> String {
        ByteText.quoted(s) { "\\u00" + ByteText.hexString([$0]) }.text
    }
}
