/// RFC 3676 `format=flowed`: lines ending in a space continue on the next line (same quote depth);
/// space-stuffing is removed; with `DelSp=yes` the trailing space of a flowed line is deleted too.
public enum FormatFlowed {
    public static func decode(_ text: String, delSp: Bool) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var paragraph = ""
        var paragraphDepth = -1
        var inParagraph = false

        func flush() {
            guard inParagraph else { return }
            if paragraphDepth > 0 { output += String(repeating: ">", count: paragraphDepth) + " " }
            output += paragraph
            output += "\n"
            paragraph = ""
            inParagraph = false
            paragraphDepth = -1
        }

        // Split on LF bytes: in Swift "\r\n" is one Character and would not split on "\n".
        var lines = text.utf8.split(separator: ASCII.lf, omittingEmptySubsequences: false).map { line -> Substring in
            let withoutCR = line.last == ASCII.cr ? line.dropLast() : line[...]
            return Substring(withoutCR)
        }
        if lines.last == "" { lines.removeLast() }
        for rawLine in lines {
            var line = rawLine
            var depth = 0
            while line.first == ">" { depth += 1; line = line.dropFirst() }
            if line.first == " " { line = line.dropFirst() }  // space-stuffing (or the space after quote marks)
            let isSignatureSeparator = line == "-- "
            let flowed = line.hasSuffix(" ") && !isSignatureSeparator
            if inParagraph && depth != paragraphDepth { flush() }
            var content = line
            if flowed && delSp { content = content.dropLast() }
            paragraph += content
            paragraphDepth = depth
            inParagraph = true
            if !flowed { flush() }
        }
        flush()
        if text.utf8.last != ASCII.lf, output.hasSuffix("\n") { output.removeLast() }
        return output
    }
}
