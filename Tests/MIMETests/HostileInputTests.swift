import Foundation
import Testing
import TernCore
@testable import MIME

/// Issue 21: what a hostile message costs to read. Each input here took seconds (quadratic work)
/// or unbounded memory before. Where time is measured, the bound is several times what the work
/// needs in a debug build and well below what it took before.
@Suite(.serialized) struct EncodedWordCostTests {
    /// The best of three runs: the machine is shared, and a slow run says nothing about the code.
    static func milliseconds(_ work: () -> Void) -> Double {
        (0..<3).map { _ in
            let elapsed = ContinuousClock().measure(work)
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }.min()!
    }

    /// Starts of encoded words that never end: every one used to search the rest of the header for `?=`.
    @Test(arguments: ["=?a?q?x", "=?a?b?x", "=?utf-8?q?x y", "=?utf-8?b?YWJj"])
    func unterminatedWordsDecodeInLinearTime(unit: String) {
        let header = Array(String(repeating: unit, count: 150_000).utf8)
        var decoded = ""
        let elapsed = Self.milliseconds { decoded = EncodedWordDecoder.decode(bytes: header) }
        #expect(elapsed < 100, "\(elapsed) ms")
        #expect(decoded.utf8.count == header.count)
    }

    /// With a `?=` at the very end every start is a candidate word; the searches for its end stay
    /// linear: twice the header, twice the bytes scanned (each start scanned the rest before).
    @Test(arguments: ["=?a?q?x", "=?a?b?x ", "=?utf-8?q?x y", "=?a?b?x?", "=?" + String(repeating: "c", count: 40) + "?q?x y"])
    func wordStartsBeforeOneTerminatorAreSearchedInLinearTime(unit: String) {
        func scanned(_ count: Int) -> Int {
            let header = Array((String(repeating: unit, count: count) + "?=").utf8)
            var problems: [String] = []
            var scannedBytes = 0
            let decoded = header.withUnsafeBufferPointer { EncodedWordDecoder.decode($0, problems: &problems, scannedBytes: &scannedBytes) }
            #expect(!decoded.isEmpty)
            return scannedBytes
        }
        let small = scanned(20_000)
        let large = scanned(40_000)
        #expect(Double(large) <= 2.1 * Double(small), "\(small) → \(large)")
        #expect(large <= 4 * 40_000 * unit.utf8.count, "\(large)")
    }

    @Test func manyWordsAreSearchedOnce() {
        let header = Array(String(repeating: "=?utf-8?q?caf=C3=A9?= ", count: 50_000).utf8)
        var problems: [String] = []
        var scannedBytes = 0
        let decoded = header.withUnsafeBufferPointer { EncodedWordDecoder.decode($0, problems: &problems, scannedBytes: &scannedBytes) }
        #expect(decoded == String(repeating: "café", count: 50_000) + " ")
        #expect(scannedBytes <= 2 * header.count, "\(scannedBytes)")
    }

    /// Longer than RFC 2047's 75 bytes, as some mailers write them: still decoded.
    @Test func overlongWordStillDecodes() {
        let text = String(repeating: "a", count: 300)
        let encoded = "=?utf-8?b?" + Data(text.utf8).base64EncodedString() + "?="
        #expect(EncodedWordDecoder.decode(encoded) == text)
        #expect(EncodedWordDecoder.decode("=?utf-8?q?" + text + "?= tail") == text + " tail")
    }

    /// Spaces inside Q text (broken encoders) are read only near the start of a word, as before.
    @Test func spacesInQTextKeepTheirLimit() {
        #expect(EncodedWordDecoder.decode("=?utf-8?q?a b?=") == "a b")
        let far = "=?utf-8?q?" + String(repeating: "a", count: 250) + " b?="
        #expect(EncodedWordDecoder.decode(far) == far)
        #expect(EncodedWordDecoder.decode("=?utf-8?b?YQ== YQ==?=") == "=?utf-8?b?YQ== YQ==?=")
    }
}
