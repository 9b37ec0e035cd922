/// RFC 3492 Punycode: how IDNA writes a non-ASCII domain label in ASCII (`bücher` → `bcher-kva`,
/// the label `xn--bcher-kva`). Encoding only; the parameters are those of section 5.
enum Punycode {
    static let base = 36
    static let tMin = 1
    static let tMax = 26
    static let skew = 38
    static let damp = 700
    static let initialBias = 72
    static let initialN = 128

    /// nil only on arithmetic overflow (section 6.4), which needs a label far longer than DNS allows.
    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = String(String.UnicodeScalarView(label.unicodeScalars.filter(\.isASCII)))
        let basicCount = output.unicodeScalars.count
        if basicCount > 0 { output.append("-") }
        var handled = basicCount
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < input.count {
            let next = input.filter { $0 >= n }.min()!
            let (step, overflowed) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflowed, delta <= Int.max - step else { return nil }
            delta += step
            n = next
            for scalar in input {
                if scalar < n {
                    guard delta < Int.max else { return nil }
                    delta += 1
                }
                guard scalar == n else { continue }
                // delta as a variable-length integer of base-36 digits with thresholds (section 6.3).
                var remaining = delta
                var k = base
                while true {
                    let threshold = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
                    if remaining < threshold { break }
                    output.unicodeScalars.append(digit(threshold + (remaining - threshold) % (base - threshold)))
                    remaining = (remaining - threshold) / (base - threshold)
                    k += base
                }
                output.unicodeScalars.append(digit(remaining))
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
    static func digit(_ value: Int) -> Unicode.Scalar {
        Unicode.Scalar(UInt8(value < 26 ? 97 + value : 22 + value))
    }
}
