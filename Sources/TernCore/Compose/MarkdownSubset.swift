import Foundation

/// FR-COMP-01 "Body Editor": the three constructs the composer's toolbar writes — `**bold**`,
/// `*italic*` and `[text](url)` — turned into minimal safe HTML (`<b>`, `<i>`, `<a href>` with an
/// http, https or mailto URL, and `<br>` for line breaks) and into the plain-text alternative.
/// Everything else stays literal text, escaped in the HTML: there is no way to write any other tag
/// or attribute (fuzzed by `make fuzz-markdown`). A backslash before `*`, `[`, `]`, `(`, `)` or `\`
/// writes that character. Constructs do not span lines, bold and italic do not nest in
/// themselves, and links do not nest; each line costs time in proportion to its length (every
/// failed search for a closing mark is remembered, so `[[[[…` or `****…` is not quadratic).
public enum MarkdownSubset {
    public struct Rendering: Sendable, Hashable {
        /// The HTML fragment: text, `<b>`, `<i>`, `<a href="…">`, `<br>`.
        public var html: String
        /// The fragment in a minimal document, as the message's text/html part.
        public var htmlDocument: String {
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><div>\(html)</div></body></html>"
        }
        /// The text/plain alternative: `*bold*`, `_italic_`, `text <url>` (the conventions of plain mail).
        public var plain: String
    }

    public static func render(_ text: String) -> Rendering {
        var renderer = Renderer(bytes: Array(text.utf8))
        renderer.renderAll()
        return Rendering(html: String(decoding: renderer.html, as: UTF8.self), plain: String(decoding: renderer.plain, as: UTF8.self))
    }

    static let schemes = ["https://", "http://", "mailto:"]

    /// The length of the allowed scheme (http, https or mailto) `url` starts with, else nil;
    /// anything else leaves `[text](url)` as literal text.
    static func allowedSchemeLength(_ url: ArraySlice<UInt8>) -> Int? {
        let lowered = url.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return schemes.first { lowered.starts(with: $0.utf8) }?.utf8.count
    }

