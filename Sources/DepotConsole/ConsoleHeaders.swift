import HTTPTypes

/// The header fields of every console answer: a strict Content-Security-Policy (scripts, styles, images and
/// requests from Depot itself only; no inline script or style, no framing, no `<base>`), `X-Frame-Options: DENY`,
/// `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
package enum ConsoleHeaders {
    /// The Content-Security-Policy sent with every console answer.
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// Console files change only with the binary: a browser may keep them but asks again on every load, with
    /// the ETag (a 304 carries no body), so a new release is picked up at once and the page never mixes files
    /// of two releases for long.
    package static let cacheControl = "no-cache"

    /// The security fields, added to `fields`.
    package static func secure(_ fields: inout HTTPFields) {
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        fields[.xFrameOptions] = "DENY"
        fields[.xContentTypeOptions] = "nosniff"
        fields[.referrerPolicy] = "no-referrer"
        fields[.crossOriginOpenerPolicy] = "same-origin"
        fields[.crossOriginResourcePolicy] = "same-origin"
    }
}

extension HTTPField.Name {
    /// `X-Frame-Options` (RFC 7034).
    package static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    /// `Referrer-Policy` (W3C Referrer Policy).
    package static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    /// `Cross-Origin-Opener-Policy` (HTML standard).
    package static let crossOriginOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!
}
