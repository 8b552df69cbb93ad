// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "fspolicy",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "FSPolicy", targets: ["FSPolicy"]),
        .executable(name: "fspolicy", targets: ["fspolicy"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Pure core: no Foundation, no I/O.
        .target(name: "FSPolicy"),
        .target(name: "FSPolicyFormat", dependencies: ["FSPolicy"]),
        // Set questions (every user, every node): the set engine, matrix, access and diff. Pure.
        .target(name: "FSPolicyAudit", dependencies: ["FSPolicy"]),
        // `fspolicy report`: one self-contained HTML page (docs/report.md). Pure.
        .target(name: "FSPolicyReport", dependencies: ["FSPolicy", "FSPolicyFormat", "FSPolicyAudit"]),
        // libacl (Debian: libacl1-dev); only FSPolicyLinux imports it.
        .systemLibrary(name: "CLibACL", path: "Sources/CLibACL", providers: [.apt(["libacl1-dev"])]),
        // The only code that touches a real file system.
        .target(name: "FSPolicyLinux", dependencies: [
            "FSPolicy", "FSPolicyFormat",
            .target(name: "CLibACL", condition: .when(platforms: [.linux])),
        ]),
        // libarchive (Debian: libarchive-dev); only FSPolicyArchive imports it.
        .systemLibrary(name: "CLibArchive", path: "Sources/CLibArchive", providers: [.apt(["libarchive-dev"])]),
        // Reads tar archives and OCI image layouts as trees.
        .target(name: "FSPolicyArchive", dependencies: [
            "FSPolicy", "FSPolicyFormat", "FSPolicyIO",
            .target(name: "CLibArchive", condition: .when(platforms: [.linux])),
        ]),
        .executableTarget(
            name: "fspolicy",
            dependencies: [
                "FSPolicy", "FSPolicyFormat", "FSPolicyLinux", "FSPolicyAudit", "FSPolicyArchive", "FSPolicyIO", "FSPolicyReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Writing output without crashing or writing through (no Foundation).
        .target(name: "FSPolicyIO"),
        // Performs real file-system operations for the differential test against the kernel.
        .executableTarget(name: "fspolicy-probe", dependencies: [.target(name: "CLibACL", condition: .when(platforms: [.linux]))]),
        // Fuzz targets (scripts/fuzz builds them with libFuzzer; an ordinary build replays a corpus).
        .executableTarget(name: "fspolicy-fuzz", dependencies: ["FSPolicy", "FSPolicyFormat", "FSPolicyArchive"]),
        .executableTarget(name: "fspolicy-bench", dependencies: ["FSPolicy", "FSPolicyAudit"], path: "Benchmarks/fspolicy-bench"),
        .testTarget(name: "FSPolicyTests", dependencies: ["FSPolicy", "FSPolicyAudit"]),
        .testTarget(name: "FSPolicyFormatTests", dependencies: ["FSPolicy", "FSPolicyFormat"]),
        .testTarget(name: "CLITests", dependencies: ["FSPolicyFormat", "FSPolicyArchive", "FSPolicyReport", "fspolicy", "fspolicy-fuzz"]),
        .testTarget(name: "FSPolicyLinuxTests", dependencies: ["FSPolicy", "FSPolicyFormat", "FSPolicyLinux", "FSPolicyArchive", "fspolicy", "fspolicy-probe"]),
    ],
    swiftLanguageModes: [.v6]
)
