// swift-tools-version: 6.1
// The reference documents' examples as a small program on the Firn SDK. A
// package of its own, like Benchmarks/, so the main package does not change:
// `make examples` builds and runs it.
import PackageDescription
import Foundation

// A path dependency is named by its directory (the work tree's name), not by
// the manifest's "Firn": find it from where this manifest lives.
let firnPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "FirnExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "firn-examples",
            dependencies: [.product(name: "Firn", package: firnPackage)]
        ),
    ]
)
