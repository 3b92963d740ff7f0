import Foundation

/// Where the tests find the repository and the `ridegate` executable the package built.
public enum RepositoryPaths {
    /// The checkout: this file is `Tests/RidegateTestSupport/RepositoryPaths.swift` in it.
    public static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The `ridegate` executable built beside this test bundle.
    public static var executable: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("ridegate").path
    }
}
