import Assist
import Foundation
import TernCore

/// The labelled evaluation set's thread format (`SystemTests/assist-eval/README.md`) read as an
/// `AssistThread`, for `tern-bench assist-eval-one` and `tern-bench assist --set`. The headers given are the
/// last message's.
public enum AssistEvaluationSet {
    struct Person: Decodable {
        var name: String?
        var address: String
    }

    struct Message: Decodable {
        var from: Person
        var to: [Person]
        var cc: [Person]?
        var date: String
        var subject: String
        var body: String
    }

    struct Thread: Decodable {
        var messages: [Message]
        var headers: [String: String]?
        var user: String
    }

    public static func thread(from data: Data) throws -> AssistThread {
        let input: Thread
        do {
            input = try JSONDecoder().decode(Thread.self, from: data)
        } catch {
            throw TernError.invalidInput("not an evaluation-set thread: \(error)")
        }
        let dates = ISO8601DateFormatter()
        let headers = Dictionary((input.headers ?? [:]).map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let messages = input.messages.enumerated().map { index, message in
            AssistMessage(
                from: EmailAddress(name: message.from.name, address: message.from.address),
                to: message.to.map { EmailAddress(name: $0.name, address: $0.address) },
                cc: (message.cc ?? []).map { EmailAddress(name: $0.name, address: $0.address) },
                date: dates.date(from: message.date) ?? Date(timeIntervalSince1970: 0), subject: message.subject, text: message.body,
                bulkMarkers: index == input.messages.count - 1 ? BulkMailMarkers.from { headers[$0.lowercased()] } : [])
        }
        return AssistThread(subject: input.messages.first?.subject ?? "", messages: messages, userAddresses: [input.user])
    }
}
