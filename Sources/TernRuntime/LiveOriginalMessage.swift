import AsyncHTTPClient
import Foundation
import MIME
import MailTransport
import NIOCore
import NIOHTTP1
import Sync
import TernCore

/// `MessageSourceFetching` and `ListHeaderFetching` on the Sync module's `MessageSourceFetcher`,
/// through the account's pool, the person's own work for the catch-up (issue 36).
struct LiveMessageSourceFetcher: MessageSourceFetching, ListHeaderFetching {
    let connections: AccountConnectionPools
    let userWork: UserWorkTracker

    func source(_ location: MessageSourceLocation, account: Account, credentials: CredentialSupply) async throws -> [UInt8] {
        let fetcher = MessageSourceFetcher(connections: await connections.pool(for: account, credentials: credentials))
        return try await translatingMailFailures {
            try await userWork.during(account.id) { try await fetcher.source(folderPath: location.folderPath, uid: location.uid) }
        }
    }

    func sources(
        _ locations: [MessageSourceLocation], folderPath: String, account: Account, credentials: CredentialSupply,
        each: @escaping @Sendable (MessageSourceLocation, [UInt8]) async throws -> Void
    ) async throws {
        let fetcher = MessageSourceFetcher(connections: await connections.pool(for: account, credentials: credentials))
        let byUID = Dictionary(locations.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
        try await translatingMailFailures {
            try await userWork.during(account.id) {
                try await fetcher.sources(folderPath: folderPath, uids: locations.map(\.uid)) { uid, bytes in
                    if let location = byUID[uid] { try await each(location, bytes) }
                }
            }
        }
    }

    func listHeaders(_ location: MessageSourceLocation, account: Account, credentials: CredentialSupply) async throws -> ListHeaderFields {
        let fetcher = MessageSourceFetcher(connections: await connections.pool(for: account, credentials: credentials))
        let headers = try await translatingMailFailures {
            try await userWork.during(account.id) { try await fetcher.header(folderPath: location.folderPath, uid: location.uid) }
        }
        return ListHeaderFields(
            listUnsubscribe: headers.first("list-unsubscribe")?.decodedValue,
            listUnsubscribePost: headers.first("list-unsubscribe-post")?.decodedValue,
            listId: headers.first("list-id")?.decodedValue)
    }
}

/// `MessageHeaderReading` on MIME's parser; the authentication results as sync reads them.
struct MIMEMessageHeaderReader: MessageHeaderReading {
    func header(of source: [UInt8]) -> (fields: [HeaderLine], authentication: [AuthenticationResults]) {
        let headers = MessageParser().parse(Array(Self.headerSection(source))).headers
        let lines = headers.fields.map { HeaderLine(name: $0.name, value: $0.decodedValue) }
        let authentication = AuthenticationResultsParser.parse(fields: headers.fields).map { AuthenticationResults($0) }
        return (lines, authentication)
    }

    /// The bytes up to the blank line (the body is not parsed to show a header).
    static func headerSection(_ source: [UInt8]) -> ArraySlice<UInt8> {
        var index = 0
        while index + 1 < source.count {
            if source[index] == 0x0A, source[index + 1] == 0x0A { return source[...index] }
            if source[index] == 0x0A, source[index + 1] == 0x0D, index + 2 < source.count, source[index + 2] == 0x0A {
                return source[...(index + 2)]
            }
            index += 1
        }
        return source[...]
    }
}

/// RFC 8058 section 3.2's POST: the body `List-Unsubscribe=One-Click` as
/// `application/x-www-form-urlencoded`; no cookie, no `Referer`, no credentials (the client keeps
/// no cookie jar and none are added); https only, TLS 1.2 or newer, fully verified; no proxy. A
/// redirect is followed only to the same host over https (307 and 308, which keep the POST), at
/// most `maxRedirects` times: a redirect elsewhere would hand the person's unsubscribe, and the
/// token in its address, to a third party.
///
/// `TERN_UNSUBSCRIBE_CA_FILE` adds a CA to the system's roots, as an account's `--ca-file` does
/// for its mail servers: the tests' recording server answers on `https://localhost` with the test
/// servers' certificate (docs/decisions.md, "One-click unsubscribe").
public struct HTTPOneClickPoster: OneClickUnsubscribePosting {
    public static let maxRedirects = 3
    static let maxAnswerBytes = 64 * 1024

    let caFile: String?
    let timeout: TimeAmount

    public init(environment: [String: String], timeout: TimeAmount = .seconds(15)) {
        caFile = environment["TERN_UNSUBSCRIBE_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        self.timeout = timeout
    }

    /// Whether an address may be posted to at all.
    func allowed(_ url: URL) -> Bool { url.scheme?.lowercased() == "https" && url.host?.isEmpty == false }

    public func post(to url: URL) async -> OneClickResponse {
        guard allowed(url) else { return .unreachable(reason: "only https addresses are contacted") }
        let configuration = HTTPClient.Configuration(
            tlsConfiguration: TLSPolicy.clientConfiguration(caFile: caFile), redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: timeout), proxy: nil)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let response = await follow(url, client: client)
        try? await client.shutdown()
        return response
    }

    func follow(_ url: URL, client: HTTPClient) async -> OneClickResponse {
        var target = url
        for _ in 0...Self.maxRedirects {
            let answer = await send(to: target, client: client)
            guard case .redirect(let location) = answer else { return answer.response }
            guard let next = URL(string: location, relativeTo: target)?.absoluteURL, next.host?.lowercased() == target.host?.lowercased(),
                allowed(next)
            else { return .redirectRefused(location: location) }
            target = next
        }
        return .redirectRefused(location: target.absoluteString)
    }

    enum Answer {
        case final(OneClickResponse)
        case redirect(String)

        var response: OneClickResponse {
            switch self {
            case .final(let response): response
            case .redirect(let location): .redirectRefused(location: location)
            }
        }
    }

    func send(to url: URL, client: HTTPClient) async -> Answer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "User-Agent", value: "Tern")
        request.body = .bytes(ByteBuffer(string: ListUnsubscribeMethods.oneClickPostValue))
        do {
            let response = try await client.execute(request, timeout: timeout)
            // The answer is read (bounded) so the connection closes cleanly; its content is not used.
            _ = try? await response.body.collect(upTo: Self.maxAnswerBytes)
            let status = Int(response.status.code)
            if [307, 308].contains(status), let location = response.headers.first(name: "Location") { return .redirect(location) }
            if (300..<400).contains(status) { return .final(.redirectRefused(location: response.headers.first(name: "Location") ?? "")) }
            return .final((200..<300).contains(status) ? .accepted(status: status) : .refused(status: status))
        } catch {
            return .final(.unreachable(reason: Self.reason(error)))
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout { return "timed out" }
            return String(describing: error)
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return String(describing: error)
    }
}
