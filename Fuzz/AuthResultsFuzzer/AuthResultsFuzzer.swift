import FuzzSupport
import MIME
import TernCore

/// libFuzzer target for the `Authentication-Results` parser (`make fuzz-authres`, issue 32): any
/// field value gives a result, never a crash, with the caps held and every result named; and the
/// verdict over it is total.
func fuzzOneInput(_ bytes: [UInt8]) {
    let header = AuthenticationResultsParser.parse(bytes)
    precondition(header.results.count <= AuthenticationResultsParser.maxResults, "results are capped")
    for result in header.results {
        precondition(!result.method.isEmpty && !result.result.isEmpty, "a result without a method or a value")
        precondition(
            result.properties.count <= AuthenticationResultsParser.maxProperties
                && result.properties.values.allSatisfy { $0.count <= AuthenticationResultsParser.maxValueLength }, "properties are capped")
    }
    // The domain's record of the field, as Sync makes it (`AuthenticationResults(_:)`, issue 33).
    let evidence = AuthenticationResults(
        authservId: header.authservId,
        results: header.results.map {
            AuthenticationResults.MethodResult(method: $0.method, result: $0.result, properties: $0.properties)
        }
    ).evidence
    _ = SenderAuthentication(headers: [evidence], authservId: header.authservId, fromAddress: "someone@example.com")
}

@main
struct AuthResultsFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
