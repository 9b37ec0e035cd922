import Foundation

/// Cleans CSS from `style` attributes and `<style>` blocks (FR-ED-04): no code (`expression()`,
/// `behavior`, `-moz-binding`, `javascript:`), no remote loads while remote content is blocked
/// (`url()`, `image-set()`, `@import`, `@font-face` sources), and nothing that can cover the
/// client's own interface (`position: fixed | absolute | sticky`).
///
/// The parsing is deliberately simple: declarations are split at `;` outside strings and
/// parentheses, blocks at braces. Anything that does not fit that shape is dropped, never passed.
struct CSSSanitizer {
    var allowRemote: Bool
    /// Remote `url()`s dropped (blocked mode) — counted with the blocked images.
    private(set) var remoteReferencesBlocked = 0
    private(set) var blockedHosts: [String] = []

    init(allowRemote: Bool) {
        self.allowRemote = allowRemote
    }

    static let allowedProperties: Set<String> = [
        "background", "background-color", "background-image", "background-position", "background-repeat", "background-size",
        "border", "border-bottom", "border-bottom-color", "border-bottom-left-radius", "border-bottom-right-radius",
        "border-bottom-style", "border-bottom-width", "border-collapse", "border-color", "border-left", "border-left-color",
        "border-left-style", "border-left-width", "border-radius", "border-right", "border-right-color", "border-right-style",
        "border-right-width", "border-spacing", "border-style", "border-top", "border-top-color", "border-top-left-radius",
        "border-top-right-radius", "border-top-style", "border-top-width", "border-width", "box-sizing", "caption-side", "clear",
        "color", "column-count", "column-gap", "columns", "direction", "display", "empty-cells", "float", "font", "font-family",
        "font-size", "font-style", "font-variant", "font-weight", "height", "letter-spacing", "line-height", "list-style",
        "list-style-position", "list-style-type", "margin", "margin-bottom", "margin-left", "margin-right", "margin-top",
        "max-height", "max-width", "min-height", "min-width", "mso-line-height-rule", "opacity", "outline", "overflow",
        "overflow-wrap", "overflow-x", "overflow-y", "padding", "padding-bottom", "padding-left", "padding-right", "padding-top",
        "position", "table-layout", "text-align", "text-decoration", "text-decoration-color", "text-decoration-line",
        "text-indent", "text-overflow", "text-transform", "vertical-align", "visibility", "white-space", "width", "word-break",
        "word-spacing", "word-wrap", "align-items", "justify-content", "flex", "flex-direction", "flex-wrap", "gap",
        "-webkit-text-size-adjust", "-ms-text-size-adjust", "text-size-adjust", "font-feature-settings", "hyphens",
    ]

    // MARK: - Declarations (a style attribute, or a rule's block)

    mutating func sanitizeDeclarations(_ text: String) -> String {
        var kept: [String] = []
        for declaration in Self.split(text, separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingASCIIWhitespace.lowercased()
            var value = String(declaration[declaration.index(after: colon)...]).trimmingASCIIWhitespace
            guard Self.allowedProperties.contains(property), !value.isEmpty else { continue }
            guard let clean = sanitizeValue(&value, property: property) else { continue }
            kept.append("\(property): \(clean)")
        }
        return kept.joined(separator: "; ")
    }

    /// nil drops the declaration.
    mutating func sanitizeValue(_ value: inout String, property: String) -> String? {
        // Escapes and comments can spell anything (`\75rl(`, `ur/**/l(`): refuse them outright.
        if value.utf8.contains(where: { $0 < 0x20 || $0 == 92 || $0 == 60 || $0 == 62 }) || value.containsASCII("/*") { return nil }
        for forbidden in ["expression(", "javascript:", "vbscript:", "behavior", "-moz-binding", "@import", "-ms-filter", "progid:"]
        where value.containsASCII(forbidden) {
            return nil
        }
        if property == "position", !["static", "relative"].contains(value.lowercased().trimmingASCIIWhitespace.replacingImportant) { return nil }
        if value.containsASCII("url(") || value.containsASCII("image-set(") || value.containsASCII("image(") || value.containsASCII("element(") {
            guard let cleaned = sanitizeURLs(in: value) else { return nil }
            return cleaned
        }
        return value
    }

    /// Keeps `url()`s that load nothing remote (data: images) or, when remote content is allowed,
    /// http(s) ones; anything else drops the declaration.
    mutating func sanitizeURLs(in value: String) -> String? {
        let lower = value.lowercased()
        if lower.contains("image-set(") || lower.contains("element(") || lower.contains("cross-fade(") { return nil }
        var rest = Substring(value)
        while let range = rest.range(of: "url(", options: .caseInsensitive) {
            guard let close = rest[range.upperBound...].firstIndex(of: ")") else { return nil }
            var inside = rest[range.upperBound..<close].trimmingASCIIWhitespace
            if inside.hasPrefix("\"") || inside.hasPrefix("'") { inside = String(inside.dropFirst().dropLast()) }
            switch URLPolicy.classify(inside) {
            case .dataImage: break
            case .remote(let host):
                if !allowRemote {
                    remoteReferencesBlocked += 1
                    if !blockedHosts.contains(host) { blockedHosts.append(host) }
                    return nil
                }
            default: return nil
            }
            rest = rest[rest.index(after: close)...]
        }
        return value
    }

