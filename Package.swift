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
        .package(url: "https://github.com/jpsim/Yams", "5.0.0"..<"7.0.0"),
    ],
    targets: [
        // Pure core: no Foundation, no I/O.
        .target(name: "FSPolicy"),
        .target(name: "FSPolicyFormat", dependencies: ["FSPolicy", "Yams"]),
        .executableTarget(
            name: "fspolicy",
            dependencies: [
                "FSPolicy", "FSPolicyFormat",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "fspolicy-bench", dependencies: ["FSPolicy"], path: "Benchmarks/fspolicy-bench"),
        .testTarget(name: "FSPolicyTests", dependencies: ["FSPolicy"]),
        .testTarget(name: "FSPolicyFormatTests", dependencies: ["FSPolicy", "FSPolicyFormat"]),
        .testTarget(name: "CLITests", dependencies: ["FSPolicyFormat", "fspolicy"]),
    ],
    swiftLanguageModes: [.v6]
)
