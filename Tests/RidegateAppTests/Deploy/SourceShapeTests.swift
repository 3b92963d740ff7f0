import Foundation
import RidegateTestSupport
import Testing

/// The code reads in one sitting: a type's state and the code that keeps its invariants in one file, functions
/// short enough to see at once, lines that fit a screen. Files are split by concern, never to meet a size.
/// Each look through the tree runs on a thread of its own (`OffThePool`): read and parsed on one of the suite's two
/// cooperative threads, the files (seconds under Swift 6.0.3's debug build) would hold up the async tests beside it.
@Suite struct SourceShapeTests {
    static let folders = ["Sources", "Tests", "Fuzz"]

    static func swiftFiles(in folders: [String] = folders) -> [String] {
        folders.flatMap { folder -> [String] in
            let base = RepositoryTextTests.root + "/" + folder
            let paths = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
            return paths.filter { $0.hasSuffix(".swift") && !$0.contains("/.") }.map { base + "/" + $0 }
        }
    }

    static func lines(of file: String) throws -> [Substring] {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    }

    static func name(_ file: String) -> String { String(file.dropFirst(RepositoryTextTests.root.count + 1)) }

    @Test("No function over 60 lines")
    func functionLength() async throws {
        let long = try await OffThePool.run { () throws -> [String] in
            var long: [String] = []
            for file in Self.swiftFiles() {
                for function in SwiftOutline.functions(try Self.lines(of: file)) where function.length > 60 {
                    long.append("\(Self.name(file)):\(function.line): a function of \(function.length) lines")
                }
            }
            return long
        }
        #expect(!Self.swiftFiles().isEmpty)
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
    }

    /// String literals count as empty: a message stays whole on one line, where grep finds it.
    @Test("No line's code over 150 columns")
    func lineLength() async throws {
        let wide = try await OffThePool.run { () throws -> [String] in
            var wide: [String] = []
            for file in Self.swiftFiles() {
                for (index, line) in try Self.lines(of: file).enumerated() where line.count > 150 {
                    let code = SwiftOutline.withoutStringLiterals(String(line))
                    if code.count > 150 { wide.append("\(Self.name(file)):\(index + 1): \(code.count) columns") }
                }
            }
            return wide
        }
        #expect(wide.isEmpty, "\(wide.joined(separator: "\n"))")
    }

    /// A reference type's mutable state is written only by code in its own file, where its invariants are read
    /// together. A weak delegate or a callback the owner sets is a connection, not state.
    @Test("A class's or actor's stored vars are private")
    func referenceStateIsPrivate() async throws {
        let open = try await OffThePool.run { () throws -> [String] in
            var open: [String] = []
            for file in Self.swiftFiles(in: ["Sources"]) {
                for variable in SwiftOutline.storedVariables(try Self.lines(of: file)) where variable.isReferenceTypeState && !variable.isConstant
                    && !variable.isPrivate && !variable.isConnection {
                    open.append("\(Self.name(file)):\(variable.line): \(variable.owner).\(variable.name) is not private")
                }
            }
            return open
        }
        #expect(open.isEmpty, "\(open.joined(separator: "\n"))")
    }

    /// A struct that keeps private state guards invariants: none of its stored vars may then be set from outside its
    /// file (`internal(set)`, `package(set)`, a bare or public `var`); a struct of plain fields (a message, a
    /// setting) has no private state and is left alone.
    @Test("A struct with private state has no var set from outside its file")
    func valueStateIsPrivate() async throws {
        let open = try await OffThePool.run { () throws -> [String] in
            var open: [String] = []
            for file in Self.swiftFiles(in: ["Sources"]) {
                let variables = SwiftOutline.storedVariables(try Self.lines(of: file))
                    .filter { $0.ownerKind == "struct" && !$0.isConnection && !$0.isConstant }
                let guarded = Set(variables.filter(\.isPrivate).map(\.owner))
                for variable in variables where guarded.contains(variable.owner) && !variable.isPrivate {
                    open.append("\(Self.name(file)):\(variable.line): \(variable.owner).\(variable.name) can be set from another file")
                }
            }
            return open
        }
        #expect(open.isEmpty, "\(open.joined(separator: "\n"))")
    }

