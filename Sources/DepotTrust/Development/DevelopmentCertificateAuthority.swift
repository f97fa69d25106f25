import Crypto
import Foundation
import SwiftASN1
import X509

/// A development stand-in for Apple's App Store signing chain, so the purchase flow runs without Apple.
///
/// It holds a self-signed P-256 root, an intermediate carrying Apple's WWDR marker extension and a leaf
/// carrying the App Store signing marker, all valid from 2020-01-01 to 2040-01-01, and the leaf's key.
/// ``sign(payload:)`` makes a JWS exactly shaped like App Store signed data (`alg` `ES256`, `x5c` leaf,
/// intermediate, root), so an ``AppStoreVerifier`` that trusts ``rootDER`` accepts it and one that does not
/// refuses it with `chain-untrusted`. Only the leaf's key is kept; the root and intermediate keys are
/// discarded once the chain is made.
package struct DevelopmentCertificateAuthority: Sendable {
    /// The root certificate, DER: what a verifier must be configured to trust.
    package let rootDER: [UInt8]
    /// The `x5c` header value: standard base64 DER of leaf, intermediate, root.
    let x5c: [String]
    let leafKey: P256.Signing.PrivateKey
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    /// Assembles an authority from its certificates and the leaf's key, checking that they fit together.
    init(
        root: Certificate, intermediate: Certificate, leaf: Certificate, leafKey: P256.Signing.PrivateKey
    ) throws(DevelopmentAuthorityError) {
        guard Certificate.PublicKey(leafKey.publicKey) == leaf.publicKey else {
            throw DevelopmentAuthorityError(.filesInvalid, "leaf-key.pem is not the key of leaf.pem")
        }
        guard intermediate.publicKey.isValidSignature(leaf.signature, for: leaf),
            root.publicKey.isValidSignature(intermediate.signature, for: intermediate),
            root.publicKey.isValidSignature(root.signature, for: root)
        else {
            throw DevelopmentAuthorityError(.filesInvalid, "root.pem, intermediate.pem and leaf.pem are not one chain")
        }
        do {
            let ders = try [leaf, intermediate, root].map { certificate in
                var serializer = DER.Serializer()
                try serializer.serialize(certificate)
                return serializer.serializedBytes
            }
            self.x5c = ders.map { Data($0).base64EncodedString() }
            self.rootDER = ders[2]
        } catch {
            throw DevelopmentAuthorityError(.signingFailed, "the development certificates could not be encoded")
        }
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.leafKey = leafKey
    }

    /// Signs `payload` as the App Store would: a JWS with header `{"alg": "ES256", "x5c": [leaf, intermediate, root]}`.
    package func sign(payload: [String: JSONValue]) throws(DevelopmentAuthorityError) -> String {
        let header: [String: JSONValue] = ["alg": "ES256", "x5c": .array(x5c.map(JSONValue.string))]
        do {
            return try CompactJWS.signES256(header: header, payload: payload, key: leafKey)
        } catch {
            throw DevelopmentAuthorityError(.signingFailed, "the payload could not be encoded or signed")
        }
    }
}
