import ArgumentParser
import Foundation
import TernCore
import TernRuntime

/// `tern identity` (issue 35): the addresses an account sends from, each with a display name and a
/// signature. The account's own address is its default identity; aliases are added here.
struct IdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity", abstract: "Add, change, list and remove the addresses (identities) an account sends from.",
        discussion: """
            A reply is sent from the identity the original was addressed to (To, Cc, then Delivered-To or \
            X-Original-To), and Reply All leaves out every identity. A signature goes below your text and \
            above the quote, after a '-- ' line.
            Example: tern identity add work --email sales@example.org --name 'Ana (Sales)' --signature 'Ana, Sales'
            """,
        subcommands: [Add.self, List.self, Edit.self, Remove.self])

    /// `--signature TEXT` or `--signature-file FILE` ('-' for standard input).
    struct SignatureOptions: ParsableArguments {
        @Option(help: "The signature (placed after a '-- ' line; an empty text removes it).")
        var signature: String?
        @Option(help: "Read the signature from this file ('-' for standard input).")
        var signatureFile: String?

        func validate() throws {
            if signature != nil && signatureFile != nil { throw ValidationError("give the signature with one of --signature or --signature-file") }
        }

        func text() throws -> String? {
            if let signature { return signature }
            guard let signatureFile else { return nil }
            if signatureFile == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
            guard let data = FileManager.default.contents(atPath: signatureFile) else { throw TernError.notFound("file '\(signatureFile)'") }
            return String(decoding: data, as: UTF8.self)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add an address (an alias that delivers to the account) to send from.")
        @Argument(help: "The account's name.")
        var account: AccountName
        @Option(help: "The address.")
        var email: String
        @Option(help: "The name shown on mail sent from it (default: the account's).")
        var name: String?
        @OptionGroup var signature: SignatureOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let identity = try await services().identities.add(
                account: account, emailAddress: email, displayName: name, signature: try signature.text())
            if output.json { return try printJSON(IdentityForm(identity, accountName: account)) }
            print("Added \(TerminalText.line(identity.emailAddress)) to account '\(account)'.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the identities of every account, or of one.")
        @Argument(help: "Only this account.")
        var account: AccountName?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let accounts = try await services().identities.list(account: account)
            if output.json {
                return try printJSON(accounts.flatMap { entry in entry.identities.map { IdentityForm($0, accountName: entry.account.name) } })
            }
            for entry in accounts {
                print("\(TerminalText.line(entry.account.name.rawValue)):")
                for identity in entry.identities {
                    let name = identity.displayName.map { "\($0) " } ?? ""
                    let marks = (identity.isDefault ? " (default)" : "") + (identity.signature == nil ? "" : " [signature]")
                    print("  " + TerminalText.line("\(name)<\(identity.emailAddress)>\(marks)"))
                }
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change an identity's display name or signature.")
        @Argument(help: "The account's name.")
        var account: AccountName
        @Option(help: "The identity's address.")
        var email: String
        @Option(help: "The name shown on mail sent from it (an empty text removes it).")
        var name: String?
        @OptionGroup var signature: SignatureOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if name == nil && signature.signature == nil && signature.signatureFile == nil {
                throw ValidationError("give what changes: --name, --signature or --signature-file")
            }
        }

        func run() async throws {
            let identity = try await services().identities.edit(
                account: account, emailAddress: email, IdentityEdit(displayName: name, signature: try signature.text()))
            if output.json { return try printJSON(IdentityForm(identity, accountName: account)) }
            print("Changed \(TerminalText.line(identity.emailAddress)) of account '\(account)'.")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove an alias identity (the account's own address stays).")
        @Argument(help: "The account's name.")
        var account: AccountName
        @Option(help: "The identity's address.")
        var email: String

        func run() async throws {
            try await services().identities.remove(account: account, emailAddress: email)
            print("Removed \(TerminalText.line(email)) from account '\(account)'.")
        }
    }
}

/// One identity as `--json` prints it.
struct IdentityForm: Encodable {
    var account: AccountName
    var email: String
    var name: String?
    var signature: String?
    var isDefault: Bool

    init(_ identity: Identity, accountName: AccountName) {
        account = accountName
        email = identity.emailAddress
        name = identity.displayName
        signature = identity.signature
        isDefault = identity.isDefault
    }

    enum CodingKeys: String, CodingKey { case account, email, name, signature, isDefault }

    /// Every key always present (`name` and `signature` as null).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(account, forKey: .account)
        try container.encode(email, forKey: .email)
        try container.encode(name, forKey: .name)
        try container.encode(signature, forKey: .signature)
        try container.encode(isDefault, forKey: .isDefault)
    }
}