    /// A value type's transitions live beside its stored state: an extension in another file cannot see the
    /// private members, so splitting them forces the state open.
    @Test("A struct's mutating functions are in the file that declares it")
    func transitionsBesideState() async throws {
        let strays = try await OffThePool.run { () throws -> [String] in
            var declared: [String: String] = [:]
            var mutating: [(type: String, file: String, line: Int)] = []
            for file in Self.swiftFiles(in: ["Sources"]) {
                let outline = try Self.lines(of: file)
                for type in SwiftOutline.structs(outline) { declared[type] = file }
                for function in SwiftOutline.mutatingFunctions(outline) { mutating.append((function.owner, file, function.line)) }
            }
            return mutating.compactMap { function -> String? in
                guard let home = declared[function.type], home != function.file else { return nil }
                return "\(Self.name(function.file)):\(function.line): \(function.type) is declared in \(Self.name(home))"
            }
        }
        #expect(strays.isEmpty, "\(strays.joined(separator: "\n"))")
    }

    /// The core routes events to the parts that own their state (`LiveRide`, `GatewayStatus`, `SunSchedule`, …);
    /// it keeps no state of its own beyond holding them, and shows none of it but through read-only accessors.
    @Test("GatewayCore is a router: under 250 lines, at most 10 stored properties, none visible outside its file")
    func coreIsARouter() throws {
        let file = RepositoryTextTests.root + "/Sources/RidegateCore/Pipeline/GatewayCore.swift"
        let lines = try Self.lines(of: file)
        let stored = SwiftOutline.storedVariables(lines).filter { $0.owner == "GatewayCore" }
        let count = lines.last?.isEmpty == true ? lines.count - 1 : lines.count // the final newline ends a line, none after it
        #expect(count < 250, "GatewayCore.swift has \(count) lines")
        #expect(!stored.isEmpty && stored.count <= 10, "GatewayCore stores \(stored.map(\.name))")
        let open = stored.filter { !$0.isPrivate || $0.modifiers.contains("private(set)") }.map(\.name)
        #expect(open.isEmpty, "GatewayCore's stored properties visible outside its file: \(open)")
    }

    /// A sensor kind is added by its `SensorProfile`: the rest of the gateway reads the kind's fields, never
    /// compares it with a built-in kind.
    @Test("No code compares a sensor's kind with a built-in kind")
    func kindsAreProfiles() async throws {
        let found = try await OffThePool.run { () throws -> [String] in
            let comparison = try NSRegularExpression(pattern: #"kind\s*[!=]=\s*(SensorProfile)?\.(heartRate|speedCadence|power)\b"#)
            var found: [String] = []
            for file in Self.swiftFiles(in: ["Sources"]) where !file.contains("/SensorProfile") {
                for (index, line) in try Self.lines(of: file).enumerated() {
                    let text = String(line)
                    if comparison.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                        found.append("\(Self.name(file)):\(index + 1): \(text.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
            return found
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// The daemon is one thread (`EventLoop`): a wait is the loop's timer or its epoll, whatever the toolchain.
    /// `Task.sleep` goes around the loop's executor hooks on Swift 6.2+ and Dispatch starts a pool that wakes every
    /// second. The only other threads are the blocking calls' (`BlockingThread`: a connect, an upload, a fsync,
    /// ending with them); a loop runs on whichever thread calls its `run()` (the main one, or a test's).
    @Test("Sources wait on the event loop: no Task.sleep, Dispatch, Foundation or thread of their own")
    func oneThread() async throws {
        let found = try await OffThePool.run { () throws -> [String] in
            let forbidden = ["Task.sleep", "import Dispatch", "import Foundation", "DispatchQueue", "Thread(", "pthread_create",
                             "mosquitto_loop_start", "mosquitto_loop_forever"]
            let allowed = ["Sources/RidegateLinux/System/BlockingThread.swift": "pthread_create"]
            var found: [String] = []
            for file in Self.swiftFiles(in: ["Sources"]) {
                for (index, line) in try Self.lines(of: file).enumerated() {
                    let code = SwiftOutline.withoutStringLiterals(String(line)).components(separatedBy: "//")[0]
                    for word in forbidden where code.contains(word) && allowed[Self.name(file)] != word {
                        found.append("\(Self.name(file)):\(index + 1): \(word)")
                    }
                }
            }
            return found
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
