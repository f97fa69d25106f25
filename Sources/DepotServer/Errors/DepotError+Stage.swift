import DepotAPI
import DepotServices

extension StageError {
    /// The error as a client sees it: the table's code of the same name.
    package var depotError: DepotError {
        let code: ErrorCode =
            switch code {
            case .invalidPack: .invalidPack
            case .packMismatch: .packMismatch
            case .unknownProduct: .unknownProduct
            case .versionExists: .versionExists
            case .contentOwned: .contentOwnedByOtherProduct
            case .contentOutOfScope: .contentOutOfScope
            case .unavailable: .unavailable
            }
        return DepotError(code, message)
    }
}
