/// The catalog's and the publisher keys' tables, the same on both engines but for the integer type
/// (SQLite `INTEGER`, PostgreSQL `BIGINT`): SQLite migration `v3-catalog`, PostgreSQL version 3 `catalog`.
enum CatalogSchema {
    static func statements(integer: String) -> [String] {
        [
            """
            CREATE TABLE catalog_products (
                id TEXT NOT NULL PRIMARY KEY,
                type TEXT NOT NULL,
                title TEXT NOT NULL,
                period_days \(integer),
                created_at \(integer) NOT NULL,
                updated_at \(integer) NOT NULL
            )
            """,
            // One row per product × content × version; a content id belongs to one product.
            """
            CREATE TABLE catalog_versions (
                product_id TEXT NOT NULL REFERENCES catalog_products(id),
                content_id TEXT NOT NULL,
                version TEXT NOT NULL,
                digest TEXT NOT NULL,
                size \(integer) NOT NULL,
                unpacked_size \(integer) NOT NULL,
                published_at \(integer) NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('staged', 'published', 'superseded', 'failed')),
                failure_reason TEXT,
                staged_at \(integer) NOT NULL,
                activated_at \(integer),
                PRIMARY KEY (product_id, content_id, version)
            )
            """,
            "CREATE INDEX catalog_versions_by_content ON catalog_versions(content_id)",
            """
            CREATE TABLE catalog_deltas (
                product_id TEXT NOT NULL,
                content_id TEXT NOT NULL,
                base_version TEXT NOT NULL,
                target_version TEXT NOT NULL,
                digest TEXT NOT NULL,
                size \(integer) NOT NULL,
                PRIMARY KEY (product_id, content_id, base_version, target_version)
            )
            """,
            // One row: the revision every catalog change increments (instances poll it), and when a change
            // apps can see (publish, rollback, product edit) last happened.
            """
            CREATE TABLE catalog_revision (
                id \(integer) NOT NULL PRIMARY KEY CHECK (id = 1),
                revision \(integer) NOT NULL,
                changed_at \(integer) NOT NULL
            )
            """,
            "INSERT INTO catalog_revision (id, revision, changed_at) VALUES (1, 0, 0)",
            // Keys are stored as the hex SHA-256 of their text; product prefixes one per line.
            """
            CREATE TABLE publisher_keys (
                id TEXT NOT NULL PRIMARY KEY,
                publisher TEXT NOT NULL,
                product_prefixes TEXT NOT NULL,
                key_sha256 TEXT NOT NULL UNIQUE,
                created_at \(integer) NOT NULL,
                revoked_at \(integer)
            )
            """,
        ]
    }
}
