/// An attachment's file name comes from a stranger and is shown to the user and used to save a
/// file, so it is made safe for both (issue 21):
/// - only its last path component, without leading dots (no `../`, no hidden files);
/// - without control characters, C0, DEL and C1 (terminal escapes such as CSI U+009B), without line
///   and paragraph separators, and without bidirectional controls (U+202A-U+202E, U+2066-U+2069,
///   U+200E, U+200F, U+061C), with which `invoice<U+202E>fdp.exe` shows as `invoiceexe.pdf`;
/// - at most `maxBytes` UTF-8 bytes, since file systems limit a path component in bytes (255 on
///   Linux and macOS), cut in the name rather than the extension and between characters.
public enum AttachmentFilename {
    public static let maxBytes = 255
    /// Longer suffixes after the last dot are part of the name, not an extension worth keeping.
    static let maxExtensionBytes = 16

    public static func sanitized(_ name: String, maxBytes: Int = maxBytes) -> String {
        let lastComponent = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? name
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: lastComponent.unicodeScalars.lazy.filter { !isUnsafe($0) })
        var cleaned = Substring(String(scalars))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        let trimmed = cleaned.trimmingWhitespace()
        guard !trimmed.isEmpty else { return "attachment" }
        return capped(trimmed, maxBytes: maxBytes)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        case 0x2028, 0x2029: true
        default: false
        }
    }

    static func capped(_ name: String, maxBytes: Int) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var stem = Substring(name)
        var suffix = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let candidate = name[dot...]
            if candidate.utf8.count <= maxExtensionBytes, candidate.utf8.count < maxBytes {
                stem = name[..<dot]
                suffix = String(candidate)
            }
        }
        let budget = maxBytes - suffix.utf8.count
        var cut = prefix(of: stem, bytes: budget, by: stem.indices)
        // One character can be longer than the budget (a letter with hundreds of combining marks).
        if cut.isEmpty { cut = prefix(of: stem, bytes: budget, by: stem.unicodeScalars.indices) }
        return String(cut) + suffix
    }

    /// The longest prefix ending at one of `boundaries` that fits in `bytes` UTF-8 bytes.
    static func prefix<Boundaries: Collection>(of text: Substring, bytes: Int, by boundaries: Boundaries) -> Substring
    where Boundaries.Element == String.Index {
        var end = text.startIndex
        var used = 0
        for boundary in boundaries {
            used += text.utf8.distance(from: end, to: boundary)
            guard used <= bytes else { break }
            end = boundary
        }
        return text[..<end]
    }
}
