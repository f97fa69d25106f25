import CryptoExtras
import DepotSystem
import Foundation
import SwiftASN1
import X509

extension DevelopmentReceiptAuthority {
    /// Loads the receipt authority kept in `directory` (e.g. `<data>/dev-receipt-ca`: `root.pem`,
    /// `intermediate.pem`, `leaf.pem` and the leaf's RSA key `leaf-key.pem`, mode 0600), or makes and stores one
    /// when there is none, written whole into a temporary sibling and renamed into place as the JWS authority is.
    package static func loadOrCreate(directory: String) throws(DevelopmentAuthorityError) -> DevelopmentReceiptAuthority {
        var directory = directory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        typealias FileName = DevelopmentCertificateAuthority.FileName
        if FileManager.default.fileExists(atPath: directory + "/" + FileName.root) { return try load(directory: directory) }
        let authority = try issue()
        let parentPath = (directory as NSString).deletingLastPathComponent
        let parent = parentPath.isEmpty ? "." : parentPath
        let staging = parent + "/.\((directory as NSString).lastPathComponent)-\(UInt64.random(in: 0 ... .max)).tmp"
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            try POSIX.createDirectory(staging, mode: 0o700)
            let files: [(String, String, mode_t)] = [
                (FileName.leafKey, authority.leafKey.pemRepresentation + "\n", 0o600),
                (FileName.leaf, try authority.leaf.serializeAsPEM().pemString + "\n", 0o644),
                (FileName.intermediate, try authority.intermediate.serializeAsPEM().pemString + "\n", 0o644),
                (FileName.root, try authority.root.serializeAsPEM().pemString + "\n", 0o644),
            ]
            for (name, text, mode) in files { try POSIX.createFile(staging + "/" + name, bytes: Array(text.utf8), mode: mode) }
            try POSIX.syncDirectory(staging)
            try POSIX.renameFile(staging, directory)
            try? POSIX.syncDirectory(parent)
            return authority
        } catch let failure as SystemCallError {
            try? FileManager.default.removeItem(atPath: staging)
            if failure.call == "rename", failure.code == EEXIST || failure.code == ENOTEMPTY { return try load(directory: directory) }
            throw DevelopmentAuthorityError(
                .storageFailed, "the development receipt authority could not be stored (\(failure.call) failed)")
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw DevelopmentAuthorityError(.storageFailed, "the development receipt authority could not be stored")
        }
    }

    /// Reads the four files of a receipt authority and checks that they form one chain with the key.
    static func load(directory: String) throws(DevelopmentAuthorityError) -> DevelopmentReceiptAuthority {
        typealias FileName = DevelopmentCertificateAuthority.FileName
        func read(_ name: String) throws(DevelopmentAuthorityError) -> String {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw DevelopmentAuthorityError(.filesInvalid, "receipt \(name) is missing or unreadable")
            }
            return String(decoding: data, as: UTF8.self)
        }
        func certificate(_ name: String) throws(DevelopmentAuthorityError) -> Certificate {
            guard let certificate = try? Certificate(pemEncoded: try read(name)) else {
                throw DevelopmentAuthorityError(.filesInvalid, "receipt \(name) is not a PEM certificate")
            }
            return certificate
        }
        guard let leafKey = try? _RSA.Signing.PrivateKey(pemRepresentation: try read(FileName.leafKey)) else {
            throw DevelopmentAuthorityError(.filesInvalid, "receipt \(FileName.leafKey) is not an RSA private key in PEM")
        }
        return try DevelopmentReceiptAuthority(
            root: try certificate(FileName.root), intermediate: try certificate(FileName.intermediate),
            leaf: try certificate(FileName.leaf), leafKey: leafKey)
    }
}
