/// What an instance sharing bundles through an object store owes it or lacks from it: while either count is above
/// zero, the instance is degraded (`/readyz` answers 503 and says which).
struct ReplicaBacklog: Sendable, Equatable {
    /// The catalog's bundles that could not be fetched from the object store at the last attempt.
    var unfetchable: Int
    /// The bundles built here that the object store has not taken yet (built while it could not be reached).
    var unsent: Int
}
