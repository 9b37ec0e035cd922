import Foundation

/// Cleans CSS from `style` attributes and `<style>` blocks (FR-ED-04): no code (`expression()`,
/// `behavior`, `-moz-binding`, `javascript:`), no remote loads while remote content is blocked
/// (`url()`, `image-set()`, `@import`, `@font-face` sources), and nothing that can cover the
/// client's own interface (`position: fixed | absolute | sticky`).
///
/// CSS is read as a browser reads it, by CSS Syntax Level 3 (`CSSTokenizer`; the parser's
/// "consume a stylesheet's contents", "consume a block's contents" and "consume a declaration",
/// section 5), and the output is written anew from the tokens that passed: every block, function
/// and string it writes is closed, every rule and declaration ends where it is written to end, so
/// what a browser reads from the output is exactly what was checked (issue 21: writing preludes
/// and values back as raw text let an unclosed `rgb(` or quote move a rule's end). Anything that
/// does not fit is dropped, never passed.
struct CSSSanitizer {
    var allowRemote: Bool
    /// Remote `url()`s dropped (blocked mode) — counted with the blocked images.
    private(set) var remoteReferencesBlocked = 0
    /// Issue 37: remote loads dropped whatever `allowRemote` says, as trackers. `@font-face` rules
    /// with a remote source (the app's fonts stand in), and declarations that load on interaction
    /// (in a rule for `:hover`, `:focus`…: `interactionPseudoClasses`) or fill content (`content: url()`).
    private(set) var fontTrackersBlocked = 0
    private(set) var cssTrackersBlocked = 0
    /// The hosts those would have loaded from.
    private(set) var trackerHosts: Set<String> = []
    /// Issue 37's privacy report: remote loads that are not trackers, by host, blocked or allowed
    /// (what the message would contact if allowed).
    private(set) var remoteHostCounts: [String: Int] = [:]
    private(set) var remoteLoads = 0
    /// Whether the rule being written applies on interaction.
    private var appliesOnInteraction = false

    /// Every remote load dropped so far, whatever its kind.
    var loadsBlocked: Int { remoteReferencesBlocked + fontTrackersBlocked + cssTrackersBlocked }
    /// The top-level rules of the document's sheets that hide what they select (tracker pixels).
    private(set) var hidingRules = HidingStyleRules()
    /// Whether the rule being written kept one of `hidingProperties`.
    private var wroteHidingProperty = false

    /// What the document's style rules do to an element; the rules are indexed on the first
    /// question, once every sheet is read (a sheet per `<style>` must not re-index each time).
    mutating func ruleEffect(on element: NodeID, in tree: HTMLTree) -> HidingStyleRules.Effect {
        guard !hidingRules.isEmpty else { return HidingStyleRules.Effect() }
        hidingRules.indexIfNeeded()
        return hidingRules.effect(on: element, in: tree)
    }

    init(allowRemote: Bool) {
        self.allowRemote = allowRemote
    }

