import Foundation

/// Plain-text bodies as HTML (FR-ED-01): escaped, line breaks kept, http(s)/mailto/www links
/// clickable (opening outside, like the sanitizer's) and cleaned of their tracking as HTML links
/// are (issue 37), `>` quoted lines folded as HTML quotes are.
public enum PlainTextRenderer {
    public static func render(_ text: String, linkRules: LinkTrackingRules? = .bundled) -> SanitizedHTML {
        let lines = text.replacingLineBreaks.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var html = "<div class=\"tern-plain\">"
        var quoted: [String] = []
        var quotes = 0
        var links = LinkCleaning()
        var trackedHosts = Set<String>()
        func linked(_ line: String) -> String { linkify(escape(line), rules: linkRules, links: &links, trackedHosts: &trackedHosts) }
        func flushQuote() {
            guard !quoted.isEmpty else { return }
            quotes += 1
            html += "<details class=\"tern-quote\"><summary>Show quoted text</summary><blockquote>"
            html += quoted.map(linked).joined(separator: "<br>")
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
            html += linked(line)
            first = false
        }
        flushQuote()
        html += "</div>"
        links.trackedHosts = trackedHosts.sorted()
        return SanitizedHTML(
            html: html, trackersBlocked: 0, trackerHosts: [], remoteImagesBlocked: 0, hasQuotedText: quotes > 0,
            fallbackToPlainText: false, suspiciousLinks: 0, links: links)
    }

    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var afterSpace = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case " " where afterSpace:
                output += "&nbsp;" // runs of spaces survive
                afterSpace = false
                continue
            default: output.unicodeScalars.append(scalar)
            }
            afterSpace = scalar == " "
        }
        return output
    }

    static let linkPrefixes: [[UInt8]] = ["https://", "http://", "mailto:", "www."].map { Array($0.utf8) }
    /// Trailing punctuation belongs to the sentence, not the link.
    static let trailingPunctuation = Set(".,;:!?)]'".utf8)

    /// Links in escaped text: `https://…`, `http://…`, `mailto:…`, `www.…` (shown as written), each
    /// starting a word and running to a space, tab or `<`. One pass over the bytes: a search of the
    /// rest of the text for each link (after lowercasing it) made a long line of links quadratic.
    /// With `rules`, an http(s) link's destination is cleaned (`LinkCleaner`): the text stays as the
    /// sender wrote it, the link and its title go to the destination without tracking, a click
    /// tracker is named as in HTML bodies, and a wrapper around a refused scheme links nowhere.
    static func linkify(
        _ escaped: String, rules: LinkTrackingRules? = nil, links: inout LinkCleaning, trackedHosts: inout Set<String>
    ) -> String {
        let bytes = Array(escaped.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] | 0x20 == 104 || bytes[index] | 0x20 == 109 || bytes[index] | 0x20 == 119, // h, m, w
                linkPrefixes.contains(where: { startsLowercased(bytes, at: index, with: $0) })
            else {
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, bytes[end] != 32, bytes[end] != 60, bytes[end] != 9 { end += 1 }
            // Inside a word it is no link, nor is anything after it in that word.
            guard startsWord(bytes, at: index) else {
                index = end
                continue
            }
            while end > index, trailingPunctuation.contains(bytes[end - 1]) { end -= 1 }
            let shown = String(decoding: bytes[index..<end], as: UTF8.self)
            let target = startsLowercased(bytes, at: index, with: linkPrefixes[3]) ? "https://" + shown : shown
            output += bytes[copied..<index]
            let written = target.replacingEntities
            switch URLPolicy.classify(written) {
            case .remote(let host):
                guard let rules else {
                    output += "<a href=\"\(target)\" target=\"_blank\" rel=\"noopener noreferrer\" title=\"\(target)\">\(shown)</a>".utf8
                    break
                }
                let cleaned = LinkCleaner.clean(bytes: Array(written.utf8), host: host, rules: rules)
                guard let url = cleaned.url else {
                    output += shown.utf8
                    break
                }
                if cleaned.parametersRemoved > 0 { links.cleaned += 1 }
                if cleaned.unwraps > 0 { links.unwrapped += 1 }
                let destination = escape(url)
                var tracked = ""
                if let host = cleaned.trackedHost {
                    links.tracked += 1
                    trackedHosts.insert(host)
                    tracked = " data-tern-tracked-host=\"\(escape(host))\""
                }
                output +=
                    "<a href=\"\(destination)\" target=\"_blank\" rel=\"noopener noreferrer\" title=\"\(destination)\"\(tracked)>\(shown)</a>"
                    .utf8
            case .mailto:
                output += "<a href=\"\(target)\" target=\"_blank\" rel=\"noopener noreferrer\" title=\"\(target)\">\(shown)</a>".utf8
            default:
                output += shown.utf8
            }
            copied = end
            index = max(end, index + 1)
        }
        output += bytes[copied...]
        return String(decoding: output, as: UTF8.self)
    }

    static func startsLowercased(_ bytes: [UInt8], at index: Int, with prefix: [UInt8]) -> Bool {
        guard bytes.count - index >= prefix.count else { return false }
        for offset in prefix.indices {
            let byte = bytes[index + offset]
            if (byte >= 65 && byte <= 90 ? byte | 0x20 : byte) != prefix[offset] { return false }
        }
        return true
    }

    /// Nothing before, or a character before that is neither a letter nor a digit.
    static func startsWord(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index > 0 else { return true }
        var start = index - 1
        while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        let previous = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let character = previous.last else { return true }
        return !(character.isLetter || character.isNumber)
    }
}

extension String {
    var replacingLineBreaks: String {
        var output = ""
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                output += "\n"
                previousCR = true
                continue
            }
            if scalar == "\n", previousCR {
                previousCR = false
                continue
            }
            previousCR = false
            output.unicodeScalars.append(scalar)
        }
        return output
    }

    /// `&amp;`, `&lt;`, `&gt;` and `&quot;` back to their characters, for classifying an escaped URL;
    /// one pass (a search from the start for each entity was quadratic).
    var replacingEntities: String {
        guard utf8.contains(38) else { return self }
        let entities: [(name: [UInt8], byte: UInt8)] = [
            (Array("&amp;".utf8), 38), (Array("&lt;".utf8), 60), (Array("&gt;".utf8), 62),
            (Array("&quot;".utf8), 34)
        ]
        let bytes = Array(utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 38, let entity = entities.first(where: { bytes[index...].starts(with: $0.name) }) {
                output.append(entity.byte)
                index += entity.name.count
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