    /// A byte a link's URL may not hold: it could end the attribute or start markup.
    static func isForbiddenInURL(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "\\")
    }

    struct Renderer {
        let bytes: [UInt8]
        var html: [UInt8] = []
        var plain: [UInt8] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
            html.reserveCapacity(bytes.count + bytes.count / 8)
            plain.reserveCapacity(bytes.count)
        }

        static let star = UInt8(ascii: "*"), backslash = UInt8(ascii: "\\"), open = UInt8(ascii: "["), close = UInt8(ascii: "]")
        static let openParen = UInt8(ascii: "("), closeParen = UInt8(ascii: ")"), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        static let escapable: Set<UInt8> = [star, backslash, open, close, openParen, closeParen]

        mutating func renderAll() {
            var lineStart = 0
            while lineStart <= bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != Self.lf, bytes[lineEnd] != Self.cr { lineEnd += 1 }
                renderInline(lineStart, lineEnd, bold: true, italic: true, link: true)
                guard lineEnd < bytes.count else { break }
                html.append(contentsOf: "<br>\n".utf8)
                plain.append(Self.lf)
                lineStart = lineEnd + (bytes[lineEnd] == Self.cr && lineEnd + 1 < bytes.count && bytes[lineEnd + 1] == Self.lf ? 2 : 1)
            }
        }

        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

        /// The text of `lo..<hi` with the constructs allowed there.
        mutating func renderInline(_ lo: Int, _ hi: Int, bold: Bool, italic: Bool, link: Bool) {
            var boldFails = !bold
            var italicFails = !italic
            var linkFails = !link
            // The first `]` after the last `[` looked at, and whether a link ended there: every `[`
            // before it finds the same `]`.
            var knownClose: (at: Int, failed: Bool)?
            var urls = URLScan()
            var index = lo
            while index < hi {
                let byte = bytes[index]
                if byte == Self.backslash, index + 1 < hi, Self.escapable.contains(bytes[index + 1]) {
                    appendText(bytes[index + 1])
                    index += 2
                    continue
                }
                if byte == Self.star, index + 1 < hi, bytes[index + 1] == Self.star {
                    if !boldFails, index + 2 < hi, !isSpace(bytes[index + 2]) {
                        if let end = closingBold(from: index + 2, hi) {
                            html.append(contentsOf: "<b>".utf8)
                            plain.append(Self.star)
                            renderInline(index + 2, end, bold: false, italic: italic, link: link)
                            html.append(contentsOf: "</b>".utf8)
                            plain.append(Self.star)
                            index = end + 2
                            continue
                        }
                        boldFails = true
                    }
                    appendText(byte)
                    appendText(byte)
                    index += 2
                    continue
                }
                if byte == Self.star, !italicFails, index + 1 < hi, !isSpace(bytes[index + 1]) {
                    if let end = closingItalic(from: index + 1, hi) {
                        html.append(contentsOf: "<i>".utf8)
                        plain.append(UInt8(ascii: "_"))
                        renderInline(index + 1, end, bold: bold, italic: false, link: link)
                        html.append(contentsOf: "</i>".utf8)
                        plain.append(UInt8(ascii: "_"))
                        index = end + 1
                        continue
                    }
                    italicFails = true
                }
                if byte == Self.open, !linkFails {
                    if let known = knownClose, known.at > index {
                        if known.failed {
                            appendText(byte)
                            index += 1
                            continue
                        }
                    }
                    guard let close = closingBracket(from: index + 1, hi) else {
                        linkFails = true
                        appendText(byte)
                        index += 1
                        continue
                    }
                    if close > index + 1, let end = linkEnd(close: close, hi, &urls) {
                        let url = bytes[(close + 2)..<end]
                        html.append(contentsOf: "<a href=\"".utf8)
                        appendAttribute(url)
                        html.append(contentsOf: "\">".utf8)
                        let plainStart = plain.count
                        renderInline(index + 1, close, bold: bold, italic: italic, link: false)
                        html.append(contentsOf: "</a>".utf8)
                        if !plain[plainStart...].elementsEqual(url) {
                            plain.append(contentsOf: " <".utf8)
                            plain.append(contentsOf: url)
                            plain.append(UInt8(ascii: ">"))
                        }
                        index = end + 1
                        knownClose = nil
                        continue
                    }
                    knownClose = (close, true)
                }
                appendText(byte)
                index += 1
            }
        }

        enum ScanStep {
            case found
            case skip(Int)
        }

        /// The first position from `start` where `step` finds what it looks for, backslash escapes
        /// stepped over whole.
        func firstUnescaped(from start: Int, _ hi: Int, _ step: (Int) -> ScanStep) -> Int? {
            var index = start
            while index < hi {
                if bytes[index] == Self.backslash, index + 1 < hi, Self.escapable.contains(bytes[index + 1]) {
                    index += 2
                    continue
                }
                switch step(index) {
                case .found: return index
                case .skip(let count): index += count
                }
            }
            return nil
        }

        /// The next `**` after `from` with a non-space before it and something between.
        func closingBold(from start: Int, _ hi: Int) -> Int? {
            firstUnescaped(from: start, hi) { index in
                index + 1 < hi && bytes[index] == Self.star && bytes[index + 1] == Self.star && index > start && !isSpace(bytes[index - 1])
                    ? .found : .skip(1)
            }
        }

        /// The next lone `*` after `from` with a non-space before it; `**` is skipped whole.
        func closingItalic(from start: Int, _ hi: Int) -> Int? {
            firstUnescaped(from: start, hi) { index in
                guard bytes[index] == Self.star else { return .skip(1) }
                if index + 1 < hi, bytes[index + 1] == Self.star { return .skip(2) }
                return index > start && !isSpace(bytes[index - 1]) ? .found : .skip(1)
            }
        }

        func closingBracket(from start: Int, _ hi: Int) -> Int? {
            firstUnescaped(from: start, hi) { bytes[$0] == Self.close ? .found : .skip(1) }
        }

        /// What the URL scans of one range found, so that no byte is scanned twice for the same
        /// answer: a scan from before `stop` ends there too, and a URL that starts before
        /// `forbiddenAt` and ends after it holds a forbidden byte.
        struct URLScan {
            var stop = -1
            var forbiddenAt = -1
        }

        /// The `)` ending `](url)` right after `close`, when the URL is an allowed one.
        func linkEnd(close: Int, _ hi: Int, _ scan: inout URLScan) -> Int? {
            let start = close + 2
            guard start <= hi, bytes[close + 1] == Self.openParen,
                let schemeLength = MarkdownSubset.allowedSchemeLength(bytes[start..<min(start + 8, hi)])
            else { return nil }
            if start >= scan.stop {
                var stop = start
                while stop < hi, bytes[stop] != Self.closeParen, bytes[stop] > 0x20 { stop += 1 }
                scan.stop = stop
            }
            let stop = scan.stop
            guard stop < hi, bytes[stop] == Self.closeParen, stop - start > schemeLength else { return nil }
            if start <= scan.forbiddenAt && scan.forbiddenAt < stop { return nil }
            if let forbidden = bytes[start..<stop].firstIndex(where: MarkdownSubset.isForbiddenInURL) {
                scan.forbiddenAt = forbidden
                return nil
            }
            return stop
        }

        mutating func appendText(_ byte: UInt8) {
            plain.append(byte)
            switch byte {
            case UInt8(ascii: "&"): html.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): html.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): html.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): html.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): html.append(contentsOf: "&#39;".utf8)
            case 0: html.append(contentsOf: "\u{FFFD}".utf8)
            default: html.append(byte)
            }
        }

        mutating func appendAttribute(_ value: ArraySlice<UInt8>) {
            for byte in value {
                if byte == UInt8(ascii: "&") { html.append(contentsOf: "&amp;".utf8) } else { html.append(byte) }
            }
        }
    }
}

extension ComposeDraft {
    /// What the send path hands to the message builder: the body's Markdown subset as the HTML
    /// alternative, and its plain rendering as the text part (FR-COMP-01 "Body Editor").
    /// Attachment bytes are the sender's to load: `attachments` lists them.
    public func outgoingMessage(date: Date, attachments loaded: [OutgoingAttachment] = []) -> OutgoingMessage {
        let rendered = MarkdownSubset.render(body)
        return OutgoingMessage(
            from: from, to: to, cc: cc, bcc: bcc, subject: subject, date: date, inReplyTo: inReplyTo, references: references,
            bodyPlain: rendered.plain, bodyHTML: rendered.htmlDocument, attachments: loaded)
    }
}
