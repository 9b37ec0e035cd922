/// RFC 3492 Punycode: how IDNA writes a non-ASCII domain label in ASCII (`bücher` → `bcher-kva`,
/// the label `xn--bcher-kva`). Encoding only; the parameters are those of section 5. One encoder
/// for the two places that need it (issue 33): MIME's Message-ID domains and HTMLSafety's URL hosts.
public enum Punycode {
    static let base = 36
    static let tMin = 1
    static let tMax = 26
    static let skew = 38
    static let damp = 700
    static let initialBias = 72
    static let initialN = 128

    /// The ASCII form of a label (without `xn--`); nil only on arithmetic overflow (section 6.4),
    /// which needs a label far longer than DNS allows.
    public static func encode(_ label: String) -> String? {
        encode(label.unicodeScalars.map(\.value)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `encode` on a label's code points, giving ASCII bytes.
    public static func encode(_ codePoints: [UInt32]) -> [UInt8]? {
        let input = codePoints.map(Int.init)
        var output: [UInt8] = input.filter { $0 < 0x80 }.map { UInt8($0) }
        let basicCount = output.count
        if basicCount > 0 { output.append(UInt8(ascii: "-")) }
        var handled = basicCount
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < input.count {
            guard let next = input.filter({ $0 >= n }).min() else { return nil }
            let (step, overflowed) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflowed, delta <= Int.max - step else { return nil }
            delta += step
            n = next
            for codePoint in input {
                if codePoint < n {
                    guard delta < Int.max else { return nil }
                    delta += 1
                }
                guard codePoint == n else { continue }
                // delta as a variable-length integer of base-36 digits with thresholds (section 6.3).
                var remaining = delta
                var k = base
                while true {
                    let threshold = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
                    if remaining < threshold { break }
                    output.append(digit(threshold + (remaining - threshold) % (base - threshold)))
                    remaining = (remaining - threshold) / (base - threshold)
                    k += base
                }
                output.append(digit(remaining))
                bias = adapt(delta: delta, pointCount: handled + 1, isFirst: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return output
    }

    /// Section 6.1.
    static func adapt(delta: Int, pointCount: Int, isFirst: Bool) -> Int {
        var delta = isFirst ? delta / damp : delta / 2
        delta += delta / pointCount
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// 0-25 are a-z, 26-35 are 0-9.
    static func digit(_ value: Int) -> UInt8 {
        UInt8(value < 26 ? 97 + value : 22 + value)
    }
}
