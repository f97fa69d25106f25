import DepotHTTP
import Testing

/// The `Bearer` token is the credential's first run of bytes without SP or HTAB, wherever the first such byte falls
/// (the end is found eight bytes at a time).
struct BearerCredentialTests {
    /// What the token of `value` is, read one byte at a time.
    private static func expected(_ value: String) -> String? {
        var rest = Substring(value).drop { $0 == " " || $0 == "\t" }
        guard rest.count > 7, rest.prefix(6).lowercased() == "bearer", rest.dropFirst(6).first == " " else { return nil }
        rest = rest.dropFirst(7).drop { $0 == " " }
        let token = rest.prefix { $0 != " " && $0 != "\t" }
        return token.isEmpty ? nil : String(token)
    }

    @Test func tokensEndAtTheFirstSpaceOrTabWhereverItFalls() {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~+/=")
        for length in 1...40 {
            let token = String((0..<length).map { alphabet[($0 * 7 + length) % alphabet.count] })
            #expect(BearerCredential.token(in: "Bearer " + token) == token)
            for cut in 0...length {
                for separator in [" ", "\t"] {
                    let value = "Bearer " + token.prefix(cut) + separator + token.dropFirst(cut) + "x"
                    #expect(BearerCredential.token(in: value) == Self.expected(value), "\(value.debugDescription)")
                }
            }
        }
    }

    @Test(
        arguments: [
            ("Bearer abc", "abc"), ("bearer  abc", "abc"), ("  BEARER abc\t", "abc"), ("Bearer", nil), ("Bearer ", nil),
            ("Basic abc", nil), ("Bearerabc", nil), ("Bearer  ", nil),
        ] as [(String, String?)])
    func schemeAndSpacing(value: String, token: String?) {
        #expect(BearerCredential.token(in: value) == token)
        #expect(Self.expected(value) == token)
    }
}
