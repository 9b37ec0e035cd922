import Foundation
import TernCore
import TernRuntime

/// What the provider answered on the callback (RFC 6749 section 4.1.2).
enum OAuthAnswer: Sendable, Hashable {
    case code(String)
    /// `error` (`access_denied` when the person refused) and the provider's description, if any.
    case refused(error: String, description: String?)
}

/// Issue 35: a browser sign-in started from the Add account form: the authorization request (its
/// state and PKCE verifier), the form to continue with, and the answer once the callback came.
struct PendingOAuthSignIn: Sendable {
    var request: OAuthAuthorizationRequest
    var form: AccountSetupFormValues
    var started: Date
    var answer: OAuthAnswer?
}

/// Issue 35: the sign-ins the web app waits for, by `state`. An answer is taken only for a state
/// this process issued (RFC 6749 section 10.12), once, within ten minutes; the finished sign-in is
/// taken out by the one request that continues the setup with it. At most `capacity` wait at once
/// (the oldest go first), so a page posting "Sign in" in a loop holds no more than that.
actor PendingOAuthSignIns {
    static let lifetime: TimeInterval = 600
    static let capacity = 16

    enum Callback: Sendable, Equatable {
        /// The answer is recorded; the browser continues to the finish page.
        case accepted
        /// No sign-in waits with this state: never issued, expired, or already answered.
        case unknown
    }

    private var waiting: [String: PendingOAuthSignIn] = [:]
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date = Date.init) { self.now = now }

    func add(_ request: OAuthAuthorizationRequest, form: AccountSetupFormValues) {
        dropExpired()
        while waiting.count >= Self.capacity, let oldest = waiting.min(by: { $0.value.started < $1.value.started })?.key {
            waiting.removeValue(forKey: oldest)
        }
        waiting[request.state] = PendingOAuthSignIn(request: request, form: form, started: now(), answer: nil)
    }

    /// The callback: records the answer for a waiting state that has none yet.
    func answer(state: String, with answer: OAuthAnswer) -> Callback {
        dropExpired()
        guard !state.isEmpty, var pending = waiting[state], pending.answer == nil else { return .unknown }
        pending.answer = answer
        waiting[state] = pending
        return .accepted
    }

    /// The sign-in as the finish page shows it, answered and not expired; it stays waiting.
    func answered(state: String) -> PendingOAuthSignIn? {
        dropExpired()
        guard let pending = waiting[state], pending.answer != nil else { return nil }
        return pending
    }

    /// Takes the answered sign-in out: only one request continues with it.
    func take(state: String) -> PendingOAuthSignIn? {
        dropExpired()
        guard let pending = waiting[state], pending.answer != nil else { return nil }
        waiting.removeValue(forKey: state)
        return pending
    }

    private func dropExpired() {
        let limit = now().addingTimeInterval(-Self.lifetime)
        waiting = waiting.filter { $0.value.started > limit }
    }
}
