import Foundation
import TernCore

/// Issue 35: a password typed into the web app's "Add account", kept as PLATFORM.md keeps OAuth
/// tokens (the Secret Service when a desktop session offers one, else a 0600 file in the 0700
/// `$TERN_HOME/secrets/`), and read back by a password command, the credential `tern account add
/// --password-command` stores: the account's record holds no secret, and the one path that reads
/// passwords (`ShellSecretResolver`) reads this one too.
struct KeptPasswords: AccountPasswordKeeper {
    let home: TernHome
    let secretService: Bool

    init(home: TernHome, environment: [String: String]) {
        self.home = home
        let choice = environment["TERN_TOKEN_STORE"] ?? "auto"
        secretService = choice == "secret-service" || (choice == "auto" && SecretServiceTokenStore.isAvailable(environment: environment))
    }

    func keep(_ password: String, for accountID: Account.ID) async throws -> CredentialSource {
        // A password command's first line is the password.
        guard !password.contains(where: \.isNewline) else { throw TernError.invalidInput("the password has a line break") }
        if secretService {
            try SecretTool.run(Self.attributes(accountID, store: true), input: Data(password.utf8))
            return .passwordCommand((["secret-tool", "lookup"] + Self.attributes(accountID, store: false)).joined(separator: " "))
        }
        let file = home.passwordFileURL(for: accountID)
        try OwnerOnlyFiles.directory(home.url)
        try OwnerOnlyFiles.directory(home.secretsURL)
        unlink(file.path)
        try OwnerOnlyFiles.create(file, bytes: Array((password + "\n").utf8))
        return .passwordCommand("cat -- \(Self.shellQuoted(file.path))")
    }

    func forget(for accountID: Account.ID) async {
        if secretService { _ = try? SecretTool.run(["clear"] + Self.attributes(accountID, store: false), input: nil) }
        unlink(home.passwordFileURL(for: accountID).path)
    }

    /// `store --label … service tern account ID kind password`, or the attributes alone for `lookup`.
    static func attributes(_ accountID: Account.ID, store: Bool) -> [String] {
        let attributes = ["service", "tern", "account", accountID.rawValue, "kind", "password"]
        return store ? ["store", "--label", "Tern password"] + attributes : attributes
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

/// The freedesktop Secret Service's command line client.
enum SecretTool {
    @discardableResult
    static func run(_ arguments: [String], input: Data?) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = arguments
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardInput = stdin
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TernError.secretUnavailable("secret-tool exited with \(process.terminationStatus)") }
        return data
    }
}
