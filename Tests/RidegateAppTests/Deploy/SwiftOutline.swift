import Foundation

/// Just enough of a Swift file's outline for `SourceShapeTests`, read line by line: which type each line is
/// inside (by its braces, string literals and comments aside), its functions and its stored variables. The
/// project's own layout (one declaration a line, `{` ending the line that opens a body) is assumed.
enum SwiftOutline {
    struct Variable {
        var owner: String
        var ownerKind: String
        var name: String
        var line: Int
        var modifiers: String
        var type: String
        /// Declared with `let`: set once, by an initialiser.
        var isConstant = false

        var isReferenceTypeState: Bool { ownerKind == "class" || ownerKind == "actor" }
        var isPrivate: Bool { modifiers.contains("private") }
        /// A weak delegate, or a callback its owner sets: how the object reaches others, not its state.
        var isConnection: Bool { modifiers.contains("weak") || type.contains("->") }
    }

    struct Scope {
        var kind: String
        var path: String
        var depth: Int
    }

    static let declaration = try? NSRegularExpression(
        pattern: #"^(\s*)(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|static|mutating|nonisolated|override|final|convenience|required)\s+)*(func\s|init[?(<]|deinit\b)"#)
    static let typeDeclaration = try? NSRegularExpression(
        pattern: #"^\s*(@\w+(\([^)]*\))?\s+)*((public|open|internal|fileprivate|private|final|indirect)\s+)*(class|actor|struct|enum|extension)\s+([\w.]+)"#)
    static let variable = try? NSRegularExpression(
        pattern: #"^\s*(@\w+(\([^)]*\))?\s+)*(((public|open|internal|fileprivate|private|static|final|weak|unowned|lazy|override|nonisolated)(\((set|unsafe)\))?\s+)*)(var|let)\s+(\w+)\s*(:\s*([^={]+))?(.*)$"#)
    static let mutatingFunction = try? NSRegularExpression(pattern: #"^\s*(@\w+\s+)*((public|private|fileprivate|internal)\s+)?mutating\s+func\s"#)

    /// (first line, length) of each function, initialiser and deinitialiser: a declaration line ending in `{`
    /// to the `}` at its indentation.
    static func functions(_ lines: [Substring]) -> [(line: Int, length: Int)] {
        guard let declaration else { return [] }
        var found: [(Int, Int)] = []
        for (index, line) in lines.enumerated() where line.hasSuffix("{") {
            let text = String(line)
            guard let match = declaration.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let indent = Range(match.range(at: 1), in: text).map({ String(text[$0]) }) else { continue }
            if let end = lines[(index + 1)...].firstIndex(where: { $0.hasPrefix(indent + "}") }) {
                found.append((index + 1, end - index + 1))
            }
        }
        return found
    }

    /// The line with its string literals (raw ones too) emptied.
    static func withoutStringLiterals(_ line: String) -> String {
        var text = line
        for pattern in [##"#"(?:[^"]|"(?!#))*"#"##, #""(?:[^"\\]|\\.)*""#] {
            text = text.replacingOccurrences(of: pattern, with: "\"\"", options: .regularExpression)
        }
        return text
    }

    /// The code of each line (strings emptied, comments and multi-line string bodies dropped), with the scopes
    /// it is inside once the line has been read, and the brace depth before it.
    static func walk(_ lines: [Substring], _ visit: (_ index: Int, _ code: String, _ scopes: [Scope], _ depth: Int) -> Void) {
        var scopes: [Scope] = []
        var depth = 0
        var inMultilineString = false
        for (index, line) in lines.enumerated() {
            if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString.toggle(); continue }
            if inMultilineString { continue }
            var code = withoutStringLiterals(String(line))
            if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
            if code.contains("{"), let type = typeDeclaration, let match = type.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)),
               let kind = Range(match.range(at: 5), in: code), let name = Range(match.range(at: 6), in: code) {
                let declared = String(code[name])
                let path = code[kind] == "extension" || scopes.isEmpty ? declared : scopes[scopes.count - 1].path + "." + declared
                scopes.append(Scope(kind: String(code[kind]), path: path, depth: depth))
            }
            visit(index, code, scopes, depth)
            depth += code.filter { $0 == "{" }.count - code.filter { $0 == "}" }.count
            while let last = scopes.last, depth <= last.depth { scopes.removeLast() }
        }
    }

    /// Stored properties (`var` and `let`) declared directly in a type's body (computed ones, `{ … }` after the type, left out).
    static func storedVariables(_ lines: [Substring]) -> [Variable] {
        guard let variable else { return [] }
        var found: [Variable] = []
        walk(lines) { index, code, scopes, depth in
            guard let scope = scopes.last, depth == scope.depth + 1,
                  let match = variable.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) else { return }
            let part = { (group: Int) in Range(match.range(at: group), in: code).map { String(code[$0]) } ?? "" }
            let modifiers = part(3)
            let rest = part(12).trimmingCharacters(in: .whitespaces)
            guard !modifiers.contains("static"), !rest.hasPrefix("{") else { return }
            found.append(Variable(owner: scope.path, ownerKind: scope.kind, name: part(9), line: index + 1, modifiers: modifiers,
                                  type: part(11), isConstant: part(8) == "let"))
        }
        return found
    }

    /// The structs a file declares (nested ones by their full name).
    static func structs(_ lines: [Substring]) -> Set<String> {
        var found: Set<String> = []
        walk(lines) { _, _, scopes, _ in
            for scope in scopes where scope.kind == "struct" { found.insert(scope.path) }
        }
        return found
    }

    /// Each `mutating func` with the type (or extension) it is in.
    static func mutatingFunctions(_ lines: [Substring]) -> [(owner: String, line: Int)] {
        guard let mutatingFunction else { return [] }
        var found: [(String, Int)] = []
        walk(lines) { index, code, scopes, _ in
            guard let scope = scopes.last, mutatingFunction.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil else { return }
            // The line's own `{` opened no scope: the function belongs to the innermost type.
            found.append((scope.path, index + 1))
        }
        return found
    }
}
