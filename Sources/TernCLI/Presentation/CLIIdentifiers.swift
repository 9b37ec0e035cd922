import ArgumentParser
import TernCore

/// Issue 33: an id reads the same in every command, its kind written before the number (`t12` a
/// thread, `m34` a message, `d5` a local draft, `a7` an attachment, `c3` a pending change), as every
/// listing prints it. A bare number is refused with the forms named, never guessed: `archive 12`
/// once meant a thread while `reply 12` meant a message, and a wrong guess acts on the wrong mail.
protocol CLIIdentifier: RecordID {
    static var cliPrefix: String { get }
    /// What the kind is called in messages ("thread").
    static var cliNoun: String { get }
}

extension ThreadID: CLIIdentifier {
    static let cliPrefix = "t"
    static let cliNoun = "thread"
}

extension EmailID: CLIIdentifier {
    static let cliPrefix = "m"
    static let cliNoun = "message"
}

extension DraftID: CLIIdentifier {
    static let cliPrefix = "d"
    static let cliNoun = "draft"
}

extension AttachmentID: CLIIdentifier {
    static let cliPrefix = "a"
    static let cliNoun = "attachment"
}

extension PendingChangeID: CLIIdentifier {
    static let cliPrefix = "c"
    static let cliNoun = "change"
}

extension CLIIdentifier {
    /// `t12`: how listings print the id and commands read it.
    var cli: String { Self.cliPrefix + String(rawValue) }

    /// The id in `text` when it is written as this kind (`t12`, any case); nil otherwise.
    static func read(_ text: String) -> Self? {
        let lower = text.lowercased()
        guard lower.hasPrefix(cliPrefix), let value = Int64(lower.dropFirst(cliPrefix.count)), value > 0 else { return nil }
        return Self(rawValue: value)
    }

    /// An `@Argument(transform:)` for one kind.
    static func argument(_ text: String) throws -> Self {
        guard let id = read(text) else { throw CLIIdentifierSyntax(text: text, expected: [(cliPrefix, cliNoun)]) }
        return id
    }
}

/// Why an argument is not an id of the kinds a command takes; the message names the forms.
struct CLIIdentifierSyntax: Error, CustomStringConvertible {
    var text: String
    var expected: [(prefix: String, noun: String)]

    var description: String {
        let forms = expected.map { "\($0.prefix)12 for \($0.noun) 12" }.joined(separator: " or ")
        if Int64(text) != nil {
            return "a bare number is not an id here: write its kind first, \(forms) (as `tern threads`, `tern thread` and `tern drafts` print them)"
        }
        return "expected \(forms)"
    }
}

/// A thread as `tern threads` prints it (`t12`), or a message as `tern thread` prints it (`m34`).
enum MailTargetArgument {
    static func argument(_ text: String) throws -> MailTarget {
        if let thread = ThreadID.read(text) { return .thread(thread) }
        if let message = EmailID.read(text) { return .message(message) }
        throw CLIIdentifierSyntax(text: text, expected: [(ThreadID.cliPrefix, ThreadID.cliNoun), (EmailID.cliPrefix, EmailID.cliNoun)])
    }
}

/// `--account work`, `tern sync work`: the name as typed (issue 33).
extension AccountName: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
