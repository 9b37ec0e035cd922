import Foundation

/// One `Authentication-Results` header field (RFC 8601 section 2.2): who did the checks (the
/// authserv-id) and what each check said. Written by the `MIME` parser, stored with the message,
/// read by `SenderAuthentication` (issue 32).
public struct AuthenticationResults: Sendable, Hashable, Codable {
    /// The authserv-id, lowercased; empty when the field had none (Microsoft's servers write the
    /// results straight after the colon).
    public var authservId: String
    /// The `resinfo`s in field order; empty for `none`.
    public var results: [MethodResult]

    public init(authservId: String, results: [MethodResult]) {
        self.authservId = authservId
        self.results = results
    }

    /// What `SenderAuthentication` reads of the field, and so what is stored with a message: the
    /// DKIM and DMARC results with their `header.d`, `header.i` and `header.from`, and the SPF
    /// result with `smtp.mailfrom` for the privacy report (issue 37) (a Gmail field also carries
    /// signature fragments and selectors; storing all of it for every message would cost a few
    /// hundred bytes each for nothing).
    public var evidence: AuthenticationResults {
        let kept: Set<String> = ["header.d", "header.i", "header.from", "smtp.mailfrom"]
        return AuthenticationResults(
            authservId: authservId,
            results: results.compactMap { result in
                guard result.method == "dkim" || result.method == "dmarc" || result.method == "spf" else { return nil }
                return MethodResult(method: result.method, result: result.result, properties: result.properties.filter { kept.contains($0.key) })
            })
    }

    /// One `methodspec` with its properties: `dkim=pass header.d=example.com header.i=@example.com`.
    public struct MethodResult: Sendable, Hashable, Codable {
        /// Lowercased, without a method version (`dkim/1` is `dkim`).
        public var method: String
        /// Lowercased: `pass`, `fail`, `none`, `neutral`, `temperror`, …
        public var result: String
        /// `ptype.property` (lowercased) → value as written, quotes removed: `header.d` → `example.com`.
        public var properties: [String: String]

        public init(method: String, result: String, properties: [String: String] = [:]) {
            self.method = method
            self.result = result
            self.properties = properties
        }
    }
}

/// Issue 32: whether a message's From is vouched for by the user's own provider, which is what
/// lets a trusted sender's remote images load without asking (FR-ED-04). A trusted address alone
/// is not enough: anyone can write it in a From header.
public struct SenderAuthentication: Sendable, Hashable, Codable {
    public enum Verdict: String, Sendable, Hashable, Codable {
        /// The provider's result says `dmarc=pass`, or `dkim=pass` by the From domain or a parent of it.
        case verified
        /// The provider's result is there and vouches for neither.
        case failed
        /// No result from the provider: the account has no authserv-id, or this message carries
        /// none from it (stored before Tern read the header, or it did not come in through the
        /// provider's mail servers).
        case unknown
    }

    public var verdict: Verdict
    /// The authserv-id whose result was read: the account's (`Account.verifyingAuthservId`); nil
    /// when Tern knows none for the account, so no message of it can be verified.
    public var authservId: String?

    public init(verdict: Verdict, authservId: String?) {
        self.verdict = verdict
        self.authservId = authservId
    }

    public var isVerified: Bool { verdict == .verified }

    /// Whether being a trusted sender loads this message's remote images (docs/decisions.md,
    /// "Trusted senders must be authenticated"): a verified sender does; a failed one does not; an
    /// unknown one does not when the provider is known to add its result to every message it
    /// delivers (its absence is then suspicious), and does as before when Tern cannot check the
    /// account's mail at all (the front ends say "not verified").
    public var letsTrustLoadImages: Bool {
        switch verdict {
        case .verified: true
        case .failed: false
        case .unknown: authservId == nil
        }
    }

