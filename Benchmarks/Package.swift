// swift-tools-version: 6.1
// Firn's benchmarks: Firn against LMDB, SQLite, lz4 and (the SDK rows) GRDB in one run. A package
// of its own so the main package builds without the peers' libraries.
import PackageDescription
import Foundation

// A path dependency is named by its directory (the work tree's name), not by
// the manifest's "Firn": find it from where this manifest lives.
let firnPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "FirnBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // The SDK rows' peer: the Swift database library users would pick instead.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // liblmdb-dev ships no pkg-config file: link by name.
        .systemLibrary(name: "CLMDB", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CSQLiteBench", providers: [.apt(["libsqlite3-dev"])]),
        // The thread CPU clock both executables measure with.
        .target(name: "BenchClock"),
        .executableTarget(
            name: "firn-bench",
            dependencies: [
                "BenchClock",
                .product(name: "FirnCore", package: firnPackage),
                .product(name: "Firn", package: firnPackage),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CLMDB",
                "CSQLiteBench",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // A profiling aid for the SDK's read path: CPU per object, no peers.
        .executableTarget(
            name: "firn-sdk-probe",
            dependencies: [
                "BenchClock", .product(name: "Firn", package: firnPackage), .product(name: "FirnCore", package: firnPackage),
            ]
        ),
    ]
)