    /// Nesting of `@media`/`@supports` rules, and of functions and brackets in a value or
    /// selector, beyond which the content is dropped. Mail nests a group rule or two; 32 leaves
    /// room and bounds the recursion (issue 21: 5,000 nested `@media` overflowed the stack).
    static let maximumNesting = 32

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
        "-webkit-text-size-adjust", "-ms-text-size-adjust", "text-size-adjust", "font-feature-settings", "hyphens"
    ])

    /// Functions a value may call: colours, arithmetic, gradients and `url()` (checked by the URL
    /// policy). Everything else is dropped: `expression()`, `image()`, `image-set()`,
    /// `element()`, `cross-fade()` load or run something, `var()` and `attr()` read what the
    /// mail did not write, `env()`, `paint()` and the rest have no place in mail.
    static let allowedFunctions = ASCIIKeywordSet([
        "rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch", "color", "color-mix", "calc", "min", "max",
        "clamp", "linear-gradient", "radial-gradient", "conic-gradient", "repeating-linear-gradient",
        "repeating-radial-gradient", "repeating-conic-gradient", "-webkit-linear-gradient", "-webkit-radial-gradient",
        "-moz-linear-gradient", "-moz-radial-gradient", "url", "rect", "format"
    ])

    /// Pseudo-classes that match once the person does something (points, presses, focuses, opens,
    /// follows a fragment): a load in their rule tells the sender what was done, and when.
    static let interactionPseudoClasses = ASCIIKeywordSet([
        "hover", "active", "focus", "focus-within", "focus-visible", "target", "target-within", "checked", "open", "popover-open",
        "user-valid", "user-invalid", "-webkit-any-link"
    ])

    /// Properties that are never kept but whose `url()` would load: counted as trackers when remote.
    static let loadingProperties = ASCIIKeywordSet(["content"])

    /// The properties `HidingStyleRules` reads.
    static let hidingProperties = ASCIIKeywordSet(["display", "visibility", "opacity", "width", "height", "max-width", "max-height"])

    /// The functional pseudo-classes a selector may use.
    static let allowedSelectorFunctions = ASCIIKeywordSet([
        "not", "is", "where", "has", "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type", "lang", "dir",
        "-webkit-any", "-moz-any"
    ])

    /// Appended to every selector a style sheet keeps (before a pseudo-element), so that no mail
    /// rule selects what the sanitizer writes for the interface: the quote fold and its summary,
    /// the mismatch mark, the image placeholders (issue 21, "email CSS is unscoped"). `:where()`
    /// gives it no specificity, so the mail's rules keep their order among themselves.
    static let markerExclusion = Array((":not(:where(" + InterfaceMarkers.selectors.joined(separator: ",") + "))").utf8)

    // MARK: - Declarations (a style attribute, or a rule's block)

    mutating func sanitizeDeclarations(_ text: String) -> String {
        String(decoding: sanitizeDeclarations(Array(text.utf8)[...]), as: UTF8.self)
    }

    /// The allowed declarations of a style attribute, each cleaned, as `property: value; property: value`.
    mutating func sanitizeDeclarations(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.withUnsafeBufferPointer { buffer in
            let sheet = CSSSource(buffer)
            var kept: [UInt8] = []
            kept.reserveCapacity(buffer.count + 16)
            writeDeclarations(of: sheet, in: 0..<sheet.tokens.count, into: &kept)
            return kept
        }
    }

    /// "Consume a block's contents": declarations are kept when allowed; nested rules and
    /// at-rules are skipped whole.
    mutating func writeDeclarations(of sheet: CSSSource, in range: Range<Int>, into output: inout [UInt8]) {
        let start = output.count
        var index = range.lowerBound
        while index < range.upperBound {
            switch sheet.tokens[index].kind {
            case .whitespace, .semicolon:
                index += 1
            case .atKeyword:
                index = sheet.endOfAtRule(from: index, limit: range.upperBound).end
            default:
                if let declaration = sheet.declaration(at: index, limit: range.upperBound) {
                    writeDeclaration(declaration, of: sheet, separated: output.count > start, into: &output)
                    index = declaration.end
                } else {
                    index = sheet.endOfNestedRule(from: index, limit: range.upperBound)
                }
            }
        }
    }

    /// Writes `property: value` (after `; ` when `separated`), or nothing: the value's tokens are
    /// checked first (only the kinds a property value needs, allowed functions, `url()`s the
    /// policy allows), the written value then for the words no value may hold.
    mutating func writeDeclaration(
        _ declaration: CSSSource.Declaration, of sheet: CSSSource, separated: Bool,
        into output: inout [UInt8]
    ) {
        let name = sheet.tokens[declaration.name]
        let property = sheet.bytes(of: name)
        guard !name.has(CSSToken.Flags.escape), !declaration.value.isEmpty, Self.allowedProperties.index(of: property) != nil else {
            if Self.loadingProperties.index(of: property) != nil {
                let hosts = sheet.remoteHosts(in: declaration.value)
                if !hosts.isEmpty {
                    cssTrackersBlocked += 1
                    trackerHosts.formUnion(hosts)
                }
            }
            return
        }
        guard valueTokensPass(declaration.value, of: sheet) else { return }
        let mark = output.count
        if separated { output += [59, 32] } // "; "
        for byte in property { output.append(URLPolicy.lowercased(byte)) }
        output += [58, 32] // ": "
        let valueStart = output.count
        sheet.write(declaration.value, into: &output)
        guard Self.passesWordChecks(output[valueStart...], property: property) else {
            output.removeSubrange(mark...)
            return
        }
        if declaration.important { output += " !important".utf8 }
        if Self.hidingProperties.index(of: property) != nil { wroteHidingProperty = true }
    }

    /// Whether a value's tokens may stay; a remote `url()` while remote content is blocked is
    /// counted (once the rest of the declaration would have stayed, as a blocked image is).
    mutating func valueTokensPass(_ range: Range<Int>, of sheet: CSSSource) -> Bool {
        var depth = 0
        var blocksRemote = false
        var remoteHosts: [String] = []
        var index = range.lowerBound
        while index < range.upperBound {
            let token = sheet.tokens[index]
            index += 1
            if token.has(CSSToken.Flags.escape) { return false }
            switch token.kind {
            case .whitespace, .ident, .number, .percentage, .dimension, .hash, .comma, .string:
                continue
            case .delim:
                // `/` (font, grid shorthands), the signs and `*` of calc(); `.` never starts a number here.
                switch sheet.firstByte(of: token) {
                case 47, 43, 45, 42: continue
                default: return false
                }
            case .openParen:
                depth += 1
                if depth > Self.maximumNesting { return false }
            case .closeParen:
                guard token.isMatchedCloser else { return false }
                depth -= 1
            case .function:
                let name = sheet.bytes(of: token).dropLast()
                guard Self.allowedFunctions.index(of: name) != nil else { return false }
                if sheet.equals(name, "url") {
                    // `url("…")`: the function form takes one string and nothing else.
                    guard let string = sheet.onlyString(inFunctionAt: index - 1),
                        allowsURL(sheet.stringContent(of: sheet.tokens[string]), blocksRemote: &blocksRemote, remoteHosts: &remoteHosts)
                    else { return false }
                    index = min(token.partner + 1, range.upperBound)
                    continue
                }
                depth += 1
                if depth > Self.maximumNesting { return false }
            case .url:
                guard allowsURL(sheet.urlContent(of: token), blocksRemote: &blocksRemote, remoteHosts: &remoteHosts) else { return false }
            default:
                // Blocks `{}` and `[]`, colons, semicolons, at-keywords, bad strings and URLs, `<!--`.
                return false
            }
        }
        if appliesOnInteraction, !remoteHosts.isEmpty {
            cssTrackersBlocked += 1
            trackerHosts.formUnion(remoteHosts)
            return false
        }
        for host in remoteHosts {
            remoteHostCounts[host, default: 0] += 1
            remoteLoads += 1
        }
        if blocksRemote {
            remoteReferencesBlocked += 1
            return false
        }
        return true
    }

    /// Keeps `url()`s that load nothing remote (data: images) or, when remote content is allowed,
    /// http(s) ones; anything else drops the declaration. A blocked remote one is noted.
    func allowsURL(_ url: Slice<UnsafeBufferPointer<UInt8>>, blocksRemote: inout Bool, remoteHosts: inout [String]) -> Bool {
        switch CSSSource.classify(url) {
        case .dataImage:
            return true
        case .remote(let host):
            if !allowRemote { blocksRemote = true }
            remoteHosts.append(host)
            return true
        default:
            return false
        }
    }

    /// The checks on the written value: no byte of markup or control, none of the words of
    /// script or binding, and `position` only `static` or `relative`.
    static func passesWordChecks(_ value: ArraySlice<UInt8>, property: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        // One pass over the value says which of the words below it could hold: each has a byte it
        // cannot be spelled without (a parenthesis, a colon, a dash…), and most values have none.
        var has = ValueBytes()
        for byte in value {
            switch byte {
            case 0..<0x20, 60, 62, 92, 123, 125: return false
            case 40: has.parenthesis = true
            case 58: has.colon = true
            case 45: has.dash = true
            case 64: has.at = true
            case 98, 66: has.b = true
            default: break
            }
        }
        if has.parenthesis, ASCIIBytes.contains("expression(", in: value) { return false }
        if has.colon,
            ASCIIBytes.contains("javascript:", in: value) || ASCIIBytes.contains("vbscript:", in: value)
                || ASCIIBytes.contains("progid:", in: value)
        {
            return false
        }
        if has.b, ASCIIBytes.contains("behavior", in: value) { return false }
        if has.dash, ASCIIBytes.contains("-moz-binding", in: value) || ASCIIBytes.contains("-ms-filter", in: value) { return false }
        if has.at, ASCIIBytes.contains("@import", in: value) { return false }
        if property.count == 8, zip(property, "position".utf8).allSatisfy({ URLPolicy.lowercased($0) == $1 }) {
            guard ASCIIBytes.equals(value, "static") || ASCIIBytes.equals(value, "relative") else { return false }
        }
        return true
    }

    /// Which of the bytes the refused words need a value holds.
    struct ValueBytes {
        var parenthesis = false, colon = false, dash = false, at = false, b = false
    }

    // MARK: - Style sheets (`<style>` blocks)

    /// Rules are kept with their selectors and cleaned declarations; `@media` and `@supports` are
    /// cleaned recursively, to `maximumNesting`; every other at-rule (`@import`, `@font-face`,
    /// `@namespace`, `@charset`, `@keyframes`…) is dropped.
    mutating func sanitizeStyleSheet(_ css: String) -> String {
        String(decoding: sanitizeStyleSheet(bytes: Array(css.utf8)[...]), as: UTF8.self)
    }

    /// On bytes, as a browser reads CSS (by code point; every byte that matters is ASCII).
    mutating func sanitizeStyleSheet(bytes css: ArraySlice<UInt8>) -> [UInt8] {
        css.withUnsafeBufferPointer { buffer in
            let sheet = CSSSource(buffer)
            var output: [UInt8] = []
            output.reserveCapacity(buffer.count * 2)
            writeRules(of: sheet, in: 0..<sheet.tokens.count, depth: 0, into: &output)
            return output
        }
    }

    /// "Consume a stylesheet's contents" at the top (`depth` 0), "consume a block's contents"
    /// inside a group rule, where a declaration is tried first and skipped (none belongs there).
    mutating func writeRules(of sheet: CSSSource, in range: Range<Int>, depth: Int, into output: inout [UInt8]) {
        let topLevel = depth == 0
        var index = range.lowerBound
        while index < range.upperBound {
            switch sheet.tokens[index].kind {
            case .whitespace:
                index += 1
                continue
            case .cdo where topLevel, .cdc where topLevel:
                index += 1
                continue
            case .semicolon where !topLevel:
                index += 1
                continue
            case .atKeyword:
                let rule = sheet.endOfAtRule(from: index, limit: range.upperBound)
                if let block = rule.block, depth < Self.maximumNesting, let name = sheet.groupRuleName(at: index) {
                    writeGroupRule(name, prelude: (index + 1)..<block, of: sheet, depth: depth, into: &output)
                } else if let block = rule.block, sheet.equals(sheet.bytes(of: sheet.tokens[index]).dropFirst(), "font-face") {
                    // Dropped as every other at-rule is; a remote source is a tracker (issue 37).
                    let hosts = sheet.remoteHosts(in: (block + 1)..<min(sheet.tokens[block].partner, rule.end))
                    if !hosts.isEmpty {
                        fontTrackersBlocked += 1
                        trackerHosts.formUnion(hosts)
                    }
                }
                index = rule.end
                continue
            default:
                break
            }
            if !topLevel, let declaration = sheet.declaration(at: index, limit: range.upperBound) {
                index = declaration.end
                continue
            }
            // A qualified rule: its prelude runs to its block. At the top a `;` or a stray `}`
            // is part of the prelude; inside a block a `;` ends the rule with nothing.
            var open = index
            while open < range.upperBound {
                let kind = sheet.tokens[open].kind
                if kind == .openCurly || (!topLevel && kind == .semicolon) { break }
                open = min(sheet.next(after: open), range.upperBound)
            }
            guard open < range.upperBound, sheet.tokens[open].kind == .openCurly else {
                index = open
                continue
            }
            let close = sheet.tokens[open].partner
            writeStyleRule(
                prelude: index..<open, block: (open + 1)..<min(close, range.upperBound), of: sheet,
                topLevel: topLevel, into: &output)
            index = min(close + 1, range.upperBound)
        }
    }

    mutating func writeGroupRule(
        _ name: StaticString, prelude: Range<Int>, of sheet: CSSSource, depth: Int,
        into output: inout [UInt8]
    ) {
        let mark = output.count
        output.append(64)
        output += name.withUTF8Buffer { Array($0) }
        guard sheet.writeGroupPrelude(prelude, into: &output) else {
            output.removeSubrange(mark...)
            return
        }
        output += [32, 123, 10] // " {\n"
        let inner = output.count
        let block = sheet.tokens[prelude.upperBound]
        writeRules(of: sheet, in: (prelude.upperBound + 1)..<block.partner, depth: depth + 1, into: &output)
        if output.count == inner {
            output.removeSubrange(mark...)
            return
        }
        output += [125, 10] // "}\n"
    }

    mutating func writeStyleRule(
        prelude: Range<Int>, block: Range<Int>, of sheet: CSSSource, topLevel: Bool,
        into output: inout [UInt8]
    ) {
        let mark = output.count
        guard let selectors = sheet.writeSelectorList(prelude, into: &output) else {
            output.removeSubrange(mark...)
            return
        }
        output += [32, 123, 32] // " { "
        let declarations = output.count
        wroteHidingProperty = false
        appliesOnInteraction = sheet.selectsOnInteraction(prelude)
        writeDeclarations(of: sheet, in: block, into: &output)
        appliesOnInteraction = false
        if output.count == declarations {
            output.removeSubrange(mark...)
            return
        }
        if topLevel, wroteHidingProperty, let effect = HidingStyleRules.effect(of: Array(output[declarations...])) {
            hidingRules.add(selectors.compactMap(sheet.compound), effect: effect)
        }
        output += [32, 125, 10] // " }\n"
    }
}

