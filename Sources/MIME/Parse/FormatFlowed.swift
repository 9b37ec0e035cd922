/// RFC 3676 `format=flowed`: lines ending in a space continue on the next line (same quote depth);
/// space-stuffing is removed; with `DelSp=yes` the trailing space of a flowed line is deleted too.
/// Works on UTF-8 bytes: every byte it looks at (space, `>`, CR, LF) is ASCII.
public enum FormatFlowed {
    public static func decode(_ text: String, delSp: Bool) -> String {
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var paragraphDepth = -1
        var inParagraph = false
        var paragraphStart = 0 // where the current paragraph's text starts in `output`

        func startParagraph(depth: Int) {
            if depth > 0 {
                output.append(contentsOf: repeatElement(UInt8(ascii: ">"), count: depth))
                output.append(ASCII.space)
            }
            paragraphStart = output.count
            paragraphDepth = depth
            inParagraph = true
        }

        func endParagraph() {
            guard inParagraph else { return }
            output.append(ASCII.lf)
            inParagraph = false
            paragraphDepth = -1
        }

        input.withUnsafeBufferPointer { buffer in
            var lineStart = 0
            let count = buffer.count
            while lineStart < count {
                var lineEnd = lineStart
                while lineEnd < count && buffer[lineEnd] != ASCII.lf { lineEnd += 1 }
                let nextLine = lineEnd + 1
                var end = lineEnd
                if end > lineStart && buffer[end - 1] == ASCII.cr { end -= 1 }
                var start = lineStart
                var depth = 0
                while start < end && buffer[start] == UInt8(ascii: ">") {
                    depth += 1
                    start += 1
                }
                if start < end && buffer[start] == ASCII.space { start += 1 } // space-stuffing, or the space after quote marks
                let isSignatureSeparator =
                    end - start == 3 && buffer[start] == ASCII.hyphen && buffer[start + 1] == ASCII.hyphen
                    && buffer[start + 2] == ASCII.space
                let flowed = end > start && buffer[end - 1] == ASCII.space && !isSignatureSeparator
                if inParagraph && depth != paragraphDepth { endParagraph() }
                if !inParagraph { startParagraph(depth: depth) }
                let contentEnd = flowed && delSp ? end - 1 : end
                if contentEnd > start { output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<contentEnd])) }
                if !flowed { endParagraph() }
                lineStart = nextLine
            }
        }
        endParagraph()
        _ = paragraphStart
        if input.last != ASCII.lf, output.last == ASCII.lf { output.removeLast() }
        return String(decoding: output, as: UTF8.self)
    }
}
