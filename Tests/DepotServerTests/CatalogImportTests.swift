import DepotCore
import DepotServer
import Foundation
import Testing

/// What the content import refuses.
@Suite("Catalog import")
struct CatalogImportTests {
    @Test func aContentIdIsOwnedByOneProduct() async throws {
        let cheap = LiveServer.PackSpec(
            directory: "cheap/shared", productId: "com.example.level1", contentId: "com.example.shared",
            files: ["a.txt": Array("cheap".utf8)])
        let premium = LiveServer.PackSpec(
            directory: "premium/shared", productId: "com.example.premium", contentId: "com.example.shared",
            files: ["a.txt": Array("premium".utf8)])
        try await LiveServer.with(packs: [cheap, premium]) { server in
            let shared = server.application.catalog.versions.filter { $0.contentId == "com.example.shared" }
            #expect(shared.map(\.productId) == ["com.example.level1"])
            // The premium product delivers nothing, and an app claiming the shared content installed gets no delta of it.
            #expect(server.application.catalog.currentContents(of: "com.example.premium", at: Int64(Date().timeIntervalSince1970)).isEmpty)
            #expect(server.application.catalog.deltas.isEmpty)
        }
    }
}
