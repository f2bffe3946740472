// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Firn",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FirnCore", targets: ["FirnCore"]),
        .library(name: "Firn", targets: ["Firn"]),
        .executable(name: "firn", targets: ["firn"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Tiny C: CRC32C, futex, shared-memory atomics, robust mutex, OFD locks.
        .target(name: "CFirnShims"),
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        // XXH32 for the LZ4 frame's header and block checksums (export).
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        .target(name: "FirnCore", dependencies: ["CFirnShims"]),
        .target(name: "FirnTools", dependencies: ["FirnCore", "CLZ4", "CXXHash"]),
        // The SDK: objects, thread-confined instances, frozen values (SDK.md).
        .target(name: "Firn", dependencies: ["FirnCore"], swiftSettings: [.swiftLanguageMode(.v6)]),
        // `firn demo`'s application (Person and Dog through the SDK) and its
        // tour: above both FirnTools and the SDK, which stay siblings.
        .target(name: "FirnDemo", dependencies: ["Firn", "FirnTools"]),
        .executableTarget(
            name: "firn",
            dependencies: [
                "FirnTools",
                "FirnDemo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Child-process driver for the multi-process, kill and power-loss tests.
        .executableTarget(name: "firn-testkit", dependencies: ["FirnCore"]),
        // What the three test targets share: a temporary directory, a seeded
        // generator, child processes and the built products they run.
        .target(name: "FirnTestSupport", dependencies: ["FirnCore"], path: "Tests/FirnTestSupport"),
        .testTarget(name: "FirnCoreTests", dependencies: ["FirnCore", "FirnTestSupport", "firn-testkit"]),
        // An app's main.swift on the SDK (top-level code is main-actor code),
        // run by the SDK tests that must see it as an app does.
        .executableTarget(name: "firn-sdk-client", dependencies: ["Firn"]),
        .testTarget(name: "FirnTests", dependencies: ["Firn", "FirnCore", "FirnTestSupport", "firn-sdk-client"]),
        // Firn: the object tests write files with the SDK, then read them with the built `firn`.
        .testTarget(name: "FirnToolsTests", dependencies: ["FirnTools", "Firn", "FirnTestSupport", "firn", "firn-testkit"]),
    ]
)
