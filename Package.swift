// swift-tools-version:6.0
// The Pi runs apt's swiftlang 6.0.3: keep the tools version, and every language feature, at 6.0.
import PackageDescription

let package = Package(
    name: "ridegate",
    products: [
        .executable(name: "ridegate", targets: ["ridegate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries, found through pkg-config.
        .systemLibrary(
            name: "CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CBluetooth", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(
            name: "CGPIOD", pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]),
        // One shim over libgpiod's v1 (bookworm) and v2 (trixie) APIs, chosen at compile time.
        .target(
            name: "CGPIOShim",
            dependencies: ["CGPIOD"],
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]),

        // SQLite's process-wide settings (sqlite3_config is variadic: Swift cannot call it).
        .target(
            name: "CSQLiteShim",
            dependencies: ["CSQLite"],
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]),

        // HTTPS for the uploads to training sites: Debian's libcurl, loaded only when a site is configured (its
        // header from libcurl4-openssl-dev; nothing links against it).
        .target(name: "CCurlShim", cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]),

        // Linux calls Swift's Glibc module does not expose.
        .target(name: "CLinuxShim", cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]),

        // Pure: parsers, models, rules, payloads. No I/O, no Foundation.
        .target(name: "RidegateCore"),
        // Thin adapters over the kernel and the C libraries.
        .target(
            name: "RidegateLinux",
            dependencies: ["RidegateCore", "CMosquitto", "CBluetooth", "CGPIOShim", "CLinuxShim", "CSQLite", "CSQLiteShim", "CCurlShim"]),
        // The one place that wires sources, core and sinks; config loading; doctor; the uploads.
        .target(
            name: "RidegateApp",
            dependencies: ["RidegateCore", "RidegateLinux"]),
        // `ridegate demo`: simulated peripherals and signals, a replayed receiver, recorded rides. Linked by the
        // CLI only: the daemon's modules know nothing of it.
        .target(
            name: "RidegateDemo",
            dependencies: ["RidegateApp", "RidegateCore", "RidegateLinux"]),
        .executableTarget(
            name: "ridegate",
            dependencies: [
                "RidegateApp", "RidegateCore", "RidegateDemo", "RidegateLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The shipped (release) binary, smaller in memory: lld packs its 42 000 relative relocations into
            // 8 KB (DT_RELR, glibc >= 2.36: bookworm and trixie) instead of 1 MB read at every start, the
            // static runtime's link arguments no longer export 6 000 of our symbols nothing looks up, and the
            // functions a ride runs sit side by side (linker/hot-code.order, from scripts/order-hot-code), and
            // libstdc++ (the Swift runtime's) is linked from its static archive (linker/static-libstdc++).
            // See docs/performance.md.
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                              "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/linker/hot-code.order",
                              "-Xlinker", "--no-warn-symbol-ordering",
                              "-L", "\(Context.packageDirectory)/linker/static-libstdc++"],
                             .when(platforms: [.linux], configuration: .release)),
            ]),

        // Every parser that takes outside bytes, as fuzz targets (scripts/fuzz), and their runner.
        .target(
            name: "RidegateFuzzTargets",
            dependencies: ["RidegateApp", "RidegateCore", "RidegateDemo", "RidegateLinux"],
            path: "Fuzz/Targets"),
        .executableTarget(
            name: "ridegate-fuzz",
            dependencies: ["RidegateFuzzTargets", "RidegateApp", "RidegateCore"],
            path: "Fuzz/Runner"),

        // The ride log's disk cost and the exporters' speed, for scripts/bench.
        .executableTarget(
            name: "ridegate-ridelog-bench",
            dependencies: ["RidegateCore", "RidegateLinux"],
            path: "bench/RideLog"),

        .target(
            name: "RidegateTestSupport",
            dependencies: ["RidegateCore", "RidegateLinux"],
            path: "Tests/RidegateTestSupport"),
        .testTarget(
            name: "RidegateCoreTests",
            dependencies: ["RidegateCore", "RidegateTestSupport"]),
        .testTarget(
            name: "RidegateLinuxTests",
            dependencies: ["RidegateLinux", "RidegateCore", "RidegateTestSupport"]),
        .testTarget(
            name: "RidegateDemoTests",
            dependencies: ["RidegateDemo", "RidegateApp", "RidegateLinux", "RidegateCore", "RidegateTestSupport"]),
        .testTarget(
            name: "RidegateAppTests",
            dependencies: ["RidegateApp", "RidegateDemo", "RidegateLinux", "RidegateCore", "RidegateTestSupport", "RidegateFuzzTargets"]),
    ],
    swiftLanguageModes: [.v6]
)
