/// Every file of the publisher's console, by name. The page loads its style sheet and scripts from `/console/`
/// with no inline script or style, so the strict Content-Security-Policy of `ConsoleHeaders` holds.
package enum ConsoleAssets {
    /// The files, keyed by their name under `/console/`.
    package static let byName: [String: ConsoleAsset] = {
        let assets = [
            ConsoleAsset(name: "index.html", contentType: "text/html; charset=utf-8", text: ConsoleFiles.indexHTML),
            ConsoleAsset(name: "console.css", contentType: "text/css; charset=utf-8", text: ConsoleFiles.styleCSS),
            ConsoleAsset(name: "sha256.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.sha256JS),
            ConsoleAsset(name: "zip.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.zipJS),
            ConsoleAsset(name: "tus.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.tusJS),
            ConsoleAsset(name: "api.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.apiJS),
            ConsoleAsset(name: "dom.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.domJS),
            ConsoleAsset(name: "products.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.productsJS),
            ConsoleAsset(name: "upload.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.uploadJS),
            ConsoleAsset(name: "operator.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.operatorJS),
            ConsoleAsset(name: "app.js", contentType: "text/javascript; charset=utf-8", text: ConsoleFiles.appJS),
            ConsoleAsset(name: "favicon.svg", contentType: "image/svg+xml", text: ConsoleFiles.faviconSVG),
        ]
        return Dictionary(uniqueKeysWithValues: assets.map { ($0.name, $0) })
    }()
}

/// The console's file texts, one extension per file under `Files/`.
enum ConsoleFiles {}
