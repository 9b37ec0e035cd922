/// A fixed set of ASCII words, looked up by UTF-8 bytes without building a `String`, lowercasing
/// as it hashes: the sanitizer asks it for every attribute and CSS property of a message.
/// Open addressing; the table is half full at most.
///
/// A word's first eight bytes, lowercased, are read as one 64-bit number (`packedPrefix`): the
/// hash is one multiplication of it, and a word of eight bytes or fewer (nearly every tag,
/// attribute and CSS property name) is compared as that number and its length. The byte-wise
/// hash and compare before were 4.6% of sanitizing (issue 38's profile).
struct ASCIIKeywordSet: Sendable {
    private let words: [[UInt8]]
    /// The words end to end, and where each starts (`starts[position + 1]`: where it ends): the
    /// bytes past the first eight of a longer word are compared against this one buffer.
    private let bytes: [UInt8]
    private let starts: [Int32]
    /// Each slot holds what a lookup compares (prefix and length) beside the position: one load
    /// per probe. Asked for every tag and attribute, the table is often out of the nearest cache
    /// (the document's bytes passed through it since): two tables made two misses.
    private let slots: [Slot]
    private let shift: UInt64

    private struct Slot: Sendable {
        var prefix: UInt64 = 0
        var length: Int32 = 0
        var position: Int32 = -1
    }

    init(_ list: [String]) {
        words = list.map { Array($0.lowercased().utf8) }
        bytes = words.flatMap { $0 }
        starts = words.reduce(into: [0]) { starts, word in starts.append(starts.last! + Int32(word.count)) }
        var size = 16
        var bits: UInt64 = 4
        while size < list.count * 2 {
            size *= 2
            bits += 1
        }
        shift = 64 - bits
        var slots = [Slot](repeating: Slot(), count: size)
        for (position, word) in words.enumerated() {
            let prefix = word.withUnsafeBufferPointer { Self.packedPrefix($0) }
            var slot = Self.slot(prefix: prefix, length: word.count, shift: shift)
            while slots[slot].position >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Slot(prefix: prefix, length: Int32(word.count), position: Int32(position))
        }
        self.slots = slots
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
        let count = candidate.count
        let prefix = Self.packedPrefix(candidate)
        var slot = Self.slot(prefix: prefix, length: count, shift: shift)
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            while true {
                let entry = slots[slot]
                if entry.position < 0 { return nil }
                if entry.prefix == prefix, Int(entry.length) == count, count <= 8 || restMatches(candidate, Int(entry.position)) {
                    return Int(entry.position)
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Whether the candidate's bytes past the eighth are those of the word at `position` (lowercased).
    private func restMatches(_ candidate: UnsafeBufferPointer<UInt8>, _ position: Int) -> Bool {
        starts.withUnsafeBufferPointer { starts in
            bytes.withUnsafeBufferPointer { bytes in
                let start = Int(starts[position])
                var offset = 8
                while offset < candidate.count, bytes[start + offset] == URLPolicy.lowercased(candidate[offset]) { offset += 1 }
                return offset == candidate.count
            }
        }
    }

    @inline(__always) private static func slot(prefix: UInt64, length: Int, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((prefix ^ UInt64(truncatingIfNeeded: length)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The first eight bytes (fewer: zero bytes after them), ASCII-lowercased, as one number.
    @inline(__always) private static func packedPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let base = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        // Shorter words from two overlapping loads (the bytes they share are the same), not from a
        // copy into a zeroed word: a load of bytes stored one by one just before waits for them.
        let word: UInt64
        if count >= 8 {
            word = raw.loadUnaligned(as: UInt64.self)
        } else if count >= 4 {
            let high = UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << UInt64(8 * (count - 4))
            word = UInt64(raw.loadUnaligned(as: UInt32.self)) | high
        } else if count >= 2 {
            let high = UInt64(raw.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)) << UInt64(8 * (count - 2))
            word = UInt64(raw.loadUnaligned(as: UInt16.self)) | high
        } else {
            word = count == 1 ? UInt64(base[0]) : 0
        }
        // SWAR lowercasing: a lane gets 0x20 where its byte is `A` to `Z` (seven-bit sums never
        // carry into the next lane).
        let lanes: UInt64 = 0x0101_0101_0101_0101
        let low = word & (0x7F &* lanes)
        let upper = (low &+ (0x3F &* lanes)) & ~(low &+ (0x25 &* lanes)) & ~word & (0x80 &* lanes)
        return word | upper >> 2
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
