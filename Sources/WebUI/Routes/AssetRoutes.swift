import Foundation
import Hummingbird
import NIOCore

/// The app's script, styles and icon, compiled into the binary (`embedInCode`): nothing is read
/// from disk or fetched from anywhere at run time.
enum AssetRoutes {
    static let assets: [String: (type: String, bytes: [UInt8])] = [
        "app.css": ("text/css; charset=utf-8", PackageResources.app_css),
        "app.js": ("text/javascript; charset=utf-8", PackageResources.app_js),
        "search.js": ("text/javascript; charset=utf-8", PackageResources.search_js),
        "account.js": ("text/javascript; charset=utf-8", PackageResources.account_js),
        "notifications.js": ("text/javascript; charset=utf-8", PackageResources.notifications_js),
        "settings.js": ("text/javascript; charset=utf-8", PackageResources.settings_js),
        "icon.svg": ("image/svg+xml", PackageResources.icon_svg)
    ]

    static func register(on router: Router<BasicRequestContext>) {
        router.get("assets/:name") { _, context in
            let name = try context.parameters.require("name")
            guard let asset = assets[name] else { throw HTTPError(.notFound) }
            var response = Response(status: .ok, headers: [.contentType: asset.type], body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
            response.headers[.cacheControl] = "no-cache"
            return response
        }
    }
}
