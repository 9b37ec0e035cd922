import Testing

@testable import HTMLSafety

/// `ASCIIKeywordSet` compares a word's first eight bytes as one number (issue 38): every length
/// around that boundary, any ASCII case, and near misses.
struct ASCIIKeywordSetTests {
    static let words = ["a", "br", "div", "font", "style", "strong", "caption", "colgroup", "blockquote", "http-equiv", "aria-describedby", "x-y"]

    @Test func everyWordIsFoundInAnyCase() {
        let set = ASCIIKeywordSet(Self.words)
        for (position, word) in Self.words.enumerated() {
            #expect(set.index(of: Array(word.utf8)) == position, "\(word)")
            #expect(set.index(of: Array(word.uppercased().utf8)) == position, "\(word)")
            #expect(set.index(of: Array(word.utf8)[...]) == position, "\(word)")
            #expect(set.index(of: word.utf8) == position, "\(word)")
            #expect(set.word(at: position) == Array(word.utf8))
        }
    }

    @Test func nearMissesAreNotFound() {
        let set = ASCIIKeywordSet(Self.words)
        for word in Self.words {
            let bytes = Array(word.utf8)
            #expect(set.index(of: bytes + [97]) == nil, "\(word)a")
            #expect(set.index(of: bytes.dropLast()) == nil, "\(word) shortened")
            #expect(set.index(of: bytes + [0]) == nil, "\(word) and a NUL")
            var changed = bytes
            changed[changed.count - 1] ^= 0x01
            #expect(set.index(of: changed) == nil, "\(word), last byte changed")
            // A byte past the ASCII range whose low seven bits are a capital letter is no letter.
            var high = bytes
            high[0] = high[0] & 0x5F | 0x80
            #expect(set.index(of: high) == nil, "\(word), first byte past ASCII")
        }
        #expect(set.index(of: [UInt8]()) == nil)
        // The bytes just outside `A`…`Z` are not lowercased: `@` `[` `\` are not `` ` `` `{` `|`.
        let punctuation = ASCIIKeywordSet(["`{|"])
        #expect(punctuation.index(of: Array("`{|".utf8)) == 0)
        #expect(punctuation.index(of: Array("@[\\".utf8)) == nil)
    }
}
