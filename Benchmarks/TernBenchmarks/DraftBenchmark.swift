import Foundation
import MailStore
import TernCore
@_spi(Tooling) import TernRuntime

/// `tern-bench drafts`: NFR-COMP-01, the time from an autosave to the draft being in the store, through
/// the use case the front ends call (`DraftsUseCase.save`), in a scratch store on disk. Each sample
/// is an edit: the body grows by a sentence (a reply being written) until it is about 20 KB with its
/// quote, then a sentence is rewritten (the size stays); an unchanged save (the 30-second timer with
/// nothing new) is timed apart.
public enum DraftBenchmark {
    public struct Report: Sendable, Encodable {
        public var saves: Int
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double
        public var maxMilliseconds: Double
        public var unchangedP50Milliseconds: Double
        public var unchangedP99Milliseconds: Double
        public var finalBodyBytes: Int
    }

    public static func run(saves: Int) async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-drafts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let home = TernHome(url: directory)
        let services = try TernServices(home: home, database: TernDatabase(home: home), environment: [:])
        let account = Account(
            id: .make(), name: "bench", emailAddress: "bench@example.org", provider: .imap,
            imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.example.org", port: 465, security: .implicitTLS), username: "bench",
            credential: .passwordEnvironment("UNUSED"))
        try await SQLiteAccountRepository(database: services.database).insert(account)
        let quote = (1...120).map { "> Line \($0) of the message being answered, quoted as a reply quotes it." }.joined(separator: "\n")
        var draft = ComposeDraft(
            mode: .reply, accountId: account.id, from: EmailAddress(name: "Bench", address: account.emailAddress),
            to: [EmailAddress(name: "Ana Silva", address: "ana@example.org")], subject: "Re: The plan",
            body: "\n\nOn Monday, Ana Silva wrote:\n" + quote, inReplyTo: "<plan@example.org>", references: ["<plan@example.org>"])
        guard let first = try await services.drafts.save(draft) else { throw TernError.invalidInput("nothing saved") }
        let clock = ContinuousClock()
        var changed: [Double] = []
        var unchanged: [Double] = []
        for index in 0..<saves {
            let sentence = "Sentence \(index) of the answer, typed since the last save. "
            if draft.body.utf8.count < 20_000 {
                draft.body = sentence + draft.body
            } else {
                draft.body = sentence + draft.body.drop { $0 != "." }.dropFirst().drop { $0 == " " }
            }
            var start = clock.now
            _ = try await services.drafts.save(draft, id: first.draftId)
            changed.append((clock.now - start).inSeconds * 1000)
            if index % 4 == 0 {
                start = clock.now
                _ = try await services.drafts.save(draft, id: first.draftId)
                unchanged.append((clock.now - start).inSeconds * 1000)
            }
        }
        return Report(
            saves: saves, p50Milliseconds: ReadingBenchmark.percentile(changed, 0.5), p99Milliseconds: ReadingBenchmark.percentile(changed, 0.99),
            maxMilliseconds: changed.max() ?? 0, unchangedP50Milliseconds: ReadingBenchmark.percentile(unchanged, 0.5),
            unchangedP99Milliseconds: ReadingBenchmark.percentile(unchanged, 0.99), finalBodyBytes: draft.body.utf8.count)
    }
}
