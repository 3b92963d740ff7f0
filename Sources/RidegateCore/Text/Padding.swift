extension String {
    /// The text cut or padded with spaces to `width` characters, for the CLI's tables.
    public func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
