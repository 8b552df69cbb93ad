// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "fspolicy",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "FSPolicy", targets: ["FSPolicy"]),
        .executable(name: "fspolicy", targets: ["fspolicy"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // Pure core: no Foundation, no I/O.
        .target(name: "FSPolicy"),
        // Reading YAML into located nodes: the one reader of policy files, and its refusals.
        .target(name: "FSPolicyYAML", dependencies: ["FSPolicy"]),
        // The policy format: the loader and its diagnostics, the scan files and listings the
        // loader reads, writing policy and scan files, `fmt`, the schema.
        .target(name: "FSPolicyFormat", dependencies: ["FSPolicy", "FSPolicyYAML"]),
        // libarchive (Debian: libarchive-dev); only FSPolicyImport imports it.
        .systemLibrary(name: "CLibArchive", path: "Sources/CLibArchive", providers: [.apt(["libarchive-dev"])]),
        // Importers the loader reaches through its seams: tar archives and OCI image layouts.
        .target(
            name: "FSPolicyImport",
            dependencies: [
                "FSPolicy", "FSPolicyFormat", "FSPolicyIO",
                .target(name: "CLibArchive", condition: .when(platforms: [.linux]))
            ]),
        // Renderers of decisions: text, JSON, keychain text; the one output sink. Pure but for the sink.
        .target(name: "FSPolicyRender", dependencies: ["FSPolicy", "FSPolicyFormat", "FSPolicyIO"]),
        // Checks and audits: expectations, quantified ones, findings, set questions, lint, diff. Pure.
        .target(name: "FSPolicyAudit", dependencies: ["FSPolicy", "FSPolicyFormat", "FSPolicyRender"]),
        // Every command's output document: check, lint and diff JSON/JUnit/SARIF, matrix and access CSV/JSONL, HTML. Pure.
        .target(name: "FSPolicyReport", dependencies: ["FSPolicy", "FSPolicyYAML", "FSPolicyFormat", "FSPolicyRender", "FSPolicyAudit"]),
        // Teaching: the quiz's questions, the picture shown with each, asking, grading, scoring. Pure.
        .target(name: "FSPolicyTeach", dependencies: ["FSPolicy", "FSPolicyFormat", "FSPolicyRender", "FSPolicyAudit"]),
        // libacl (Debian: libacl1-dev); only FSPolicyLinux imports it.
        .systemLibrary(name: "CLibACL", path: "Sources/CLibACL", providers: [.apt(["libacl1-dev"])]),
        // The only code that touches a real file system: the scanner and the host's accounts.
        .target(
            name: "FSPolicyLinux",
            dependencies: [
                "FSPolicy", "FSPolicyFormat",
                .target(name: "CLibACL", condition: .when(platforms: [.linux]))
            ]),
        // Writing output without crashing or writing through (no Foundation).
        .target(name: "FSPolicyIO"),
        // The command line: argument parsing and wiring.
        .executableTarget(
            name: "fspolicy",
            dependencies: [
                "FSPolicy", "FSPolicyFormat", "FSPolicyImport", "FSPolicyRender", "FSPolicyAudit", "FSPolicyReport",
                "FSPolicyTeach", "FSPolicyLinux", "FSPolicyIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]),
        // Performs real file-system operations for the differential test against the kernel.
        .executableTarget(name: "fspolicy-probe", dependencies: [.target(name: "CLibACL", condition: .when(platforms: [.linux]))]),
        // Fuzz targets (scripts/fuzz builds them with libFuzzer; an ordinary build replays a corpus).
        .executableTarget(name: "fspolicy-fuzz", dependencies: ["FSPolicy", "FSPolicyFormat", "FSPolicyImport", "FSPolicyRender", "FSPolicyAudit"]),
        .executableTarget(name: "fspolicy-bench", dependencies: ["FSPolicy", "FSPolicyAudit"], path: "Benchmarks/fspolicy-bench"),
        .testTarget(name: "FSPolicyTests", dependencies: ["FSPolicy", "FSPolicyAudit"]),
        .testTarget(name: "FSPolicyYAMLTests", dependencies: ["FSPolicyYAML"]),
        .testTarget(
            name: "FSPolicyFormatTests",
            dependencies: [
                "FSPolicy", "FSPolicyYAML", "FSPolicyFormat", "FSPolicyRender", "FSPolicyAudit", "FSPolicyReport"
            ]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "FSPolicyFormat", "FSPolicyImport", "FSPolicyRender", "FSPolicyAudit", "FSPolicyReport", "FSPolicyTeach",
                "fspolicy", "fspolicy-fuzz"
            ]),
        .testTarget(
            name: "FSPolicyLinuxTests",
            dependencies: [
                "FSPolicy", "FSPolicyFormat", "FSPolicyImport", "FSPolicyRender", "FSPolicyAudit", "FSPolicyLinux",
                "fspolicy", "fspolicy-probe"
            ])
    ],
    swiftLanguageModes: [.v6]
)
