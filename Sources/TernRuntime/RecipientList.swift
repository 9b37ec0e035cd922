import MIME
import Sync
import TernCore

/// Recipients as a person types them (`Ana <ana@example.org>, bob@example.org`), read with the MIME
/// module's RFC 5322 address parser, so front ends need no parser of their own.
public enum RecipientList {
    public static func parse(_ values: [String]) throws -> [EmailAddress] {
        try values.flatMap { value -> [EmailAddress] in
            let parsed = AddressParser.parse(value).map(EmailAddress.init)
            guard !parsed.isEmpty, parsed.allSatisfy({ $0.address.contains("@") }) else {
                throw TernError.invalidInput("'\(value)' is not an email address")
            }
            return parsed
        }
    }
}
