import FirnCore

extension Cursor {
    /// Every entry from the first, as (key, value) copies: what a test
    /// compares with its model after the changes it made.
    package func allEntries() throws -> [(key: [UInt8], value: [UInt8])] {
        var walked: [(key: [UInt8], value: [UInt8])] = []
        try first()
        while isValid {
            guard let key = try key, let value = try value else { break }
            walked.append((key, value))
            try next()
        }
        return walked
    }
}
