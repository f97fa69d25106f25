extension ConsoleFiles {
    /// `zip.js`: A folder packed into a zip of stored entries, as `DepotArchives` reads it.
    static let zipJS = #"""
        // Packs a dropped folder into a zip archive of stored (uncompressed) entries, as Depot's unpacker reads it.
        // The archive is a Blob made of the headers and the files themselves: nothing is copied into memory but
        // the piece being read for its CRC-32. The same files give the same bytes (sorted names, each file's own
        // time), so an upload of the folder resumes after a reload.
        "use strict";
        (function (global) {
          const CRC_TABLE = (() => {
            const table = new Uint32Array(256);
            for (let n = 0; n < 256; n++) {
              let c = n;
              for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
              table[n] = c >>> 0;
            }
            return table;
          })();

          function crc32Update(crc, bytes) {
            let c = crc ^ 0xffffffff;
            for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
            return (c ^ 0xffffffff) >>> 0;
          }

          async function crc32OfBlob(blob, onBytes) {
            const piece = 4 << 20;
            let crc = 0;
            for (let at = 0; at < blob.size; at += piece) {
              const bytes = new Uint8Array(await blob.slice(at, at + piece).arrayBuffer());
              crc = crc32Update(crc, bytes);
              onBytes(bytes.length);
            }
            return crc;
          }

          // MS-DOS time and date of a moment (local time, as zip tools write it), 1980 at the earliest.
          function dosTime(ms) {
            const d = new Date(ms);
            const year = Math.max(1980, d.getFullYear());
            const time = (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1);
            const date = ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate();
            return { time, date };
          }

          const LIMIT = 0xffffffff;

          // `entries`: [{path: "dir/name.ext", file: File}]. `onProgress(done, total)` while CRCs are computed.
          async function zipFolder(entries, onProgress) {
            const sorted = entries.slice().sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
            if (sorted.length === 0) throw new Error("the folder holds no files");
            if (sorted.length > 65535) throw new Error("the folder holds more than 65,535 files: send an archive");
            const total = sorted.reduce((sum, e) => sum + e.file.size, 0);
            const encoder = new TextEncoder();
            const parts = [];
            const central = [];
            let offset = 0;
            let done = 0;
            for (const entry of sorted) {
              const name = encoder.encode(entry.path);
              if (entry.file.size >= LIMIT || offset >= LIMIT) {
                throw new Error("the folder is larger than 4 GiB: send a zip or tar archive of it instead");
              }
              const crc = await crc32OfBlob(entry.file, (n) => { done += n; onProgress(done, total); });
              const { time, date } = dosTime(entry.file.lastModified || 0);
              const local = new DataView(new ArrayBuffer(30));
              local.setUint32(0, 0x04034b50, true);
              local.setUint16(4, 20, true); // version needed: 2.0
              local.setUint16(6, 0x0800, true); // names in UTF-8
              local.setUint16(8, 0, true); // stored
              local.setUint16(10, time, true);
              local.setUint16(12, date, true);
              local.setUint32(14, crc, true);
              local.setUint32(18, entry.file.size, true);
              local.setUint32(22, entry.file.size, true);
              local.setUint16(26, name.length, true);
              local.setUint16(28, 0, true);
              parts.push(local.buffer, name, entry.file);
              const record = new DataView(new ArrayBuffer(46));
              record.setUint32(0, 0x02014b50, true);
              record.setUint16(4, (3 << 8) | 20, true); // made by Unix, 2.0
              record.setUint16(6, 20, true);
              record.setUint16(8, 0x0800, true);
              record.setUint16(10, 0, true);
              record.setUint16(12, time, true);
              record.setUint16(14, date, true);
              record.setUint32(16, crc, true);
              record.setUint32(20, entry.file.size, true);
              record.setUint32(24, entry.file.size, true);
              record.setUint16(28, name.length, true);
              record.setUint32(38, (0o100644 << 16) >>> 0, true); // a regular file, rw-r--r--
              record.setUint32(42, offset, true);
              central.push(record.buffer, name);
              offset += 30 + name.length + entry.file.size;
            }
            const directorySize = central.reduce((sum, p) => sum + p.byteLength, 0);
            if (offset + directorySize >= LIMIT) {
              throw new Error("the folder is larger than 4 GiB: send a zip or tar archive of it instead");
            }
            const end = new DataView(new ArrayBuffer(22));
            end.setUint32(0, 0x06054b50, true);
            end.setUint16(8, sorted.length, true);
            end.setUint16(10, sorted.length, true);
            end.setUint32(12, directorySize, true);
            end.setUint32(16, offset, true);
            onProgress(total, total);
            return new Blob(parts.concat(central, [end.buffer]), { type: "application/zip" });
          }

          // The files under a dropped folder entry (FileSystemDirectoryEntry), with paths relative to it.
          async function filesOfEntry(root) {
            const out = [];
            async function walk(entry, prefix) {
              if (entry.isFile) {
                const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
                if (entry.name !== ".DS_Store") out.push({ path: prefix + entry.name, file });
                return;
              }
              if (entry.name === "__MACOSX") return;
              const reader = entry.createReader();
              for (;;) {
                const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
                if (batch.length === 0) break;
                for (const child of batch) await walk(child, entry === root ? prefix : prefix + entry.name + "/");
              }
            }
            await walk(root, "");
            return out;
          }

          // The files an <input webkitdirectory> gave, with the chosen folder's own name taken off their paths.
          function filesOfDirectoryInput(fileList) {
            const out = [];
            for (const file of fileList) {
              const path = file.webkitRelativePath || file.name;
              const inner = path.split("/").slice(1).join("/") || file.name;
              if (file.name === ".DS_Store" || inner.startsWith("__MACOSX/")) continue;
              out.push({ path: inner, file });
            }
            return out;
          }

          global.DepotZip = { zipFolder, filesOfEntry, filesOfDirectoryInput, crc32Update };
        })(window);
        """#
}
