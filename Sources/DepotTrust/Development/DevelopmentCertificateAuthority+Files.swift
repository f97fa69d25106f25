import Crypto
import DepotSystem
import Foundation
import SwiftASN1
import X509

extension DevelopmentCertificateAuthority {
    /// The files a development authority lives in, inside its directory.
    package enum FileName {
        /// The root certificate (PEM): the one to trust.
        package static let root = "root.pem"
        /// The intermediate certificate (PEM).
        package static let intermediate = "intermediate.pem"
        /// The leaf certificate (PEM).
        package static let leaf = "leaf.pem"
        /// The leaf's P-256 private key (PKCS#8 PEM), mode 0600.
        package static let leafKey = "leaf-key.pem"
    }

    /// Loads the authority kept in `directory` (e.g. `<data>/dev-ca`), or makes and stores one when there is none.
    ///
    /// A new authority is written whole into a temporary sibling directory (files fsynced, the key 0600, the
    /// directory 0700) and renamed into place, so a crash never leaves half an authority behind, and of two
    /// processes making one at the same time both end up using the one that won the rename.
    package static func loadOrCreate(
        directory: String
    ) throws(DevelopmentAuthorityError)
        -> DevelopmentCertificateAuthority
    {
        var directory = directory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        if FileManager.default.fileExists(atPath: directory + "/" + FileName.root) {
            return try load(directory: directory)
        }
        let authority = try issue()
        let parentPath = (directory as NSString).deletingLastPathComponent
        let parent = parentPath.isEmpty ? "." : parentPath
        let name = (directory as NSString).lastPathComponent
        let staging = parent + "/.\(name)-\(UInt64.random(in: 0 ... .max)).tmp"
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw DevelopmentAuthorityError(.storageFailed, "the data directory could not be created")
        }
        do {
            try POSIX.createDirectory(staging, mode: 0o700)
            for (name, text, mode) in try authority.files() {
                try POSIX.createFile(staging + "/" + name, bytes: Array(text.utf8), mode: mode)
            }
            try POSIX.syncDirectory(staging)
            try POSIX.renameFile(staging, directory)
            // The authority is in place; a failed fsync of the parent only weakens durability across a crash,
            // after which the next start simply makes a new one.
            try? POSIX.syncDirectory(parent)
            return authority
        } catch let failure as SystemCallError {
            try? FileManager.default.removeItem(atPath: staging)
            if failure.call == "rename", failure.code == EEXIST || failure.code == ENOTEMPTY {
                // Another process stored one first (or the directory holds something else): use what is there.
                return try load(directory: directory)
            }
            throw DevelopmentAuthorityError(
                .storageFailed,
                "the development certificate authority could not be stored (\(failure.call) failed)")
        } catch let error as DevelopmentAuthorityError {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw DevelopmentAuthorityError(.storageFailed, "the development certificate authority could not be stored")
        }
    }

    /// Reads the four files of an authority and checks that they form one chain with the key.
    static func load(directory: String) throws(DevelopmentAuthorityError) -> DevelopmentCertificateAuthority {
        func read(_ name: String) throws(DevelopmentAuthorityError) -> String {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
                throw DevelopmentAuthorityError(.filesInvalid, "\(name) is missing or unreadable")
            }
            return String(decoding: data, as: UTF8.self)
        }
        func certificate(_ name: String) throws(DevelopmentAuthorityError) -> Certificate {
            let text = try read(name)
            guard let certificate = try? Certificate(pemEncoded: text) else {
                throw DevelopmentAuthorityError(.filesInvalid, "\(name) is not a PEM certificate")
            }
            return certificate
        }
        let root = try certificate(FileName.root)
        let intermediate = try certificate(FileName.intermediate)
        let leaf = try certificate(FileName.leaf)
        let keyText = try read(FileName.leafKey)
        guard let leafKey = try? P256.Signing.PrivateKey(pemRepresentation: keyText) else {
            throw DevelopmentAuthorityError(.filesInvalid, "\(FileName.leafKey) is not a P-256 private key in PEM")
        }
        return try DevelopmentCertificateAuthority(root: root, intermediate: intermediate, leaf: leaf, leafKey: leafKey)
    }

    /// The files to store: name, PEM text, mode.
    private func files() throws -> [(String, String, mode_t)] {
        [
            (FileName.leafKey, leafKey.pemRepresentation + "\n", 0o600),
            (FileName.leaf, try leaf.serializeAsPEM().pemString + "\n", 0o644),
            (FileName.intermediate, try intermediate.serializeAsPEM().pemString + "\n", 0o644),
            (FileName.root, try root.serializeAsPEM().pemString + "\n", 0o644),
        ]
    }
}
