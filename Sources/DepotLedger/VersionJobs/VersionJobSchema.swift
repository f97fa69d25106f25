/// The version jobs' table, the same on both engines but for the integer type (SQLite `INTEGER`,
/// PostgreSQL `BIGINT`): SQLite migration `v5-version-jobs`, PostgreSQL version 5 `version-jobs`.
/// `content_key` is the declared content id or '' when none was declared, so that the key is never NULL.
enum VersionJobSchema {
    static func statements(integer: String) -> [String] {
        [
            """
            CREATE TABLE version_jobs (
                id TEXT NOT NULL PRIMARY KEY,
                product_id TEXT NOT NULL,
                version TEXT NOT NULL,
                content_key TEXT NOT NULL,
                upload_id TEXT NOT NULL,
                publisher TEXT NOT NULL,
                sha256 TEXT NOT NULL,
                published_at \(integer),
                state TEXT NOT NULL CHECK (state IN ('received', 'validating', 'bundling', 'staged', 'failed')),
                failure_reason TEXT,
                created_at \(integer) NOT NULL,
                updated_at \(integer) NOT NULL
            )
            """,
            "CREATE INDEX version_jobs_by_key ON version_jobs(product_id, version, content_key)",
            "CREATE INDEX version_jobs_by_state ON version_jobs(state, updated_at)",
        ]
    }
}
