import AccountDiscovery
import FuzzSupport
import TernCore

/// libFuzzer target for the clientConfig reader (`make fuzz-clientconfig`, issue 35): any document
/// an autoconfig server or online database sends gives settings or a reason, never a crash; the
/// reader's caps hold, and settings chosen from it are never without TLS.
func fuzzOneInput(_ bytes: [UInt8]) {
    if let root = try? XMLReader.parse(bytes) {
        var pending = [(root, 1)]
        var count = 0
        while let (element, depth) = pending.popLast() {
            count += 1
            precondition(depth <= XMLReader.maxDepth, "depth is capped")
            pending += element.children.map { ($0, depth + 1) }
        }
        precondition(count <= XMLReader.maxElements, "elements are capped")
    }
    guard let config = try? ClientConfig.parse(bytes) else { return }
    precondition(config.incoming.count <= ClientConfig.maxServers && config.outgoing.count <= ClientConfig.maxServers, "servers are capped")
    let address = DiscoveryAddress(address: "someone@example.org", localPart: "someone", domain: "example.org")
    if let settings = try? config.settings(for: address, source: .autoconfig(url: "https://autoconfig.example.org/"), what: "fuzz") {
        precondition((1...65535).contains(settings.imap.port) && (1...65535).contains(settings.smtp.port), "ports are valid")
        precondition(DomainName.isHostName(settings.imap.host) && DomainName.isHostName(settings.smtp.host), "hosts are host names")
    }
}

@main
struct ClientConfigFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
