/// The `upload_parts` table (migration 11), with the engine's integer type: where each counted run of an upload's
/// bytes is kept when uploads live in an object store (one object per run, named by `object_key`).
enum UploadPartSchema {
    static func statements(integer: String) -> [String] {
        [
            """
            CREATE TABLE upload_parts (
                upload_id TEXT NOT NULL,
                start_offset \(integer) NOT NULL,
                end_offset \(integer) NOT NULL,
                object_key TEXT NOT NULL,
                PRIMARY KEY (upload_id, start_offset)
            )
            """
        ]
    }
}
