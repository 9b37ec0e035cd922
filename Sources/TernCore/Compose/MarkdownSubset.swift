import Foundation

/// FR-COMP-01 "Body Editor": the three constructs the composer's toolbar writes — `**bold**`,
/// `*italic*` and `[text](url)` — turned into minimal safe HTML (`<b>`, `<i>`, `<a href>` with an
/// http, https or mailto URL, and `<br>` for line breaks) and into the plain-text alternative.
/// Everything else stays literal text, escaped in the HTML: there is no way to write any other tag
/// or attribute (fuzzed by `make fuzz-markdown`). A backslash before `*`, `[`, `]`, `(`, `)` or `\`
/// writes that character. Constructs do not span lines, bold and italic do not nest in
/// themselves, and links do not nest; each line costs time in proportion to its length (every
/// failed search for a closing mark is remembered, so `[[[[…` or `****…` is not quadratic).
/// CO01-16 (issue 34): `![name](cid:id)` is an inline image the composer inserted, `<img src="cid:…"
/// alt="…">` and `[image: name]` in the plain text, but only for a Content-ID the caller names
/// (`images`, the draft's own inline parts): any other `![…](…)` stays what it was.
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
        /// The Content-IDs of the inline images the text shows (CO01-16): the parts the message needs.
        public var imageContentIds: Set<String> = []
    }

    /// `images`: the Content-IDs (without angle brackets) an `![name](cid:…)` may show, each with
    /// its file name (the alt text and the plain text's `[image: name]` when `name` is empty).
    public static func render(_ text: String, images: [String: String] = [:]) -> Rendering {
        var renderer = Renderer(bytes: Array(text.utf8), images: images)
        renderer.renderAll()
        return Rendering(
            html: String(decoding: renderer.html, as: UTF8.self), plain: String(decoding: renderer.plain, as: UTF8.self),
            imageContentIds: renderer.imagesShown)
    }

    /// What the composer inserts for an inline image (CO01-16): its name (`[`, `]` and `\`
    /// escaped, line breaks as spaces) and its Content-ID as a `cid:` URL (RFC 2392).
    public static func imageReference(name: String, contentId: String) -> String {
        var escaped = ""
        for character in name {
            if character == "[" || character == "]" || character == "\\" { escaped.append("\\") }
            escaped.append(character.isNewline ? " " : character)
        }
        return "![\(escaped)](cid:\(contentId))"
    }

    /// The Content-ID an image's `src` names: RFC 2392's `cid:` URL is the id percent-encoded, and
    /// the encoding also keeps the attribute closed whatever the id holds.
    public static func cidURL(_ contentId: some Sequence<UInt8>) -> [UInt8] {
        var url = Array("cid:".utf8)
        for byte in contentId {
            let isKept =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-._~@!$*+,;=:".utf8.contains(byte)
            if isKept {
                url.append(byte)
            } else {
                url.append(contentsOf: String(format: "%%%02X", byte).utf8)
            }
        }
        return url
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
        /// Content-ID (its bytes) → file name, of the images `![…](cid:…)` may show.
        let images: [[UInt8]: String]
        /// No longer `cid:` can name one of `images`: a longer one is not looked up.
        let longestImageId: Int
        var imagesShown: Set<String> = []

        init(bytes: [UInt8], images: [String: String] = [:]) {
            self.bytes = bytes
            self.images = Dictionary(images.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
            longestImageId = images.keys.map(\.utf8.count).max() ?? 0
            html.reserveCapacity(bytes.count + bytes.count / 8)
            plain.reserveCapacity(bytes.count)
        }

        static let star = UInt8(ascii: "*"), backslash = UInt8(ascii: "\\"), open = UInt8(ascii: "["), close = UInt8(ascii: "]")
        static let openParen = UInt8(ascii: "("), closeParen = UInt8(ascii: ")"), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        static let bang = UInt8(ascii: "!")
        static let cidScheme = Array("cid:".utf8)
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
            // The `]` after which an image's `(cid:…)` was not one of `images`: every `![` before it fails there too.
            var imageFailedAt = -1
            var imageURLs = URLScan()
            var index = lo
            while index < hi {
                let byte = bytes[index]
                if byte == Self.backslash, index + 1 < hi, Self.escapable.contains(bytes[index + 1]) {
                    appendText(bytes[index + 1])
                    index += 2
                    continue
                }
                if byte == Self.bang, !linkFails, !images.isEmpty, index + 1 < hi, bytes[index + 1] == Self.open {
                    let close: Int? =
                        if let known = knownClose, known.at > index + 1 { known.at } else { closingBracket(from: index + 2, hi) }
                    if let close, close != imageFailedAt {
                        if let end = imageEnd(close: close, hi, &imageURLs) {
                            appendImage(alt: (index + 2)..<close, contentId: (close + 2 + Self.cidScheme.count)..<end)
                            index = end + 1
                            knownClose = nil
                            continue
                        }
                        imageFailedAt = close
                    }
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

        /// The `)` ending `](cid:id)` right after `close`, when `id` is one of `images`.
        /// A scan from before `scan.stop` ends there too, as for links.
        func imageEnd(close: Int, _ hi: Int, _ scan: inout URLScan) -> Int? {
            let start = close + 2 + Self.cidScheme.count
            guard start < hi, bytes[close + 1] == Self.openParen, bytes[(close + 2)..<start].elementsEqual(Self.cidScheme) else { return nil }
            if start >= scan.stop {
                var stop = start
                while stop < hi, bytes[stop] != Self.closeParen, !MarkdownSubset.isForbiddenInURL(bytes[stop]) { stop += 1 }
                scan.stop = stop
            }
            let stop = scan.stop
            guard stop < hi, bytes[stop] == Self.closeParen, stop - start <= longestImageId, images[Array(bytes[start..<stop])] != nil else {
                return nil
            }
            return stop
        }

        /// `<img src="cid:…" alt="…">` and `[image: …]`; the alt is the text between the brackets
        /// (escapes read, nothing else), else the file's name.
        mutating func appendImage(alt range: Range<Int>, contentId idRange: Range<Int>) {
            let contentId = Array(bytes[idRange])
            var alt: [UInt8] = []
            var index = range.lowerBound
            while index < range.upperBound {
                if bytes[index] == Self.backslash, index + 1 < range.upperBound, Self.escapable.contains(bytes[index + 1]) { index += 1 }
                alt.append(bytes[index])
                index += 1
            }
            if alt.allSatisfy({ isSpace($0) }) { alt = Array((images[contentId] ?? "").utf8) }
            imagesShown.insert(String(decoding: contentId, as: UTF8.self))
            html.append(contentsOf: "<img src=\"".utf8)
            html.append(contentsOf: MarkdownSubset.cidURL(contentId))
            html.append(contentsOf: "\" alt=\"".utf8)
            for byte in alt { appendEscaped(byte) }
            html.append(contentsOf: "\">".utf8)
            plain.append(contentsOf: "[image: ".utf8)
            plain.append(contentsOf: alt)
            plain.append(Self.close)
        }

        mutating func appendText(_ byte: UInt8) {
            plain.append(byte)
            appendEscaped(byte)
        }

        mutating func appendEscaped(_ byte: UInt8) {
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
    /// Attachment bytes are the sender's to load: `attachments` lists them. An inline image the
    /// composer added whose reference is no longer in the text is left out (CO01-16, docs/decisions.md).
    public func outgoingMessage(date: Date, attachments loaded: [OutgoingAttachment] = []) -> OutgoingMessage {
        let rendered = renderedBody
        let removed = Set(insertedImages.keys).subtracting(rendered.imageContentIds)
        return OutgoingMessage(
            from: from, to: to, cc: cc, bcc: bcc, subject: subject, date: date, inReplyTo: inReplyTo, references: references,
            bodyPlain: rendered.plain, bodyHTML: rendered.htmlDocument,
            attachments: loaded.filter { $0.contentId.map { !removed.contains($0) } ?? true })
    }

    /// The body as the message shows it, its `![…](cid:…)` naming any of the draft's parts with a Content-ID.
    public var renderedBody: MarkdownSubset.Rendering {
        var images: [String: String] = [:]
        for attachment in attachments { if let contentId = attachment.contentId { images[contentId] = attachment.filename } }
        return MarkdownSubset.render(body, images: images)
    }

    /// The inline images the composer put in the text (files with a Content-ID, CO01-16), by Content-ID;
    /// a forwarded original's inline parts are not among them.
    public var insertedImages: [String: ComposedAttachment] {
        var images: [String: ComposedAttachment] = [:]
        for attachment in attachments {
            guard case .file = attachment.source, let contentId = attachment.contentId else { continue }
            images[contentId] = attachment
        }
        return images
    }
}
