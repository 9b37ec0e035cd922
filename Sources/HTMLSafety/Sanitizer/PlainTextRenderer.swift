import Foundation

/// Plain-text bodies as HTML (FR-ED-01): escaped, line breaks kept, http(s)/mailto/www links
/// clickable (opening outside, like the sanitizer's), `>` quoted lines folded as HTML quotes are.
public enum PlainTextRenderer {
    public static func render(_ text: String) -> SanitizedHTML {
        let lines = text.replacingLineBreaks.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var html = "<div class=\"tern-plain\">"
        var quoted: [String] = []
        var quotes = 0
        func flushQuote() {
            guard !quoted.isEmpty else { return }
            quotes += 1
            html += "<details class=\"tern-quote\"><summary>Show quoted text</summary><blockquote>"
            html += quoted.map { linkify(escape($0)) }.joined(separator: "<br>")
            html += "</blockquote></details>"
            quoted = []
        }
        var first = true
        for (index, line) in lines.enumerated() {
            let isQuote = line.hasPrefix(">")
            let nextIsQuote = index + 1 < lines.count && lines[index + 1].hasPrefix(">")
            if isQuote || (QuoteDetector.isAttributionText(line) && nextIsQuote) {
                quoted.append(isQuote ? String(line.drop { $0 == ">" || $0 == " " }) : line)
                continue
            }
            flushQuote()
            if !first { html += "<br>" }
            html += linkify(escape(line))
            first = false
        }
        flushQuote()
        html += "</div>"
        return SanitizedHTML(html: html, trackersBlocked: 0, trackerHosts: [], remoteImagesBlocked: 0, hasQuotedText: quotes > 0,
                             fallbackToPlainText: false, suspiciousLinks: 0)
    }

    static func escape(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case " " where output.hasSuffix(" "): output += "&nbsp;"  // runs of spaces survive
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// Links in escaped text: `https://…`, `http://…`, `mailto:…`, `www.…` (shown as written).
    static func linkify(_ escaped: String) -> String {
        var output = ""
        var rest = Substring(escaped)
        while let start = firstLinkStart(in: rest) {
            output += rest[..<start]
            var end = rest[start...].firstIndex(where: { $0 == " " || $0 == "<" || $0 == "\t" || $0 == "&" && false }) ?? rest.endIndex
            // Trailing punctuation belongs to the sentence.
            while end > start, let last = rest[..<end].last, ".,;:!?)]'".contains(last) { end = rest.index(before: end) }
            let shown = String(rest[start..<end])
            let target = shown.lowercased().hasPrefix("www.") ? "https://" + shown : shown
            if case .remote = URLPolicy.classify(target.replacingEntities) {
                output += "<a href=\"\(target)\" target=\"_blank\" rel=\"noopener noreferrer\" title=\"\(target)\">\(shown)</a>"
            } else if case .mailto = URLPolicy.classify(target.replacingEntities) {
                output += "<a href=\"\(target)\" target=\"_blank\" rel=\"noopener noreferrer\" title=\"\(target)\">\(shown)</a>"
            } else {
                output += shown
            }
            rest = rest[end...]
            if rest.first.map({ $0 != " " }) == true, end == start { output.append(rest.removeFirst()) }
        }
        return output + rest
    }

    static func firstLinkStart(in text: Substring) -> Substring.Index? {
        let lower = text.lowercased()
        let candidates = ["https://", "http://", "mailto:", "www."].compactMap { lower.range(of: $0)?.lowerBound }
        guard let earliest = candidates.min() else { return nil }
        let offset = lower.distance(from: lower.startIndex, to: earliest)
        let index = text.index(text.startIndex, offsetBy: offset)
        // Only at a word start.
        if index > text.startIndex, let previous = text[..<index].last, previous.isLetter || previous.isNumber {
            return nil
        }
        return index
    }
}

extension String {
    var replacingLineBreaks: String {
        var output = ""
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" { output += "\n"; previousCR = true; continue }
            if scalar == "\n", previousCR { previousCR = false; continue }
            previousCR = false
            output.unicodeScalars.append(scalar)
        }
        return output
    }

    /// `&amp;` back to `&` for classifying an escaped URL.
    var replacingEntities: String {
        var text = self
        for (entity, character) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\"")] {
            while let range = text.range(of: entity) { text.replaceSubrange(range, with: character) }
        }
        return text
    }
}
