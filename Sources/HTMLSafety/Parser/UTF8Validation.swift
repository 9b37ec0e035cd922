/// Whether bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
/// U+10FFFF), the same answer as `String(validating:as:)` without building the string: the
/// tokenizer asks it of every document, and most mail is ASCII eight bytes at a time.
enum UTF8Validation {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return true }
            let count = buffer.count
            @inline(__always) func continuation(_ index: Int) -> Bool { index < count && base[index] & 0xC0 == 0x80 }
            @inline(__always) func second(_ index: Int, in range: ClosedRange<UInt8>) -> Bool { index < count && range.contains(base[index]) }
            var index = 0
            while index < count {
                // Thirty-two bytes at a time while they are ASCII (one test for four words), then eight.
                if index + 32 <= count {
                    let words = UnsafeRawPointer(base + index)
                    let any =
                        words.loadUnaligned(as: UInt64.self) | words.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        | words.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | words.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                    if any & 0x8080_8080_8080_8080 == 0 {
                        index += 32
                        continue
                    }
                }
                if index + 8 <= count, UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
                let lead = base[index]
                switch lead {
                case 0..<0x80:
                    index += 1
                case 0xC2...0xDF:
                    guard continuation(index + 1) else { return false }
                    index += 2
                case 0xE0:
                    guard second(index + 1, in: 0xA0...0xBF), continuation(index + 2) else { return false }
                    index += 3
                case 0xE1...0xEC, 0xEE...0xEF:
                    guard continuation(index + 1), continuation(index + 2) else { return false }
                    index += 3
                case 0xED:
                    guard second(index + 1, in: 0x80...0x9F), continuation(index + 2) else { return false }
                    index += 3
                case 0xF0:
                    guard second(index + 1, in: 0x90...0xBF), continuation(index + 2), continuation(index + 3) else { return false }
                    index += 4
                case 0xF1...0xF3:
                    guard continuation(index + 1), continuation(index + 2), continuation(index + 3) else { return false }
                    index += 4
                case 0xF4:
                    guard second(index + 1, in: 0x80...0x8F), continuation(index + 2), continuation(index + 3) else { return false }
                    index += 4
                default:
                    return false
                }
            }
            return true
        }
    }
}
