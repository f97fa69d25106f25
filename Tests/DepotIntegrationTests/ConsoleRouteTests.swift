@testable import DepotServerTestSupport
import DepotConsole
import DepotSettings
import Foundation
import Testing

@testable import DepotServer

/// `/console` on a live server: the page and its files with their types, validators and security fields, HEAD,
/// 304, unknown files, and the console turned off by `console.enabled`.
@Suite("Console routes")
struct ConsoleRouteTests {
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// The security fields every console answer carries.
    static func expectSecured(_ response: RawHTTPClient.Response, _ what: String) {
        #expect(response.value("Content-Security-Policy") == policy, "\(what)")
        #expect(response.value("X-Frame-Options") == "DENY", "\(what)")
        #expect(response.value("X-Content-Type-Options") == "nosniff", "\(what)")
        #expect(response.value("Referrer-Policy") == "no-referrer", "\(what)")
    }

    @Test func thePageIsServedWithTheSecurityFieldsAndNoInlineScriptOrStyle() async throws {
        try await LiveServer.with(packs: []) { server in
            let client = Endpoint(port: server.port)
            for path in ["/console", "/console/"] {
                let page = try await client.request(RawHTTPClient.get(path))
                #expect(page.status == 200, "\(path): \(page.text)")
                #expect(page.value("Content-Type") == "text/html; charset=utf-8")
                #expect(page.value("Cache-Control") == "no-cache")
                #expect(page.value("ETag")?.hasPrefix("\"") == true)
                Self.expectSecured(page, path)
                #expect(page.text.contains("<script src=\"/console/app.js\" defer></script>"))
                // Every script is a file of the console's own; no element carries a style attribute or a handler.
                let scripts = page.text.components(separatedBy: "<script").dropFirst()
                #expect(scripts.count >= 5)
                for script in scripts { #expect(script.hasPrefix(" src=\"/console/"), "\(script.prefix(60))") }
                #expect(!page.text.contains(" style="))
                #expect(!page.text.contains(" onclick="))
                #expect(!page.text.contains("http://") && !page.text.contains("https://"), "nothing is fetched from elsewhere")
            }
        }
    }

    @Test func everyFileThePageNamesIsServedWithItsType() async throws {
        try await LiveServer.with(packs: []) { server in
            let client = Endpoint(port: server.port)
            let page = try await client.request(RawHTTPClient.get("/console")).text
            let named = page.components(separatedBy: "\"/console/").dropFirst().map { String($0.prefix { $0 != "\"" }) }
            #expect(Set(named) == Set(ConsoleAssets.byName.keys).subtracting(["index.html"]))
            let types = ["js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "svg": "image/svg+xml"]
            for name in named {
                let answer = try await client.request(RawHTTPClient.get("/console/" + name))
                #expect(answer.status == 200, "\(name)")
                let suffix = String(name.split(separator: ".").last ?? "")
                #expect(answer.value("Content-Type") == types[suffix], "\(name)")
                #expect(answer.body == ConsoleAssets.byName[name]?.bytes, "\(name)")
                #expect(answer.value("Content-Length") == String(answer.body.count))
                Self.expectSecured(answer, name)
                if suffix == "js" {
                    // Server data reaches the page as text only.
                    #expect(!answer.text.contains("innerHTML") && !answer.text.contains("outerHTML"), "\(name)")
                    #expect(!answer.text.contains("document.write") && !answer.text.contains("eval("), "\(name)")
                }
            }
        }
    }

    @Test func headAndRevalidationAnswerWithoutTheBody() async throws {
        try await LiveServer.with(packs: []) { server in
            let client = Endpoint(port: server.port)
            let full = try await client.request(RawHTTPClient.get("/console/app.js"))
            let etag = try #require(full.value("ETag"))
            let head = try await RawHTTPClient(port: server.port)
                .request(RawHTTPClient.get("/console/app.js", method: "HEAD"), head: true)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.value("ETag") == etag)
            #expect(head.value("Content-Type") == "text/javascript; charset=utf-8")
            #expect(head.value("Content-Length") == String(full.body.count))
            Self.expectSecured(head, "HEAD")
            let pageHead = try await RawHTTPClient(port: server.port)
                .request(RawHTTPClient.get("/console", method: "HEAD"), head: true)
            #expect(pageHead.status == 200)
            #expect(pageHead.value("Content-Type") == "text/html; charset=utf-8")

            let same = try await client.request(RawHTTPClient.get("/console/app.js", ["If-None-Match: \(etag)"]))
            #expect(same.status == 304)
            #expect(same.body.isEmpty)
            #expect(same.value("ETag") == etag)
            Self.expectSecured(same, "304")
            let listed = try await client.request(RawHTTPClient.get("/console/app.js", ["If-None-Match: \"x\", W/\(etag)"]))
            #expect(listed.status == 304)
            let other = try await client.request(RawHTTPClient.get("/console/app.js", ["If-None-Match: \"0000\""]))
            #expect(other.status == 200)
            #expect(other.body == full.body)
            // Each file has its own validator.
            let style = try await client.request(RawHTTPClient.get("/console/console.css"))
            #expect(style.value("ETag") != etag)
        }
    }

    @Test(arguments: ["/console/nothing.js", "/console/app.js.map", "/console/..%2Fconsole.css", "/console/index.htm"])
    func unknownFilesAreNotFound(path: String) async throws {
        try await LiveServer.with(packs: []) { server in
            let answer = try await Endpoint(port: server.port).request(RawHTTPClient.get(path))
            #expect(answer.status == 404, "\(answer.text)")
            #expect(PublisherRequests.errorCode(answer) == "not-found")
            #expect(answer.value("Content-Type")?.hasPrefix("application/json") == true)
            Self.expectSecured(answer, path)
        }
    }

    @Test func theConsoleIsOnByDefaultAndOffWhenConfiguredSo() async throws {
        #expect(try LiveServer.loadConfiguration("").console.enabled)
        #expect(try LiveServer.loadConfiguration(#""console": {}"#).console.enabled)
        #expect(try LiveServer.loadConfiguration(#""console": {"enabled": true}"#).console.enabled)
        #expect(try !LiveServer.loadConfiguration(#""console": {"enabled": false}"#).console.enabled)
        #expect(LiveServer.configurationRefusal(#""console": {"enabled": "no"}"#)?.contains("console.enabled") == true)
        try await LiveServer.with(packs: [], settings: #""console": {"enabled": false}"#) { server in
            let client = Endpoint(port: server.port)
            for path in ["/console", "/console/", "/console/app.js", "/console/index.html"] {
                let answer = try await client.request(RawHTTPClient.get(path))
                #expect(answer.status == 404, "\(path)")
                #expect(PublisherRequests.errorCode(answer) == "not-found")
                #expect(answer.value("Content-Security-Policy") == nil)
            }
            #expect(try await client.request(RawHTTPClient.get("/healthz")).status == 200)
        }
    }

    @Test func theRepositorysOwnConfigurationServesTheConsole() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let configuration = try ConfigurationLoader.load(
            overrides: ConfigurationOverrides(configPath: root + "/Config"), environment: [:])
        #expect(configuration.console == .defaults)
        #expect(configuration.console.enabled)
    }
}
