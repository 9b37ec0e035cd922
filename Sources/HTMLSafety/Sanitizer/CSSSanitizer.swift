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

    static let allowedProperties = ASCIIKeywordSet([
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
    ])

    // MARK: - Declarations (a style attribute, or a rule's block)

    mutating func sanitizeDeclarations(_ text: String) -> String {
        String(decoding: sanitizeDeclarations(Array(text.utf8)[...]), as: UTF8.self)
    }

    /// The allowed declarations, each cleaned, as `property: value; property: value`.
    mutating func sanitizeDeclarations(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var kept: [UInt8] = []
        ASCIIBytes.forEachDeclaration(in: bytes) { property, value in
            guard !value.isEmpty, Self.allowedProperties.contains(property), let clean = sanitizeValue(value, property: property) else { return }
            if !kept.isEmpty { kept.append(59); kept.append(32) }
            kept += property.map(URLPolicy.lowercased)
            kept.append(58)
            kept.append(32)
            kept += clean
        }
        return kept
    }

    /// nil drops the declaration.
    mutating func sanitizeValue(_ value: ArraySlice<UInt8>, property: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        // One pass over the value says which of the words below it could hold: each has a byte it
        // cannot be spelled without (a parenthesis, a colon, a dash…), and most values have none.
        var has = ValueBytes()
        for byte in value {
            switch byte {
            // Escapes and comments can spell anything (`\75rl(`, `ur/**/l(`): refuse them outright.
            case 0..<0x20, 92, 60, 62: return nil
            // Braces end a rule in a style sheet: read again, the value would start another one.
            case 123, 125: return nil
            case 40: has.parenthesis = true
            case 58: has.colon = true
            case 45: has.dash = true
            case 47: has.slash = true
            case 64: has.at = true
            case 98, 66: has.b = true
            default: break
            }
        }
        if has.slash, ASCIIBytes.contains("/*", in: value) { return nil }
        if has.parenthesis, ASCIIBytes.contains("expression(", in: value) { return nil }
        if has.colon, ASCIIBytes.contains("javascript:", in: value) || ASCIIBytes.contains("vbscript:", in: value)
            || ASCIIBytes.contains("progid:", in: value) {
            return nil
        }
        if has.b, ASCIIBytes.contains("behavior", in: value) { return nil }
        if has.dash, ASCIIBytes.contains("-moz-binding", in: value) || ASCIIBytes.contains("-ms-filter", in: value) { return nil }
        if has.at, ASCIIBytes.contains("@import", in: value) { return nil }
        if ASCIIBytes.equals(property, "position") {
            let position = ASCIIBytes.withoutImportant(value)
            guard ASCIIBytes.equals(position, "static") || ASCIIBytes.equals(position, "relative") else { return nil }
        }
        if has.parenthesis, ASCIIBytes.contains("url(", in: value) || ASCIIBytes.contains("image(", in: value)
            || ASCIIBytes.contains("image-set(", in: value) || ASCIIBytes.contains("element(", in: value)
            || ASCIIBytes.contains("cross-fade(", in: value) {
            return sanitizeURLs(in: value)
        }
        return value
    }

    /// Which of the bytes the refused words need a value holds.
    struct ValueBytes {
        var parenthesis = false, colon = false, dash = false, slash = false, at = false, b = false
    }

    /// Keeps `url()`s that load nothing remote (data: images) or, when remote content is allowed,
    /// http(s) ones; anything else drops the declaration.
    mutating func sanitizeURLs(in value: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        // `image()` takes a bare string as its source: refused with its relatives.
        if ASCIIBytes.contains("image-set(", in: value) || ASCIIBytes.contains("element(", in: value)
            || ASCIIBytes.contains("cross-fade(", in: value) || ASCIIBytes.contains("image(", in: value) {
            return nil
        }
        var rest = value
        while let open = ASCIIBytes.firstRange(of: "url(", in: rest) {
            guard let close = rest[open.upperBound...].firstIndex(of: 41) else { return nil }
            var inside = ASCIIBytes.trimmed(rest[open.upperBound..<close])
            if inside.first == 34 || inside.first == 39 { inside = inside.dropFirst().dropLast() }
            switch URLPolicy.classify(bytes: Array(inside)) {
            case .dataImage: break
            case .remote(let host):
                if !allowRemote {
                    remoteReferencesBlocked += 1
                    if !blockedHosts.contains(host) { blockedHosts.append(host) }
                    return nil
                }
            default: return nil
            }
            rest = rest[(close + 1)...]
        }
        return value
    }

    // MARK: - Style sheets (`<style>` blocks)

    /// Rules are kept with their selectors and cleaned declarations; `@media` and `@supports` are
    /// cleaned recursively; every other at-rule (`@import`, `@font-face`, `@namespace`, `@charset`,
    /// `@keyframes`…) is dropped.
    mutating func sanitizeStyleSheet(_ css: String) -> String {
        String(decoding: sanitizeStyleSheet(bytes: Array(css.utf8)[...]), as: UTF8.self)
    }

    /// On bytes, as a browser reads CSS (by code point; every byte that matters is ASCII).
    mutating func sanitizeStyleSheet(bytes css: ArraySlice<UInt8>) -> [UInt8] {
        let text = Self.removeComments(css)
        var output: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard let open = text[index...].firstIndex(where: { $0 == 123 || $0 == 59 }) else { break }
            let prelude = ASCIIBytes.trimmed(text[index..<open])
            if text[open] == 59 {
                // A statement at-rule (@import, @charset, @namespace): dropped.
                index = open + 1
                continue
            }
            guard let close = Self.matchingBrace(in: text, from: open) else { break }
            let body = text[(open + 1)..<close]
            let safePrelude = !prelude.contains(60) && !prelude.contains(92)
            if Self.hasPrefix(prelude, "@media") || Self.hasPrefix(prelude, "@supports") {
                if safePrelude {
                    let inner = sanitizeStyleSheet(bytes: body)
                    if !inner.isEmpty {
                        output += prelude
                        output += [32, 123, 10]  // " {\n"
                        output += inner
                        output += [125, 10]  // "}\n"
                    }
                }
            } else if prelude.first != 64, !prelude.isEmpty, safePrelude {
                let declarations = sanitizeDeclarations(body)
                if !declarations.isEmpty {
                    output += prelude
                    output += [32, 123, 32]  // " { "
                    output += declarations
                    output += [32, 125, 10]  // " }\n"
                }
            }
            index = close + 1
        }
        return output
    }

    static func hasPrefix(_ bytes: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
        bytes.count >= word.utf8CodeUnitCount && ASCIIBytes.equals(bytes.prefix(word.utf8CodeUnitCount), word)
    }

    static func removeComments(_ css: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard var start = ASCIIBytes.firstRange(of: "/*", in: css) else { return css }
        var output: [UInt8] = []
        var rest = css
        while true {
            output += rest[..<start.lowerBound]
            guard let end = ASCIIBytes.firstRange(of: "*/", in: rest[start.upperBound...]) else { return output[...] }
            rest = rest[end.upperBound...]
            guard let next = ASCIIBytes.firstRange(of: "/*", in: rest) else { break }
            start = next
        }
        output += rest
        return output[...]
    }

    static func matchingBrace(in text: ArraySlice<UInt8>, from open: Int) -> Int? {
        var depth = 0
        var quote: UInt8?
        for index in open..<text.endIndex {
            let byte = text[index]
            if let current = quote {
                if byte == current { quote = nil }
            } else if byte == 34 || byte == 39 {
                quote = byte
            } else if byte == 123 {
                depth += 1
            } else if byte == 125 {
                depth -= 1
                if depth == 0 { return index }
            }
        }
        return nil
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
}
