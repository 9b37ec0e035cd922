extension StringProtocol {
    /// Without leading and trailing white space and newlines (Unicode's White_Space), the same as
    /// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` without its NSString bridge,
    /// which showed in the thread list's metadata of every synced batch.
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
