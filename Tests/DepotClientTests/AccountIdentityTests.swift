import Foundation
import Testing

@testable import DepotClient

/// The account identifiers for StoreKit: a hashed, dashed `applicationUsername` and its UUID form.
@Suite struct AccountIdentityTests {
    @Test(arguments: [
        // FIPS 180-2 test vectors for SHA-256.
        ("", "e3b0c442-98fc1c14-9afbf4c8-996fb924-27ae41e4-649b934c-a495991b-7852b855"),
        ("abc", "ba7816bf-8f01cfea-414140de-5dae2223-b00361a3-96177a9c-b410ff61-f20015ad"),
    ])
    func theUsernameIsTheDashedHexOfTheHash(_ name: String, _ expected: String) {
        #expect(AccountIdentity.applicationUsername(name) == expected)
    }

    @Test func theTokenIsAVersion8UUIDOfTheSameHash() {
        let token = AccountIdentity.appAccountToken("abc").uuidString.lowercased()
        // The hash's first 16 bytes, with the version nibble set to 8 and the variant bits to 10.
        #expect(token == "ba7816bf-8f01-8fea-8141-40de5dae2223")
        #expect(AccountIdentity.appAccountToken("abc") == AccountIdentity.appAccountToken("abc"))
        #expect(AccountIdentity.appAccountToken("abc") != AccountIdentity.appAccountToken("abd"))
    }
}
