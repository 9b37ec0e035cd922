import Assist
import Foundation
import TernCore

/// `tern-bench assist`: issue 19's speed goal, the built-in provider's summary and smart replies
/// for a 20-message thread (p99 under 20 ms). The threads are written here: each message answers
/// the previous one and quotes the whole history below it, as mail programs do, so the last of the
/// 20 carries about 20 KB of quotes; English, German, French and Spanish in turn, the wording
/// varied per thread so no two are alike.
public enum AssistBenchmark {
    public struct Report: Sendable, Encodable {
        public var threads: Int
        public var messagesPerThread: Int
        public var averageThreadBytes: Int
        public var summaryP50Milliseconds: Double
        public var summaryP99Milliseconds: Double
        public var repliesP50Milliseconds: Double
        public var repliesP99Milliseconds: Double
        public var bothP50Milliseconds: Double
        public var bothP99Milliseconds: Double
        public var maxMilliseconds: Double
    }

    public static func run(threads: Int, messagesPerThread: Int = 20) async throws -> Report {
        try await run((0..<threads).map { makeThread($0, messages: messagesPerThread) }, messagesPerThread: messagesPerThread)
    }

    /// The threads of the labelled evaluation set (`SystemTests/assist-eval/threads`), each timed `rounds` times.
    public static func run(evaluationSet directory: URL, rounds: Int = 20) async throws -> Report {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
        let threads = try files.map { try AssistEvaluationSet.thread(from: Data(contentsOf: $0)) }
        let repeated = (0..<rounds).flatMap { _ in threads }
        return try await run(repeated, messagesPerThread: threads.map(\.messages.count).max() ?? 0)
    }

    static func run(_ all: [AssistThread], messagesPerThread: Int) async throws -> Report {
        let provider = BuiltInAssistProvider()
        let clock = ContinuousClock()
        var summaries: [Double] = []
        var replies: [Double] = []
        var both: [Double] = []
        var bytes = 0
        for thread in all {
            bytes += thread.messages.reduce(0) { $0 + $1.text.utf8.count }
            let start = clock.now
            _ = try await provider.summarize(thread)
            let middle = clock.now
            _ = try await provider.suggestReplies(thread)
            let end = clock.now
            summaries.append((middle - start).inSeconds * 1000)
            replies.append((end - middle).inSeconds * 1000)
            both.append((end - start).inSeconds * 1000)
        }
        return Report(
            threads: all.count, messagesPerThread: messagesPerThread, averageThreadBytes: bytes / max(1, all.count),
            summaryP50Milliseconds: ReadingBenchmark.percentile(summaries, 0.5),
            summaryP99Milliseconds: ReadingBenchmark.percentile(summaries, 0.99),
            repliesP50Milliseconds: ReadingBenchmark.percentile(replies, 0.5),
            repliesP99Milliseconds: ReadingBenchmark.percentile(replies, 0.99),
            bothP50Milliseconds: ReadingBenchmark.percentile(both, 0.5), bothP99Milliseconds: ReadingBenchmark.percentile(both, 0.99),
            maxMilliseconds: both.max() ?? 0)
    }

    static let lines: [[String]] = [
        [
            "Hi %@,", "The release of version %d moves to Friday %d November at 14:00.", "The budget stays at %d EUR, approved by finance.",
            "Could you confirm that the staging slot still works for your team?", "Thanks for the quick review of the migration notes.", "Best,"
        ],
        [
            "Hallo %@,", "das Release %d verschiebt sich auf Freitag, den %d. November um 14:00 Uhr.",
            "Das Budget bleibt bei %d EUR, die Freigabe liegt vor.",
            "Kannst du bitte bestätigen, dass der Termin für dein Team passt?", "Danke für die schnelle Durchsicht der Notizen.", "Viele Grüße"
        ],
        [
            "Bonjour %@,", "La version %d est reportée au vendredi %d novembre à 14 h.", "Le budget reste à %d EUR, validé par la compta.",
            "Peux-tu confirmer que le créneau convient à ton équipe ?", "Merci pour la relecture rapide des notes.", "Bien à toi,"
        ],
        [
            "Hola %@:", "La versión %d se mueve al viernes %d de noviembre a las 14:00.", "El presupuesto sigue en %d EUR, aprobado por finanzas.",
            "¿Puedes confirmar que el hueco le viene bien a tu equipo?", "Gracias por revisar tan rápido las notas.", "Un saludo,"
        ]
    ]

    static let people = ["Ana", "Tom", "Lena", "Raj", "Claire", "Javier"]

    static func makeThread(_ index: Int, messages count: Int) -> AssistThread {
        let language = lines[index % lines.count]
        var random = SplitMix(seed: UInt64(index) &+ 1)
        var messages: [AssistMessage] = []
        var history = ""
        for position in 0..<count {
            let author = people[(index + position) % people.count]
            let reader = people[(index + position + 1) % people.count]
            let paragraphs = [
                String(format: language[0], reader),
                String(format: language[1], Int(random.next() % 90) + 10, Int(random.next() % 28) + 1),
                String(format: language[2], Int(random.next() % 9_000) + 1_000) + " " + language[4],
                language[3],
                language[5] + "\n" + author
            ]
            var text = paragraphs.joined(separator: "\n\n")
            if !history.isEmpty {
                text +=
                    "\n\nOn Monday \(reader) wrote:\n"
                    + history.split(separator: "\n", omittingEmptySubsequences: false).map { "> \($0)" }.joined(separator: "\n")
            }
            history = text
            let fromUser = position % 2 == 1
            messages.append(
                AssistMessage(
                    from: EmailAddress(name: author, address: fromUser ? "user@example.org" : "\(author.lowercased())@example.org"),
                    to: [EmailAddress(name: nil, address: fromUser ? "\(reader.lowercased())@example.org" : "user@example.org")], cc: [],
                    date: Date(timeIntervalSince1970: 1_800_000_000 + Double(position) * 3_600), subject: "Release \(index)", text: text))
        }
        return AssistThread(subject: "Release \(index)", messages: messages, userAddresses: ["user@example.org"])
    }
}
