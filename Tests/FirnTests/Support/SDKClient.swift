import FirnTestSupport

/// Runs `firn-sdk-client` (Sources/firn-sdk-client: an app's `main.swift`
/// on the SDK), built next to this test bundle.
enum SDKClient {
    static func run(_ scenario: String, database: String) throws -> ChildProcess.Outcome {
        // A trap's backtrace would take seconds and flood the output.
        try ChildProcess.run(BuiltProducts.sdkClient, [scenario, database], environment: ["SWIFT_BACKTRACE": "enable=no"])
    }
}
