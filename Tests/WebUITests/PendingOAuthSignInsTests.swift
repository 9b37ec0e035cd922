import Foundation
import Synchronization
import TernCore
import TernRuntime
import Testing

@testable import WebUI

/// Issue 35: the web app's waiting sign-ins: an answer only for a state it issued, once, within
/// ten minutes; the sign-in continued by one request only; at most `capacity` waiting.
@Suite struct PendingOAuthSignInsTests {
    static func request(_ signIn: BrowserOAuthSignIn) async -> OAuthAuthorizationRequest {
        await signIn.start(provider: .microsoft, clientID: "c", redirectURI: "http://127.0.0.1:8025/oauth/callback", loginHint: nil)
    }

    let signIn = BrowserOAuthSignIn(environment: [:], clients: nil)

    @Test func anAnswerIsTakenOnceForAnIssuedStateOnly() async {
        let pending = PendingOAuthSignIns()
        let request = await Self.request(signIn)
        await pending.add(request, form: AccountSetupFormValues())
        #expect(await pending.answered(state: request.state) == nil, "no answer yet")
        #expect(await pending.answer(state: "forged", with: .code("x")) == .unknown)
        #expect(await pending.answer(state: "", with: .code("x")) == .unknown)
        #expect(await pending.answer(state: request.state, with: .code("real")) == .accepted)
        #expect(await pending.answer(state: request.state, with: .code("second")) == .unknown, "a second answer changes nothing")
        #expect(await pending.answered(state: request.state)?.answer == .code("real"))
        #expect(await pending.take(state: request.state)?.answer == .code("real"))
        #expect(await pending.take(state: request.state) == nil, "one request continues with it")
    }

    @Test func aSignInExpiresAfterTenMinutes() async {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000))
        let pending = PendingOAuthSignIns(now: { clock.withLock { $0 } })
        let late = await Self.request(signIn)
        await pending.add(late, form: AccountSetupFormValues())
        clock.withLock { $0 += PendingOAuthSignIns.lifetime + 1 }
        #expect(await pending.answer(state: late.state, with: .code("x")) == .unknown)

        let answered = await Self.request(signIn)
        await pending.add(answered, form: AccountSetupFormValues())
        #expect(await pending.answer(state: answered.state, with: .code("x")) == .accepted)
        clock.withLock { $0 += PendingOAuthSignIns.lifetime + 1 }
        #expect(await pending.take(state: answered.state) == nil)
    }

    @Test func theOldestGoWhenTooManyWait() async {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000))
        let pending = PendingOAuthSignIns(now: { clock.withLock { $0 } })
        var states: [String] = []
        for _ in 0...PendingOAuthSignIns.capacity {
            clock.withLock { $0 += 1 }
            let request = await Self.request(signIn)
            states.append(request.state)
            await pending.add(request, form: AccountSetupFormValues())
        }
        #expect(Set(states).count == states.count, "every state is new")
        #expect(await pending.answer(state: states[0], with: .code("x")) == .unknown)
        #expect(await pending.answer(state: states[1], with: .code("x")) == .accepted)
    }
}
