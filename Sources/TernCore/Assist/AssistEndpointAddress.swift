import Foundation

/// The OpenAI-compatible server the user configured, and whether it is on this machine.
/// PLATFORM.md and P-01/P-02: mail may reach a model only on loopback unless the user explicitly
/// allows another host (the Settings screen warns that mail then leaves the machine).
public struct AssistEndpointAddress: Sendable, Hashable {
    public var baseURL: URL
    public var host: String

    /// nil for anything but an absolute http(s) URL with a host and no credentials in it.
    public init?(_ text: String) {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            components.query == nil, components.fragment == nil,
            let url = components.url
        else { return nil }
        self.baseURL = url
        self.host = host.lowercased()
    }

    /// 127.0.0.0/8, ::1 and `localhost`: names other than `localhost` are not resolved, so a DNS
    /// answer cannot turn a "local" name into a remote address.
    public var isLoopback: Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }) else {
            return false
        }
        return parts[0] == "127"
    }

    /// `…/chat/completions` under the base URL (which usually ends in `/v1`).
    public var chatCompletionsURL: URL {
        baseURL.path.hasSuffix("/chat/completions") ? baseURL : baseURL.appendingPathComponent("chat/completions")
    }

    /// `…/models`, what a connection test asks for.
    public var modelsURL: URL {
        var base = baseURL
        if base.path.hasSuffix("/chat/completions") { base = base.deletingLastPathComponent().deletingLastPathComponent() }
        return base.appendingPathComponent("models")
    }
}
