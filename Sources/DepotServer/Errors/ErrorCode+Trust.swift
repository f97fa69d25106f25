import DepotAPI
import DepotTrust

extension ErrorCode {
    /// The code of a refused piece of signed App Store data: the verifier's code, which the table lists under
    /// the same name (`ErrorTableTests` checks every one); a code it lacks is answered as `signature-invalid`.
    init(verification code: AppStoreVerificationError.Code) {
        self = ErrorCode(rawValue: code.description) ?? .signatureInvalid
    }
}
