import Testing

@testable import HTMLSafety

/// `UTF8Validation` must answer exactly as the standard library's decoder does: the tokenizer
/// replaces ill-formed input with U+FFFD only when it says so.
struct UTF8ValidationTests {
    @Test func edgeCasesOfTheEncoding() {
        let cases: [[UInt8]] = [
            [], Array("plain ascii, longer than eight bytes".utf8), Array("caf\u{E9} \u{1F600} \u{FFFF}".utf8),
            [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80],
            [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xC2],
            [0xE1, 0x80], Array("12345678".utf8) + [0xC3, 0xA9] + Array("12345678".utf8), Array("1234567".utf8) + [0xE2, 0x82, 0xAC]
        ]
        for bytes in cases {
            #expect(UTF8Validation.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }

    @Test func randomBytesAgreeWithTheStandardLibrary() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xA0, 0x9F, 0x8F, 0x90]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator) ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            #expect(UTF8Validation.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}
