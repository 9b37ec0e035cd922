/// A fixed set of ASCII words, looked up by UTF-8 bytes without building a `String`, lowercasing
/// as it hashes: the sanitizer asks it for every attribute and CSS property of a message.
/// Open addressing over an FNV-1a hash; the table is a quarter full at most.
struct ASCIIKeywordSet: Sendable {
    private let words: [[UInt8]]
    /// The words end to end, and where each starts (`starts[position + 1]`: where it ends): a
    /// lookup compares against this one buffer instead of retaining a word's array.
    private let bytes: [UInt8]
    private let starts: [Int32]
    private let slots: [Int32]
    private let mask: Int

    init(_ list: [String]) {
        words = list.map { Array($0.lowercased().utf8) }
        bytes = words.flatMap { $0 }
        starts = words.reduce(into: [0]) { starts, word in starts.append(starts.last! + Int32(word.count)) }
        var size = 16
        while size < list.count * 4 { size *= 2 }
        var slots = [Int32](repeating: -1, count: size)
        for (position, word) in words.enumerated() {
            var slot = Self.hash(word[...]) & (size - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(position)
        }
        self.slots = slots
        mask = size - 1
    }

    func contains(_ bytes: ArraySlice<UInt8>) -> Bool { index(of: bytes) != nil }

    /// The word at `position`, lowercase: one shared buffer, so a caller can keep it without copying.
    func word(at position: Int) -> [UInt8] { words[position] }

    /// The word's position in the list given to `init`, compared ASCII-case-insensitively.
    func index<Bytes: Collection<UInt8>>(of candidate: Bytes) -> Int? {
        // Arrays, slices and native strings (every caller) are read through their buffer: the
        // collection walk checked every index, and this lookup runs for every tag, attribute
        // name and CSS property of a message (issue 38's profile: 3.4% of sanitizing).
        if let found = candidate.withContiguousStorageIfAvailable({ index(inBuffer: $0) }) { return found }
        return Array(candidate).withUnsafeBufferPointer { index(inBuffer: $0) }
    }

    private func index(inBuffer candidate: UnsafeBufferPointer<UInt8>) -> Int? {
        var slot = Self.hash(candidate) & mask
        let count = candidate.count
        return slots.withUnsafeBufferPointer { slots in
            starts.withUnsafeBufferPointer { starts in
                bytes.withUnsafeBufferPointer { bytes in
                    while true {
                        let position = Int(slots[slot])
                        if position < 0 { return nil }
                        let start = Int(starts[position])
                        if Int(starts[position + 1]) - start == count {
                            var offset = 0
                            while offset < count, bytes[start + offset] == URLPolicy.lowercased(candidate[offset]) { offset += 1 }
                            if offset == count { return position }
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    private static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(URLPolicy.lowercased(byte))
            hash = hash &* 0x100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash >> 1)
    }
}

/// Byte helpers shared by the CSS and HTML cleaning code.
enum ASCIIBytes {
    static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 || byte == 12 }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    /// ASCII-case-insensitive search for `needle` (lowercase ASCII).
    static func firstRange(of needle: StaticString, in haystack: ArraySlice<UInt8>) -> Range<Int>? {
        let count = needle.utf8CodeUnitCount
        guard count > 0, haystack.count >= count else { return nil }
        return needle.withUTF8Buffer { pattern -> Range<Int>? in
            var index = haystack.startIndex
            let last = haystack.endIndex - count
            while index <= last {
                if URLPolicy.lowercased(haystack[index]) == pattern[0] {
                    var offset = 1
                    while offset < count, URLPolicy.lowercased(haystack[index + offset]) == pattern[offset] { offset += 1 }
                    if offset == count { return index..<(index + count) }
                }
                index += 1
            }
            return nil
        }
    }

    static func contains(_ needle: StaticString, in haystack: ArraySlice<UInt8>) -> Bool { firstRange(of: needle, in: haystack) != nil }

    /// Equal to `word` (lowercase ASCII), ignoring ASCII case.
    static func equals(_ bytes: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { pattern in zip(bytes, pattern).allSatisfy { URLPolicy.lowercased($0) == $1 } }
    }

    /// Splits at `separator` outside quotes and parentheses, calling `body` with each part.
    static func forEachPart(of bytes: ArraySlice<UInt8>, separator: UInt8, _ body: (ArraySlice<UInt8>) -> Void) {
        var start = bytes.startIndex
        var depth = 0
        var quote: UInt8 = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == 34 || byte == 39 {
                quote = byte
            } else if byte == 40 {
                depth += 1
            } else if byte == 41 {
                depth = max(0, depth - 1)
            } else if byte == separator, depth == 0 {
                body(bytes[start..<index])
                start = index + 1
            }
            index += 1
        }
        body(bytes[start..<bytes.endIndex])
    }

    /// Each `property: value` declaration of a style attribute or rule body, both trimmed; the
    /// property is left as written (compare it with `equals` or a keyword set).
    static func forEachDeclaration(in bytes: ArraySlice<UInt8>, _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void) {
        forEachPart(of: bytes, separator: 59) { declaration in
            guard let colon = declaration.firstIndex(of: 58) else { return }
            body(trimmed(declaration[..<colon]), trimmed(declaration[(colon + 1)...]))
        }
    }

    /// `fixed !important` → `fixed` (as lowercase bytes compare: the caller lowercases).
    static func withoutImportant(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let range = firstRange(of: "!important", in: bytes) else { return bytes }
        return trimmed(bytes[..<range.lowerBound])
    }
}
