/// FR-SYNC-06 step 4: the subject a reply or forward shares with its original. Reply and forward
/// prefixes are stripped recursively and case-insensitively — the English ones the spec names and
/// the localized ones common mail clients write (German AW/WG, Nordic SV/VS/VB, Dutch Antw/Doorst,
/// French Réf/TR, Italian R/RIF/I, Spanish/Portuguese RV/ENC/RES, Polish Odp/PD, Turkish YNT/İLT,
/// Greek ΑΠ/ΣΧΕΤ/ΠΡΘ, Chinese 回复/答复/转发/轉寄, Hebrew השב/הועבר), with counters
/// (`Re[2]:`, `Re(3):`, `Re^2:`), full-width colons, and a mailing-list tag (`[list] Re:`) in
/// front of a prefix. The result is compared exactly, so it is also whitespace-collapsed and
/// lowercased.
public enum SubjectNormalizer {
    static let prefixes: Set<String> = [
        "re", "fw", "fwd", "aw", "wg", "sv", "vs", "vb", "antw", "doorst", "réf", "ref", "tr", "r", "rif", "i", "rv", "enc",
        "res", "odp", "pd", "ynt", "ilt", "i̇lt", "απ", "σχετ", "πρθ", "回复", "答复", "转发", "轉寄", "回覆", "השב", "הועבר",
        "ats", "vl", "vá", "továbbítás", "rép"
    ]

    public static func normalize(_ subject: String) -> String {
        // On Unicode scalars: Character (grapheme) properties cost more than the rest of threading.
        let scalars = Array(subject.lowercased().unicodeScalars)
        var start = 0
        var tag: Range<Int>?
        while true {
            while start < scalars.count, scalars[start].properties.isWhitespace { start += 1 }
            guard let end = prefixEnd(scalars, from: start) else { break }
            if end.tag != nil { tag = end.tag }
            start = end.index
        }
        var output = String.UnicodeScalarView()
        if let tag {
            output.append(contentsOf: scalars[tag])
            output.append(" ")
        }
        var pendingSpace = false
        for scalar in scalars[start...] {
            if scalar.properties.isWhitespace {
                pendingSpace = !output.isEmpty
                continue
            }
            if pendingSpace { output.append(" ") }
            pendingSpace = false
            output.append(scalar)
        }
        var text = String(output)
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// The subject says it is a reply or a forward (`Re:`, `AW:`, `Fwd:` …, after a list tag).
    public static func isReplyOrForward(_ subject: String) -> Bool {
        let scalars = Array(subject.lowercased().unicodeScalars)
        var start = 0
        while start < scalars.count, scalars[start].properties.isWhitespace { start += 1 }
        return prefixEnd(scalars, from: start) != nil
    }

    /// Where the text after one leading reply/forward prefix starts, and the prefix's word
    /// (lowercased), or nil when there is none.
    /// A mailing-list tag counts only when a prefix follows it: "[dev] Re: x" threads with
    /// "[dev] x", which keeps its tag.
    static func prefixEnd(_ scalars: [Unicode.Scalar], from start: Int) -> (index: Int, tag: Range<Int>?, word: String)? {
        var index = start
        var tag: Range<Int>?
        if index < scalars.count, scalars[index] == "[" {
            guard let close = scalars[index...].firstIndex(of: "]") else { return nil }
            tag = index..<(close + 1)
            index = close + 1
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        }
        let wordStart = index
        while index < scalars.count, scalars[index].properties.isAlphabetic { index += 1 }
        guard index > wordStart else { return nil }
        var word = String.UnicodeScalarView()
        word.append(contentsOf: scalars[wordStart..<index])
        guard prefixes.contains(String(word)) else { return nil }
        // Counters: Re[2]:  Re(2):  Re^2:
        if index < scalars.count, scalars[index] == "[" || scalars[index] == "(" {
            let close: Unicode.Scalar = scalars[index] == "[" ? "]" : ")"
            index += 1
            let digits = index
            while index < scalars.count, scalars[index].properties.numericType != nil { index += 1 }
            guard index > digits, index < scalars.count, scalars[index] == close else { return nil }
            index += 1
        } else if index < scalars.count, scalars[index] == "^" {
            index += 1
            while index < scalars.count, scalars[index].properties.numericType != nil { index += 1 }
        }
        while index < scalars.count, scalars[index] == " " { index += 1 }
        guard index < scalars.count, scalars[index] == ":" || scalars[index] == "：" else { return nil }
        return (index + 1, tag, String(word))
    }
}
