import Foundation
import Hummingbird
import NIOCore
import TernCore

/// How the routes answer: whole pages and fragments as HTML, the app script's calls as JSON, forms
/// without script with a redirect back (303, so reload does not post again).
enum WebResponse {
    static func html(_ markup: HTMLText, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: markup.markup)))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Only a path of this app: never another site (`//host`) or scheme. The session middleware puts
    /// the app's base in front of it.
    static func redirect(to target: String?, fallback: String = "/mail") -> Response {
        Response(status: .seeOther, headers: [.location: target.flatMap { isAppPath($0) ? $0 : nil } ?? fallback])
    }

    /// Exactly one `/`, then a character that is not `/`, `\\` or white space, and no white space or
    /// control character anywhere: a browser removes tabs and newlines from a URL before reading it,
    /// so `/\t/host` would become `//host`, another site (issue 32). Nothing is removed here.
    static func isAppPath(_ target: String) -> Bool {
        let scalars = Array(target.unicodeScalars)
        guard scalars.count >= 2, scalars[0] == "/", scalars[1] != "/", scalars[1] != "\\" else { return false }
        return !scalars.contains {
            $0.properties.isWhitespace || $0.properties.generalCategory == .control || $0.properties.isDefaultIgnorableCodePoint
        }
    }

    /// The app's script sends its CSRF token as a header and reads JSON; a form without script
    /// sends it as a field and follows a redirect.
    static func isScripted(_ request: Request) -> Bool { request.headers[SecurityHeaders.csrfHeaderName] != nil }
}

extension WebErrorPage {
    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var response = WebResponse.html(document(title: status.reasonPhrase, message: message), status: status)
        SecurityHeaders.apply(to: &response)
        return response
    }
}

/// What a JSON answer to the app's script holds: the toast to show, and for archive and delete the
/// token that undoes them while the window lasts.
struct ActionReply: Encodable, Sendable {
    var ok: Bool
    var toast: String?
    var undoToken: String?
    var undoSeconds: Int?
    var navigate: String?
    var error: String?
}

/// The core's typed errors as HTTP answers with a worded page: a thing that is not there is 404,
/// bad input 400, anything else 500 — never a type name or a stack.
struct ErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            throw error
        } catch is NIOTooManyBytesError {
            // A form larger than the route reads (issue 32's route fuzzing): the sender's fault.
            return WebResponse.html(
                WebErrorPage.document(title: "Too large", message: "This form is larger than Tern accepts."),
                status: .contentTooLarge)
        } catch let error as TernError {
            let status: HTTPResponse.Status =
                switch error {
                case .notFound: .notFound
                case .invalidInput, .invalidSetting: .badRequest
                default: .internalServerError
                }
            return WebResponse.html(WebErrorPage.document(title: status.reasonPhrase, message: WebErrorText.describe(error)), status: status)
        } catch {
            return WebResponse.html(
                WebErrorPage.document(title: "Something went wrong", message: WebErrorText.describe(error)),
                status: .internalServerError)
        }
    }
}
