/// Content-Transfer-Encoding (RFC 2045 section 6): base64 and quoted-printable, decoded the way
/// tolerant readers do, because senders get both wrong.
public enum TransferDecoding {
    private static let base64Table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        // URL-safe alphabet, seen from some generators.
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Skips anything outside the alphabet (line breaks, junk), stops at padding, and keeps the
    /// bytes of a final partial group (missing padding).
    public static func decodeBase64<Bytes: Collection>(_ input: Bytes) -> (bytes: [UInt8], hadJunk: Bool)
    where Bytes.Element == UInt8 {
        if let result = input.withContiguousStorageIfAvailable({ decodeBase64(buffer: $0) }) { return result }
        return Array(input).withUnsafeBufferPointer { decodeBase64(buffer: $0) }
    }

    static func decodeBase64(buffer input: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], hadJunk: Bool) {
        var hadJunk = false
        let bytes = [UInt8](unsafeUninitializedCapacity: input.count * 3 / 4 + 3) { output, initialized in
            var count = 0
            var accumulator: UInt32 = 0
            var bits = 0
            var sawPadding = false
            base64Table.withUnsafeBufferPointer { table in
                for byte in input {
                    let value = table[Int(byte)]
                    if value == 0xFF {
                        if byte == ASCII.equals {
                            sawPadding = true
                            continue
                        }
                        if !ASCII.isWhitespace(byte) { hadJunk = true }
                        continue
                    }
                    if sawPadding {
                        // Data after padding: concatenated base64 blobs. Keep decoding from a clean state.
                        hadJunk = true
                        sawPadding = false
                        accumulator = 0
                        bits = 0
                    }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        output[count] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                        count += 1
                    }
                }
            }
            initialized = count
        }
        return (bytes, hadJunk)
    }

    /// Soft line breaks (`=` at end of line) join lines; `=XX` is a byte; an `=` that starts no valid
    /// escape is kept as it is (RFC 2045 section 6.7 note 1).
    public static func decodeQuotedPrintable<Bytes: Collection>(_ input: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        if let result = input.withContiguousStorageIfAvailable({ decodeQuotedPrintable(buffer: $0) }) { return result }
        return Array(input).withUnsafeBufferPointer { decodeQuotedPrintable(buffer: $0) }
    }

    static func decodeQuotedPrintable(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: input.count) { output, initialized in
            var count = 0
            var index = 0
            let end = input.count
            while index < end {
                let byte = input[index]
                if byte != ASCII.equals {
                    output[count] = byte
                    count += 1
                    index += 1
                    continue
                }
                // Soft line break, allowing transport whitespace between `=` and the line end.
                var lookahead = index + 1
                while lookahead < end, input[lookahead] == ASCII.space || input[lookahead] == ASCII.tab { lookahead += 1 }
                if lookahead < end, input[lookahead] == ASCII.cr || input[lookahead] == ASCII.lf {
                    index = lookahead + (input[lookahead] == ASCII.cr && lookahead + 1 < end && input[lookahead + 1] == ASCII.lf ? 2 : 1)
                    continue
                }
                if lookahead == end {
                    index = end
                    continue
                }
                if index + 2 < end, let high = ASCII.hexValue(input[index + 1]), let low = ASCII.hexValue(input[index + 2]) {
                    output[count] = high << 4 | low
                    count += 1
                    index += 3
                    continue
                }
                output[count] = byte
                count += 1
                index += 1
            }
            initialized = count
        }
    }
}
