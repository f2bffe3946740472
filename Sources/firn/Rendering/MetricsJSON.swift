import FirnTools

/// One file of `firn metrics --json`.
struct MetricsJSON: Encodable {
    var path: String
    var sample: Metrics.Sample?
    var error: String?

    init(_ file: Metrics.File) {
        path = file.path
        sample = file.sample
        error = file.failure.map(ExitStatus.message)
    }
}
