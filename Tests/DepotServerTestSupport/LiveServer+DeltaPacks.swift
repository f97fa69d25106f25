extension LiveServer.PackSpec {
    /// Two versions of level 1 that a delta joins: a file changed, one added, one removed, one large one kept.
    static let levelOneDeltaPair: [LiveServer.PackSpec] = {
        let same = Array(String(repeating: "unchanged level data ", count: 3000).utf8)
        return [
            LiveServer.PackSpec(
                directory: "game/level1-1.0", productId: "com.example.level1", version: "1.0",
                publishedAt: "2026-03-01T09:00:00Z",
                files: ["maps/cave.json": Array("{\"tiles\": [[0,1]]}".utf8), "big.txt": same, "old.txt": Array("gone".utf8)]),
            LiveServer.PackSpec(
                directory: "game/level1-1.1", productId: "com.example.level1", version: "1.1",
                publishedAt: "2026-05-01T09:00:00Z",
                files: ["maps/cave.json": Array("{\"tiles\": [[1,1]]}".utf8), "big.txt": same, "new.txt": Array("added".utf8)]),
        ]
    }()
}