    /// The verdict for a message from `fromAddress` carrying `headers` (in field order, nil when they
    /// were never recorded), for an account whose provider writes `authservId`.
    ///
    /// Only the first field with the provider's authserv-id counts: the provider prepends its own
    /// field at delivery, above anything the sender wrote, and RFC 8601 section 5 has it remove or
    /// neutralize fields that claim its name; any other authserv-id may be the sender's forgery.
    public init(headers: [AuthenticationResults]?, authservId: String?, fromAddress: String) {
        guard let authservId = authservId?.lowercased(), !authservId.isEmpty else {
            self.init(verdict: .unknown, authservId: nil)
            return
        }
        guard let provider = Self.providerField(in: headers, authservId: authservId) else {
            self.init(verdict: .unknown, authservId: authservId)
            return
        }
        // An address without a domain (a broken From) has nothing a result could vouch for.
        let fromDomain = fromAddress.contains("@") ? Self.domain(of: fromAddress) : ""
        let vouched =
            !fromDomain.isEmpty
            && provider.results.contains { result in
                guard result.result == "pass" else { return false }
                switch result.method {
                case "dmarc":
                    // DMARC judged the From the provider saw; a result about another From does not count.
                    guard let judged = result.properties["header.from"] else { return true }
                    return Self.domain(of: judged) == fromDomain
                case "dkim":
                    let signer = result.properties["header.d"] ?? result.properties["header.i"].map(Self.domain(of:)) ?? ""
                    return Self.signer(signer.lowercased(), isAlignedWith: fromDomain)
                default:
                    return false
                }
            }
        self.init(verdict: vouched ? .verified : .failed, authservId: authservId)
    }

    /// The provider's own field: the first (topmost) with its authserv-id (lowercased).
    static func providerField(in headers: [AuthenticationResults]?, authservId: String) -> AuthenticationResults? {
        headers?.first { $0.authservId == authservId }
    }

    /// DKIM alignment kept simple (issue 32): the signing domain is the From domain or a parent of
    /// it with at least two labels (`example.com` signs for `news.example.com`; `com` signs for
    /// nobody). A signing domain *below* the From domain does not count: a subdomain may be handed
    /// to someone else (a hosted shop, a mailing service), and DMARC's own relaxed alignment, which
    /// knows the organizational domain, already passes the legitimate cases as `dmarc=pass`.
    static func signer(_ signer: String, isAlignedWith fromDomain: String) -> Bool {
        guard !signer.isEmpty, !fromDomain.isEmpty else { return false }
        if signer == fromDomain { return true }
        return signer.contains(".") && fromDomain.hasSuffix("." + signer)
    }

    /// The lowercased domain of an address or a domain (`a@example.com`, `@example.com` and
    /// `example.com` give `example.com`), without a trailing dot.
    static func domain(of address: String) -> String {
        var domain = address.split(separator: "@", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        domain = domain.trimmingCharacters(in: .whitespaces).lowercased()
        if domain.hasSuffix(".") { domain.removeLast() }
        return domain
    }
}

/// Issue 37: the SPF, DKIM and DMARC results of the provider's own `Authentication-Results` field
/// (the topmost with the account's authserv-id, as `SenderAuthentication` reads it), each the
/// first result of its method: `pass`, `fail`, `softfail`, `none`, `temperror`, …
public struct AuthenticationChecks: Sendable, Hashable, Codable {
    public var spf: String?
    public var dkim: String?
    public var dmarc: String?

    public init(spf: String? = nil, dkim: String? = nil, dmarc: String? = nil) {
        self.spf = spf
        self.dkim = dkim
        self.dmarc = dmarc
    }

    /// Read from the provider's field only, as `SenderAuthentication` reads its verdict; all nil
    /// without an authserv-id or without its field.
    public init(headers: [AuthenticationResults]?, authservId: String?) {
        guard let authservId = authservId?.lowercased(), !authservId.isEmpty,
            let field = SenderAuthentication.providerField(in: headers, authservId: authservId)
        else {
            self.init()
            return
        }
        func first(_ method: String) -> String? { field.results.first { $0.method == method }?.result }
        self.init(spf: first("spf"), dkim: first("dkim"), dmarc: first("dmarc"))
    }
}
