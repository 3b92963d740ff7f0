/// The mutable tree a TOML document is built into while it is parsed: tables remember how they came to be,
/// because TOML's rules on defining a table twice depend on it. Turned into `TOMLNode`s at the end.
final class TOMLTableTree {
    enum Origin {
        /// Created as the parent of a header (`[a.b]` creates `a`): may still be defined once.
        case implicit
        /// Defined by a `[header]` (or the root).
        case header
        /// Defined by dotted keys (`a.b = 1` defines `a`): no header may define it again.
        case dotted
        /// An inline table `{ … }`: complete as written, never extended.
        case inline
    }

    enum Entry {
        case value(TOMLNode)
        case table(TOMLTableTree)
        /// `[[name]]`: the tables in order.
        case arrayOfTables([TOMLTableTree], TOMLPosition)
    }

    var origin: Origin
    let position: TOMLPosition
    var entries: [String: Entry] = [:]

    init(origin: Origin, at position: TOMLPosition) {
        self.origin = origin
        self.position = position
    }

    var node: TOMLNode {
        var table: [String: TOMLNode] = [:]
        for (key, entry) in entries {
            switch entry {
            case .value(let node): table[key] = node
            case .table(let child): table[key] = child.node
            case .arrayOfTables(let tables, let position): table[key] = TOMLNode(.array(tables.map(\.node)), at: position)
            }
        }
        return TOMLNode(.table(table), at: position)
    }
}
