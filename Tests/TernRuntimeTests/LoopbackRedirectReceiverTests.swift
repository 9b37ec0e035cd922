import Foundation
import Testing

@testable import TernRuntime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 21: a request to the loopback listener without this sign-in's `state` gets 400 and does
/// not end the sign-in; the browser's answer that follows does.
@Suite(.timeLimit(.minutes(1)))
struct LoopbackRedirectReceiverTests {
    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func anAnswerWithAnotherStateIsRefusedAndTheWaitGoesOn() async throws {
        let receiver = try await LoopbackRedirectReceiver.start(state: "expected-state")
        let waiting = Task { try await receiver.parameters(timeout: .seconds(30)) }

        let forged = try await Self.get("\(receiver.redirectURI)?code=attacker-code&state=wrong")
        #expect(forged.status == 400)
        let missing = try await Self.get("\(receiver.redirectURI)?code=attacker-code")
        #expect(missing.status == 400)

        let real = try await Self.get("\(receiver.redirectURI)?code=the-code&state=expected-state")
        #expect(real.status == 200)
        #expect(real.body.contains("signed in"))
        let parameters = try await waiting.value
        #expect(parameters["code"] == "the-code")
    }

    @Test func withoutTheRightAnswerTheWaitEndsAtTheTimeout() async throws {
        let receiver = try await LoopbackRedirectReceiver.start(state: "expected-state")
        let waiting = Task { try await receiver.parameters(timeout: .seconds(2)) }
        #expect(try await Self.get("\(receiver.redirectURI)?state=wrong").status == 400)
        await #expect(throws: OAuthFlowError.self) { _ = try await waiting.value }
    }
}