    // MARK: - Style sheets (`<style>` blocks)

    /// Rules are kept with their selectors and cleaned declarations; `@media` and `@supports` are
    /// cleaned recursively; every other at-rule (`@import`, `@font-face`, `@namespace`, `@charset`,
    /// `@keyframes`…) is dropped.
    mutating func sanitizeStyleSheet(_ css: String) -> String {
        let text = Self.removeComments(css)
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            guard let open = text[index...].firstIndex(where: { $0 == "{" || $0 == ";" }) else { break }
            let prelude = text[index..<open].trimmingASCIIWhitespace
            if text[open] == ";" {
                // A statement at-rule (@import, @charset, @namespace): dropped.
                index = text.index(after: open)
                continue
            }
            guard let close = Self.matchingBrace(in: text, from: open) else { break }
            let body = String(text[text.index(after: open)..<close])
            let lowerPrelude = prelude.lowercased()
            if lowerPrelude.hasPrefix("@media") || lowerPrelude.hasPrefix("@supports") {
                if !prelude.contains("<"), !prelude.contains("\\") {
                    let inner = sanitizeStyleSheet(body)
                    if !inner.isEmpty { output += "\(prelude) {\n\(inner)}\n" }
                }
            } else if !lowerPrelude.hasPrefix("@"), !prelude.isEmpty, !prelude.contains("<"), !prelude.contains("\\") {
                let declarations = sanitizeDeclarations(body)
                if !declarations.isEmpty { output += "\(prelude) { \(declarations) }\n" }
            }
            index = text.index(after: close)
        }
        return output
    }

    static func removeComments(_ css: String) -> String {
        var output = ""
        var rest = Substring(css)
        while let start = rest.range(of: "/*") {
            output += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].range(of: "*/") else { return output }
            rest = rest[end.upperBound...]
        }
        return output + rest
    }

    static func matchingBrace(in text: String, from open: String.Index) -> String.Index? {
        var depth = 0
        var quote: Character?
        var index = open
        while index < text.endIndex {
            let character = text[index]
            if let current = quote {
                if character == current { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "{" {
                depth += 1
            } else if character == "}" {
                depth -= 1
                if depth == 0 { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// Splits at `separator` outside quotes and parentheses, on UTF-8 bytes (all are ASCII).
    static func split(_ text: String, separator: Character) -> [String] {
        let separatorByte = separator.asciiValue ?? 59
        let bytes = Array(text.utf8)
        var parts: [String] = []
        var start = 0
        var depth = 0
        var quote: UInt8 = 0
        for (index, byte) in bytes.enumerated() {
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == 34 || byte == 39 {
                quote = byte
            } else if byte == 40 {
                depth += 1
            } else if byte == 41 {
                depth = max(0, depth - 1)
            } else if byte == separatorByte, depth == 0 {
                parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
            }
        }
        parts.append(String(decoding: bytes[start...], as: UTF8.self))
        return parts
    }
}

extension StringProtocol {
    /// Trimmed of ASCII whitespace, on UTF-8 bytes (Foundation's trimming is slow on Linux).
    var trimmingASCIIWhitespace: String {
        let text = String(self)
        let bytes = text.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 || byte == 12 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == bytes.startIndex, bytes.index(after: last) == bytes.endIndex { return text }
        return String(text[first...last])
    }

    /// ASCII-case-insensitive search for an ASCII `needle` (lowercase), on bytes.
    func containsASCII(_ needle: String) -> Bool {
        let haystack = Array(utf8)
        let pattern = Array(needle.utf8)
        guard pattern.count <= haystack.count, let first = pattern.first else { return pattern.isEmpty }
        var index = 0
        let last = haystack.count - pattern.count
        while index <= last {
            let byte = haystack[index] | (haystack[index] >= 65 && haystack[index] <= 90 ? 0x20 : 0)
            if byte == first {
                var matched = true
                for offset in 1..<pattern.count {
                    var candidate = haystack[index + offset]
                    if candidate >= 65 && candidate <= 90 { candidate |= 0x20 }
                    if candidate != pattern[offset] { matched = false; break }
                }
                if matched { return true }
            }
            index += 1
        }
        return false
    }
}

extension String {
    /// `fixed !important` → `fixed`.
    var replacingImportant: String {
        guard let range = range(of: "!important") else { return self }
        return String(self[..<range.lowerBound]).trimmingASCIIWhitespace
    }
}
