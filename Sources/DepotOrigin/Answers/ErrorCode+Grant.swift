import DepotAPI
import DepotTrust

extension ErrorCode {
    /// The code of a refused grant, listed under the grant error's own name; a code the table lacks is
    /// answered as `grant-malformed`.
    package init(grant code: GrantError.Code) {
        self = ErrorCode(rawValue: code.description) ?? .grantMalformed
    }
}
