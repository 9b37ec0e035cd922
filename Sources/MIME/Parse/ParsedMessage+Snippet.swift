import Foundation

extension ParsedMessage {
    /// The snippet of a text that did not come from this parser (an HTML body's text).
    public static func previewSnippet(from text: String) -> String { snippet(from: text) }

    /// FR-SYNC-06 step 5: the first ~100 characters of the text, whitespace collapsed, quotes skipped.
    static func snippet(from text: String, length: Int = 100) -> String {
        var words: [Substring] = []
        var count = 0
        // Line by line over UTF-8 (newlines, spaces, tabs and CRs are ASCII), stopping as soon as
        // there is enough: a body can be megabytes long, and a quoted reply can come first.
        let utf8 = text.utf8
        var lineStart = utf8.startIndex
        while lineStart < utf8.endIndex {
            let lineEnd = utf8[lineStart...].firstIndex(of: 0x0A) ?? utf8.endIndex
            defer { lineStart = lineEnd == utf8.endIndex ? lineEnd : utf8.index(after: lineEnd) }
            guard utf8[lineStart] != UInt8(ascii: ">") || lineStart == lineEnd else { continue }
            var wordStart: String.Index?
            var index = lineStart
            while true {
                let atEnd = index == lineEnd
                let byte = atEnd ? 0x20 : utf8[index]
                if byte == 0x20 || byte == 0x09 || byte == 0x0D {
                    if let start = wordStart {
                        let word = text[start..<index]
                        words.append(word)
                        count += word.count + 1
                        if count >= length { return String(words.joined(separator: " ").prefix(length)) }
                        wordStart = nil
                    }
                } else if wordStart == nil {
                    wordStart = index
                }
                if atEnd { break }
                index = utf8.index(after: index)
            }
        }
        return words.joined(separator: " ")
    }
}
