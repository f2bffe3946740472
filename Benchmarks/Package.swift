// swift-tools-version: 6.1
// Firn's benchmarks: Firn against LMDB, SQLite and lz4 in one run. A package
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
    ],
    targets: [
        // liblmdb-dev ships no pkg-config file: link by name.
        .systemLibrary(name: "CLMDB", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "CSQLiteBench", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "firn-bench",
            dependencies: [
                .product(name: "FirnCore", package: firnPackage),
                "CLMDB",
                "CSQLiteBench",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
