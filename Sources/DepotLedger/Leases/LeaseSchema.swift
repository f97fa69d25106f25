/// The `leases` table (migration 10), with the engine's integer type.
enum LeaseSchema {
    static func statements(integer: String) -> [String] {
        [
            """
            CREATE TABLE leases (
                name TEXT NOT NULL PRIMARY KEY,
                owner TEXT NOT NULL,
                expires_at \(integer) NOT NULL
            )
            """
        ]
    }
}
