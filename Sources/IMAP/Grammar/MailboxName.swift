import Foundation

/// Modified UTF-7 mailbox names (RFC 3501 section 5.1.3): `&` starts a base64 run of UTF-16
/// (with `,` for `/`), `-` ends it, `&-` is a literal `&`.
public enum MailboxName {
    public static func decode(_ name: String) -> String {
        guard name.contains("&") else { return name }
        var output = ""
        var iterator = name.makeIterator()
        while let character = iterator.next() {
            guard character == "&" else {
                output.append(character)
                continue
            }
            var encoded = ""
            var closed = false
            while let next = iterator.next() {
                if next == "-" {
                    closed = true
                    break
                }
                encoded.append(next)
            }
            if encoded.isEmpty {
                output.append("&")
                continue
            }
            var base64 = encoded.replacingOccurrences(of: ",", with: "/")
            while base64.count % 4 != 0 { base64.append("=") }
            guard closed, let data = Data(base64Encoded: base64), data.count % 2 == 0 else {
                output += "&" + encoded + (closed ? "-" : "") // not valid modified UTF-7: keep as sent
                continue
            }
            let units = stride(from: 0, to: data.count, by: 2).map { UInt16(data[$0]) << 8 | UInt16(data[$0 + 1]) }
            output += String(decoding: units, as: UTF16.self)
        }
        return output
    }

    public static func encode(_ name: String) -> String {
        var output = ""
        var pending: [UInt16] = []
        func flush() {
            guard !pending.isEmpty else { return }
            var bytes: [UInt8] = []
            for unit in pending {
                bytes.append(UInt8(unit >> 8))
                bytes.append(UInt8(unit & 0xFF))
            }
            let base64 = Data(bytes).base64EncodedString().replacingOccurrences(of: "/", with: ",")
                .replacingOccurrences(of: "=", with: "")
            output += "&" + base64 + "-"
            pending.removeAll()
        }
        for scalar in name.unicodeScalars {
            if scalar.value >= 0x20 && scalar.value <= 0x7E {
                flush()
                output += scalar == "&" ? "&-" : String(scalar)
            } else {
                pending.append(contentsOf: Array(String(scalar).utf16))
            }
        }
        flush()
        return output
    }
}

/// A mailbox as Tern names it (`name`, decoded, what people read and the store keeps) together
/// with its spelling on the wire (`wire`, modified UTF-7, what commands send). Commands take this
/// type rather than a string, so a name cannot be encoded twice: a LIST name passed on as a
/// string was encoded a second time (`INBOX.Re&-AOc-us` for `INBOX.Reçus`, `R&--D` for `R&D`),
/// and the server refused every command on that folder (issue 22).
public struct MailboxPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// Decoded from modified UTF-7.
    public let name: String
    /// As it goes into a command (before quoting).
    public let wire: String

    /// From a decoded name, as the store and people spell it.
    public init(_ name: String) {
        self.name = name
        wire = MailboxName.encode(name)
    }

    /// As the server listed it: its own spelling is sent back, even when it is not valid
    /// modified UTF-7 and decoding kept it as it was.
    public init(listing: MailboxListing) {
        name = listing.name
        wire = listing.rawName
    }

    public init(stringLiteral name: String) {
        self.init(name)
    }

    public var description: String { name }
}