// MARK: - The tokenized source

/// A style sheet or style attribute as tokens over its bytes (borrowed for one sanitizing call),
/// with the parser's steps that find where things end, and the writing of checked tokens.
struct CSSSource {
    let bytes: UnsafeBufferPointer<UInt8>
    let tokens: [CSSToken]

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        tokens = CSSTokenizer.tokenize(bytes)
    }

    func bytes(of token: CSSToken) -> Slice<UnsafeBufferPointer<UInt8>> { bytes[token.start..<token.end] }

    func firstByte(of token: CSSToken) -> UInt8 { bytes[token.start] }

    /// ASCII-case-insensitively equal to `word` (lowercase).
    func equals(_ text: Slice<UnsafeBufferPointer<UInt8>>, _ word: StaticString) -> Bool {
        guard text.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { pattern in zip(text, pattern).allSatisfy { URLPolicy.lowercased($0) == $1 } }
    }

    /// Holds `word` (lowercase), ASCII-case-insensitively.
    func contains(_ word: StaticString, in text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let count = word.utf8CodeUnitCount
        guard text.count >= count else { return false }
        return word.withUTF8Buffer { pattern in
            for start in text.startIndex...(text.endIndex - count)
            where zip(text[start..<(start + count)], pattern).allSatisfy({ URLPolicy.lowercased($0) == $1 }) {
                return true
            }
            return false
        }
    }

    /// The index after a component value: a block or function is skipped whole.
    func next(after index: Int) -> Int {
        let token = tokens[index]
        return token.isOpener ? token.partner + 1 : index + 1
    }

    struct Declaration {
        /// The name's token.
        var name: Int
        /// The value's tokens, whitespace and `!important` trimmed.
        var value: Range<Int>
        var important: Bool
        /// Where the next item starts (the `;` or the block's end).
        var end: Int
    }

    /// "Consume a declaration" (nested): an ident, a colon, and everything to the next `;` at
    /// this level. nil when it is none, and the parser reads a nested rule from the same place
    /// instead: no colon, or a `{}` block beside anything else in the value.
    func declaration(at start: Int, limit: Int) -> Declaration? {
        guard tokens[start].kind == .ident else { return nil }
        var index = start + 1
        while index < limit, tokens[index].kind == .whitespace { index += 1 }
        guard index < limit, tokens[index].kind == .colon else { return nil }
        index += 1
        while index < limit, tokens[index].kind == .whitespace { index += 1 }
        let valueStart = index
        var block = false
        while index < limit {
            let kind = tokens[index].kind
            if kind == .semicolon { break }
            if kind == .openCurly { block = true }
            index = min(next(after: index), limit)
        }
        let end = index
        var valueEnd = trimmedEnd(valueStart, end)
        var important = false
        // `! important` ends the value: the flag, not part of it.
        if valueEnd > valueStart, tokens[valueEnd - 1].kind == .ident, equals(bytes(of: tokens[valueEnd - 1]), "important") {
            let bang = trimmedEnd(valueStart, valueEnd - 1)
            if bang > valueStart, tokens[bang - 1].kind == .delim, firstByte(of: tokens[bang - 1]) == 33 {
                important = true
                valueEnd = trimmedEnd(valueStart, bang - 1)
            }
        }
        if block {
            // Without `!important`, is the block all there is?
            var scan = valueStart
            var other = false
            while scan < valueEnd {
                let kind = tokens[scan].kind
                if kind != .openCurly, kind != .whitespace { other = true }
                scan = min(next(after: scan), valueEnd)
            }
            if other { return nil }
        }
        return Declaration(name: start, value: valueStart..<valueEnd, important: important, end: end)
    }

    /// The end of `start..<end` without its trailing whitespace.
    func trimmedEnd(_ start: Int, _ end: Int) -> Int {
        var end = end
        while end > start, tokens[end - 1].kind == .whitespace { end -= 1 }
        return end
    }

    /// "Consume an at-rule": to a `;` (included) or through a `{}` block.
    func endOfAtRule(from start: Int, limit: Int) -> (end: Int, block: Int?) {
        var index = start + 1
        while index < limit {
            switch tokens[index].kind {
            case .semicolon: return (index + 1, nil)
            case .openCurly: return (min(tokens[index].partner + 1, limit), index)
            default: index = next(after: index)
            }
        }
        return (limit, nil)
    }

    /// A nested qualified rule read (and skipped) where a declaration was not: through its block,
    /// or to a `;`, which ends it with nothing.
    func endOfNestedRule(from start: Int, limit: Int) -> Int {
        var index = start
        while index < limit {
            switch tokens[index].kind {
            case .semicolon: return index
            case .openCurly: return min(tokens[index].partner + 1, limit)
            default: index = next(after: index)
            }
        }
        return limit
    }

    /// `media` or `supports` for the group rules kept.
    func groupRuleName(at index: Int) -> StaticString? {
        let token = tokens[index]
        guard !token.has(CSSToken.Flags.escape) else { return nil }
        let name = bytes(of: token).dropFirst()
        if equals(name, "media") { return "media" }
        if equals(name, "supports") { return "supports" }
        return nil
    }

    /// Whether a selector list uses a pseudo-class of `CSSSanitizer.interactionPseudoClasses`, or
    /// selects on `[open]` (a `details` the person opens), anywhere, nested ones included.
    func selectsOnInteraction(_ prelude: Range<Int>) -> Bool {
        var index = prelude.lowerBound
        while index + 1 < prelude.upperBound {
            let token = tokens[index]
            let next = tokens[index + 1]
            if token.kind == .colon, next.kind == .ident || next.kind == .function {
                var name = bytes(of: next)
                if next.kind == .function { name = name.dropLast() }
                if CSSSanitizer.interactionPseudoClasses.index(of: name) != nil { return true }
            } else if token.kind == .openSquare, next.kind == .ident || next.kind == .whitespace {
                var name = index + 1
                while name < prelude.upperBound, tokens[name].kind == .whitespace { name += 1 }
                if name < prelude.upperBound, tokens[name].kind == .ident, equals(bytes(of: tokens[name]), "open") { return true }
            }
            index += 1
        }
        return false
    }

    /// The hosts of the remote URLs in a range of tokens (`url(…)` tokens and `url("…")` functions),
    /// nested functions and blocks included.
    func remoteHosts(in range: Range<Int>) -> [String] {
        var hosts: [String] = []
        var index = range.lowerBound
        while index < range.upperBound {
            let token = tokens[index]
            var url: Slice<UnsafeBufferPointer<UInt8>>?
            if token.kind == .url {
                url = urlContent(of: token)
            } else if token.kind == .function, equals(bytes(of: token).dropLast(), "url"), let string = onlyString(inFunctionAt: index) {
                url = stringContent(of: tokens[string])
            }
            if let url, case .remote(let host) = Self.classify(url) { hosts.append(host) }
            index += 1
        }
        return hosts
    }

    /// A URL of a style sheet, whitespace around it aside, as `URLPolicy` reads it.
    static func classify(_ url: Slice<UnsafeBufferPointer<UInt8>>) -> URLPolicy {
        var start = url.startIndex
        var end = url.endIndex
        while start < end, ASCIIBytes.isSpace(url[start]) { start += 1 }
        while end > start, ASCIIBytes.isSpace(url[end - 1]) { end -= 1 }
        return URLPolicy.classify(bytes: Array(url[start..<end]))
    }

    /// The only token inside a function, whitespace aside, when it is a string (`url("…")`).
    func onlyString(inFunctionAt index: Int) -> Int? {
        var string: Int?
        for inside in (index + 1)..<min(tokens[index].partner, tokens.count) {
            switch tokens[inside].kind {
            case .whitespace: continue
            case .string where string == nil && !tokens[inside].has(CSSToken.Flags.escape): string = inside
            default: return nil
            }
        }
        return string
    }

    /// A string token's text without its quotes.
    func stringContent(of token: CSSToken) -> Slice<UnsafeBufferPointer<UInt8>> {
        let text = bytes(of: token).dropFirst()
        return token.has(CSSToken.Flags.unterminated) ? text : text.dropLast()
    }

    /// A `url(…)` token's URL, whitespace around it included.
    func urlContent(of token: CSSToken) -> Slice<UnsafeBufferPointer<UInt8>> {
        let text = bytes(of: token).dropFirst(4)
        return token.has(CSSToken.Flags.unterminated) ? text : text.dropLast()
    }

    // MARK: Writing

    /// Writes tokens as they were written, each whitespace run as one space and a comment that
    /// joined two tokens as `/**/`; closes a string, URL, block or function the input's end
    /// closed, so the output holds no open construct; a length in the viewport's height becomes
    /// pixels (`ViewportLengths`). Runs of tokens that need none of that are copied at once.
    func write(_ range: Range<Int>, into output: inout [UInt8]) {
        guard !range.isEmpty else { return }
        var unclosed: [CSSToken.Kind] = []
        var run = tokens[range.lowerBound].start
        var previousEnd = run
        var previousKind = CSSToken.Kind.whitespace
        for index in range {
            let token = tokens[index]
            if token.start != previousEnd {
                // A comment was here: `/**/` between two tokens it joined, nothing otherwise.
                output += bytes[run..<previousEnd]
                if token.kind != .whitespace, previousKind != .whitespace, index > range.lowerBound { output += "/**/".utf8 }
                run = token.start
            }
            if token.kind == .whitespace, token.end - token.start != 1 || bytes[token.start] != 32 || output.last == 32 && run == token.start {
                output += bytes[run..<token.start]
                if output.last != 32 { output.append(32) }
                run = token.end
            } else if token.has(CSSToken.Flags.unterminated) {
                output += bytes[run..<token.end]
                output.append(token.kind == .string ? bytes[token.start] : 41)
                run = token.end
            } else if token.kind == .dimension, !token.has(CSSToken.Flags.escape),
                let pixels = ViewportLengths.pixels(forDimension: bytes[token.start..<token.end])
            {
                output += bytes[run..<token.start]
                output += pixels
                run = token.end
            }
            if token.isOpener, token.partner >= range.upperBound { unclosed.append(token.kind) }
            previousEnd = token.end
            previousKind = token.kind
        }
        output += bytes[run..<previousEnd]
        for kind in unclosed.reversed() { output.append(CSSTokenizer.closingByte(of: kind)) }
    }

    // MARK: Preludes

    /// Writes a group rule's condition after a space (` screen and (max-width: 600px)`), or
    /// returns false: words, numbers, colons, commas, `>`, `=`, `/` and parentheses only.
    func writeGroupPrelude(_ range: Range<Int>, into output: inout [UInt8]) -> Bool {
        var start = range.lowerBound
        while start < range.upperBound, tokens[start].kind == .whitespace { start += 1 }
        let end = trimmedEnd(start, range.upperBound)
        var depth = 0
        for index in start..<end {
            let token = tokens[index]
            if token.has(CSSToken.Flags.escape) { return false }
            switch token.kind {
            case .whitespace, .ident, .number, .percentage, .dimension, .colon, .comma: continue
            case .delim:
                switch firstByte(of: token) {
                case 62, 61, 47: continue
                default: return false
                }
            case .openParen:
                depth += 1
                if depth > CSSSanitizer.maximumNesting { return false }
            case .closeParen:
                guard token.isMatchedCloser else { return false }
                depth -= 1
            default: return false
            }
        }
        if start < end {
            output.append(32)
            write(start..<end, into: &output)
        }
        return true
    }

    /// Writes a style rule's selector list with `CSSSanitizer.markerExclusion` on each selector,
    /// and returns each selector's tokens; nil (with something written) to drop the rule: a
    /// selector of unexpected tokens, or naming a `tern-` class.
    func writeSelectorList(_ range: Range<Int>, into output: inout [UInt8]) -> [[Int]]? {
        var selectors: [[Int]] = []
        var start = range.lowerBound
        while start <= range.upperBound {
            var end = start
            while end < range.upperBound, tokens[end].kind != .comma { end = min(next(after: end), range.upperBound) }
            guard let kept = selectorTokens(start..<end) else { return nil }
            if !selectors.isEmpty { output += [44, 32] } // ", "
            writeSelector(kept, into: &output)
            selectors.append(kept)
            start = end + 1
        }
        return selectors
    }

    /// One complex selector's tokens, checked, without the marker exclusion an earlier pass
    /// wrote and without whitespace at either end; nil when it cannot stay.
    func selectorTokens(_ range: Range<Int>) -> [Int]? {
        var kept: [Int] = []
        var depth = 0
        var index = range.lowerBound
        // A prelude that reads as a custom property (`--x: …`) is no rule (CSS Syntax 3 §5.5.3).
        if let first = range.first, tokens[first].kind == .ident, bytes(of: tokens[first]).starts(with: [45, 45]) { return nil }
        while index < range.upperBound {
            let token = tokens[index]
            if token.has(CSSToken.Flags.escape) { return nil }
            switch token.kind {
            case .whitespace:
                if kept.isEmpty || tokens[kept[kept.count - 1]].kind == .whitespace {
                    index += 1
                    continue
                }
            case .ident, .hash, .string:
                let text = bytes(of: token)
                if contains("tern-", in: text) { return nil }
                // A style element's text may hold no `<` (`</style`) and no control byte.
                if token.kind == .string, text.contains(where: { $0 == 60 || $0 < 32 }) { return nil }
            case .colon:
                if depth == 0, let end = markerExclusionEnd(at: index) {
                    index = end
                    continue
                }
            case .number, .dimension, .percentage:
                break
            case .comma where depth > 0:
                break
            case .delim:
                switch firstByte(of: token) {
                case 46, 42, 62, 43, 126, 124, 61, 94, 36: break // . * > + ~ | = ^ $
                default: return nil
                }
            case .openSquare:
                depth += 1
            case .function:
                guard CSSSanitizer.allowedSelectorFunctions.index(of: bytes(of: token).dropLast()) != nil else { return nil }
                depth += 1
            case .closeSquare, .closeParen:
                guard token.isMatchedCloser, token.partner >= range.lowerBound else { return nil }
                depth -= 1
            default:
                return nil
            }
            if depth > CSSSanitizer.maximumNesting { return nil }
            kept.append(index)
            index += 1
        }
        while let last = kept.last, tokens[last].kind == .whitespace { kept.removeLast() }
        // A trailing combinator would make the exclusion its subject (`a >` is no selector,
        // `a >:not(…)` is one), a trailing colon would make it a pseudo-element.
        if let last = kept.last {
            let token = tokens[last]
            if token.kind == .colon || token.kind == .delim && [62, 43, 126].contains(firstByte(of: token)) { return nil }
        }
        return kept.isEmpty ? nil : kept
    }

    /// Where `CSSSanitizer.markerExclusion` as the sanitizer writes it ends, when it starts at
    /// this colon; nil for anything else (which names `tern-` and drops the rule).
    func markerExclusionEnd(at colon: Int) -> Int? {
        let function = colon + 1
        guard function < tokens.count, tokens[function].kind == .function else { return nil }
        let close = tokens[function].partner
        guard close < tokens.count else { return nil }
        let written = bytes[tokens[colon].start..<tokens[close].end]
        return written.elementsEqual(CSSSanitizer.markerExclusion) ? close + 1 : nil
    }

    /// Writes a complex selector with the marker exclusion on its subject: before its first
    /// pseudo-element (`::before`, or the legacy one-colon `:before`, `:after`, `:first-line`,
    /// `:first-letter`), else at its end.
    func writeSelector(_ kept: [Int], into output: inout [UInt8]) {
        var insertion = kept.count
        var depth = 0
        for (position, index) in kept.enumerated() {
            let token = tokens[index]
            if token.isOpener { depth += 1 } else if token.isMatchedCloser { depth -= 1 }
            guard depth == 0, token.kind == .colon, position + 1 < kept.count else { continue }
            let next = tokens[kept[position + 1]]
            if next.kind == .colon && kept[position + 1] == index + 1 || isLegacyPseudoElement(next) {
                insertion = position
                break
            }
        }
        var runStart = 0
        for position in 1...kept.count where position == kept.count || kept[position] != kept[position - 1] + 1 || position == insertion {
            // Consecutive tokens are written as one range.
            if runStart == insertion { output += CSSSanitizer.markerExclusion }
            write(kept[runStart]..<(kept[position - 1] + 1), into: &output)
            runStart = position
        }
        if insertion == kept.count { output += CSSSanitizer.markerExclusion }
    }

    func isLegacyPseudoElement(_ token: CSSToken) -> Bool {
        guard token.kind == .ident else { return false }
        let name = bytes(of: token)
        return equals(name, "before") || equals(name, "after") || equals(name, "first-line") || equals(name, "first-letter")
    }

    /// A selector that is one compound of an optional type and classes or ids, nothing else.
    func compound(of kept: [Int]) -> HidingStyleRules.Compound? {
        var compound = HidingStyleRules.Compound()
        var position = 0
        while position < kept.count {
            let token = tokens[kept[position]]
            switch token.kind {
            case .ident where position == 0:
                compound.tag = KnownElementName.index(ofBytes: bytes(of: token))
                if compound.tag == 0 { return nil }
            case .delim where position == 0 && firstByte(of: token) == 42:
                break
            case .delim where firstByte(of: token) == 46:
                guard position + 1 < kept.count, kept[position + 1] == kept[position] + 1,
                    tokens[kept[position + 1]].kind == .ident
                else { return nil }
                position += 1
                compound.classes.append(Array(bytes(of: tokens[kept[position]])))
            case .hash:
                let name = bytes(of: token).dropFirst()
                guard let first = name.first, !CSSTokenizer.isDigit(first) else { return nil }
                compound.ids.append(Array(name))
            default:
                return nil
            }
            position += 1
        }
        return compound
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
