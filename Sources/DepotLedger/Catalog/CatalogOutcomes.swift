import DepotCore

/// What recording a version did.
package enum AddVersionOutcome: Sendable, Equatable {
    /// The version is new and now recorded.
    case added(CatalogVersion)
    /// The same pack at the same version was already recorded: nothing changed.
    case unchanged(CatalogVersion)
    /// Another pack is recorded at this version of this content: nothing changed.
    case conflict(existing: CatalogVersion)
    /// The content id already names another product's content: nothing changed.
    case contentOwnedByOtherProduct(String)
    /// The product is not in the catalog.
    case unknownProduct
}

/// What publishing a version did.
package enum PublishOutcome: Sendable, Equatable {
    /// The version is published; `rollback` when it went back to an older one, `changed` false when it
    /// already was the only published version.
    case published(CatalogVersion, rollback: Bool, changed: Bool)
    /// The content has no such version.
    case unknownVersion
    /// The version failed and cannot be published.
    case failedVersion
    /// The release cannot be made (`PublishPlan.Refusal`: nothing to roll out from, not newer, shrinking, not
    /// rolling out); nothing changed.
    case refused(PublishPlan.Refusal)
}

/// What deleting a version did.
package enum DeleteVersionOutcome: Sendable, Equatable {
    /// It is gone.
    case deleted
    /// No such version.
    case unknownVersion
    /// It was published once: published versions are kept for good (grants handed out for them keep working).
    case wasPublished
}

/// What writing a product did.
package enum ProductWriteOutcome: Sendable, Equatable {
    /// A new product.
    case created
    /// An existing product changed.
    case updated
    /// The product already read like this: nothing changed.
    case unchanged
    /// (Import only) the ledger holds the product with other values; the ledger's record was kept.
    case kept(CatalogProduct)
    /// The write would change the type or period of a product that has a version or a transaction: what was
    /// sold keeps its terms (App Store Connect never changes a product's type either). Nothing changed.
    case typeLocked(CatalogProduct)
}
