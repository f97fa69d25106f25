import DepotBundles
import Foundation

// bundler PACK_DIR OUT.zip [--level N] [--threads N] [--base BASE_PACK_DIR]
//
// Writes PACK_DIR's bundle (or, with --base, the delta bundle from BASE_PACK_DIR to PACK_DIR) to OUT.zip
// with Depot's BundleWriter, as the server's store does, and prints "digest size seconds".
var arguments = Array(CommandLine.arguments.dropFirst())
var level = BundleWriter.defaultCompressionLevel
var threads = BundleWriter.defaultParallelism
var base: String?
var positional: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--level": level = Int(arguments.removeFirst())!
    case "--threads": threads = Int(arguments.removeFirst())!
    case "--base": base = arguments.removeFirst()
    default: positional.append(argument)
    }
}
guard positional.count == 2 else {
    let usage = "usage: bundler PACK_DIR OUT.zip [--level N] [--threads N] [--base BASE_PACK_DIR]\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
let limits = PackLimits(maxFileCount: 1_000_000, maxFileSize: 1 << 40, maxTotalSize: 1 << 40)
let start = Date()
let pack = try PackReader.read(directory: positional[0], limits: limits)
let writer = BundleWriter(compressionLevel: level, parallelism: threads)
let record: BundleRecord
if let base {
    record = try writer.writeDelta(from: PackReader.read(directory: base, limits: limits), to: pack, at: positional[1])
} else {
    record = try writer.write(pack, to: positional[1])
}
print(record.digest, record.size, String(format: "%.3f", Date().timeIntervalSince(start)))
