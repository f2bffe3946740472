// swift-tools-version: 6.1
// The reference documents' examples as a small program on the Firn SDK, and
// the README's and docs/SDK.md's Swift snippets as programs that run them. A
// package of its own, like Benchmarks/, so the main package does not change:
// `make examples` builds and runs it. Tools version 6.1: every target here is
// compiled in the Swift 6 language mode, as a user's new package is.
import PackageDescription

let package = Package(
    name: "FirnExamples",
    platforms: [.macOS(.v15)],
    // The README shows this region as what an application's manifest says
    // (DocsTests compares the two): doc-snippet-sdk is the README's first SDK
    // example, an application depending on the Firn product alone. `name:`
    // names the package as its manifest does, so that `.product(package:)`
    // does not depend on what Firn's directory is called.
    // snippet: readme-package
    dependencies: [
        .package(name: "Firn", path: ".."),  // the directory holding Firn's Package.swift
    ],
    targets: [
        .executableTarget(name: "doc-snippet-sdk", dependencies: [.product(name: "Firn", package: "Firn")]),
    ]
    // snippet end
)

package.targets += [
    // What the example programs share: checks, and a value handed between threads.
    .target(name: "ExampleSupport"),
    .executableTarget(
        name: "firn-examples",
        dependencies: ["ExampleSupport", .product(name: "Firn", package: "Firn")]
    ),
    // The documents' snippets, each a region between `// snippet: NAME` and
    // `// snippet end` in these targets' sources (and the manifest region
    // above); DocsTests, in the main package, requires every ```swift block
    // of README.md and docs/SDK.md to be one of them, and each of them to be
    // in a document. doc-snippets runs them all; a snippet that is top-level
    // code in the documents is the main.swift of a program of its own
    // (doc-snippet-engine, doc-snippet-sdk, doc-snippet-queries), which
    // doc-snippets runs.
    .executableTarget(
        name: "doc-snippets",
        dependencies: [
            "ExampleSupport",
            .product(name: "Firn", package: "Firn"),
            .product(name: "FirnCore", package: "Firn"),
        ]
    ),
    .executableTarget(name: "doc-snippet-engine", dependencies: [.product(name: "FirnCore", package: "Firn")]),
    .executableTarget(name: "doc-snippet-queries", dependencies: [.product(name: "Firn", package: "Firn")]),
]
