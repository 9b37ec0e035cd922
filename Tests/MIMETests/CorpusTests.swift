import Foundation
import Testing
@testable import MIME

/// The corpus written by scripts/make_mime_corpus.py: 30 real-world shapes, each pristine and
/// broken nine ways, with the results a correct parser must give.
struct CorpusExpectation: Decodable, Sendable {
    var from: String?
    var subject: String?
    var date: Double?
    var messageId: String?
    var plainContains: String?
    var htmlContains: String?
    var hasPlain: Bool
    var hasHTML: Bool
    var attachments: [String]
    var problemKinds: [String]
    var noProblems: Bool
}

enum Corpus {
    static let directory: URL = Bundle.module.resourceURL!.appendingPathComponent("Corpus")

    static let expectations: [String: CorpusExpectation] = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("expected.json"))
        return try! JSONDecoder().decode([String: CorpusExpectation].self, from: data)
    }()

    static var names: [String] { expectations.keys.sorted() }
}

@Suite struct CorpusTests {
    @Test func corpusHasAtLeast300Messages() {
        #expect(Corpus.names.count >= 300)
    }

    @Test(arguments: Corpus.names)
    func parsesAsExpected(name: String) throws {
        let expected = try #require(Corpus.expectations[name])
        let bytes = try [UInt8](Data(contentsOf: Corpus.directory.appendingPathComponent(name)))
        let message = MessageParser().parse(bytes)
        #expect(message.from.first?.address == expected.from)
        #expect(message.subject == expected.subject)
        #expect(message.date.map(\.timeIntervalSince1970) == expected.date)
        #expect(message.messageId == expected.messageId)
        #expect((message.bodyPlain != nil) == expected.hasPlain, "plain body presence")
        #expect((message.bodyHTML != nil) == expected.hasHTML, "HTML body presence")
        if let phrase = expected.plainContains { #expect(message.bodyPlain?.contains(phrase) == true, "plain: \(message.bodyPlain ?? "nil")") }
        if let phrase = expected.htmlContains { #expect(message.bodyHTML?.contains(phrase) == true, "html: \(message.bodyHTML ?? "nil")") }
        #expect(message.attachments.map(\.filename).sorted() == expected.attachments)
        let kinds = Set(message.problems.map(\.kind.rawValue))
        for kind in expected.problemKinds { #expect(kinds.contains(kind), "expected a \(kind) problem; got \(message.problems)") }
        if expected.noProblems { #expect(message.problems.isEmpty, "\(message.problems)") }
        // Every attachment's content is reachable.
        for attachment in message.attachments { #expect(message.content(ofPart: attachment.partId) != nil) }
    }

    /// Malformed input never crashes: every prefix cut of every corpus message still parses.
    @Test func truncatedMessagesNeverCrash() throws {
        for name in Corpus.names.prefix(60) {
            let bytes = try [UInt8](Data(contentsOf: Corpus.directory.appendingPathComponent(name)))
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 25)) {
                let message = MessageParser().parse(Array(bytes[..<cut]))
                _ = message.attachments.map { message.content(ofPart: $0.partId) }
            }
        }
    }
}
