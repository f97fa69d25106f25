extension ConsoleFiles {
    /// `tus.js`: The tus 1.0 client: creation, HEAD, PATCH, resuming from the address kept in localStorage.
    static let tusJS = #"""
        // Depot's tus 1.0 client: creation, HEAD for the offset, PATCH of application/offset+octet-stream pieces.
        // The upload's address is kept in localStorage under the file's fingerprint (name, size, time), so choosing
        // the same file again after a reload, or after the connection was cut, goes on from the offset the server
        // holds. The SHA-256 of the whole file is computed over the bytes the server confirmed, for the version request.
        "use strict";
        (function (global) {
          const ENDPOINT = "/v1/publisher/uploads";
          const STORE_PREFIX = "depot.console.upload:";
          const PIECE = 8 << 20;

          function base64(text) {
            const bytes = new TextEncoder().encode(text);
            let binary = "";
            for (const b of bytes) binary += String.fromCharCode(b);
            return btoa(binary);
          }

          class TusError extends Error {
            constructor(message, status, retry) {
              super(message);
              this.status = status;
              this.retry = retry; // whether trying again may help
            }
          }

          // Uploads that were started and not turned into a version: [{fingerprint, name, size, url, offset, ...}].
          function pendingUploads() {
            const list = [];
            for (let i = 0; i < localStorage.length; i++) {
              const key = localStorage.key(i);
              if (!key || !key.startsWith(STORE_PREFIX)) continue;
              let record = null;
              try { record = JSON.parse(localStorage.getItem(key)); } catch (_) { record = null; }
              // An upload the server has expired (Upload-Expires) cannot be resumed: forget it.
              if (!record || (record.expiresAt && Date.parse(record.expiresAt) < Date.now())) {
                localStorage.removeItem(key);
                i -= 1;
                continue;
              }
              list.push(record);
            }
            return list;
          }

          class TusUpload {
            // options: {blob, name, fingerprint, token, details (kept with the address), onProgress(state), onStatus(text)}
            constructor(options) {
              this.blob = options.blob;
              this.name = options.name;
              this.fingerprint = options.fingerprint;
              this.token = options.token;
              this.details = options.details || {};
              this.onProgress = options.onProgress || (() => {});
              this.onStatus = options.onStatus || (() => {});
              this.offset = 0;
              this.url = null;
              this.hasher = new global.DepotSha256();
              this.hashed = 0;
              this.samples = [];
              this.stopped = false;
              this.request = null;
              this.retries = 0;
              this.resumedFrom = null; // the offset an earlier upload was resumed at
            }

            get storeKey() { return STORE_PREFIX + this.fingerprint; }

            remember() {
              const record = Object.assign({}, this.details, {
                fingerprint: this.fingerprint, name: this.name, size: this.blob.size, url: this.url, offset: this.offset,
                expiresAt: this.expiresAt, savedAt: Date.now(),
              });
              localStorage.setItem(this.storeKey, JSON.stringify(record));
            }

            forget() { localStorage.removeItem(this.storeKey); }

            headers(extra) {
              return Object.assign({ "Tus-Resumable": "1.0.0", Authorization: "Bearer " + this.token }, extra || {});
            }

            // Runs the upload to its end; resolves with {upload: id, sha256: hex}.
            async start() {
              this.stopped = false;
              const saved = localStorage.getItem(this.storeKey);
              let record = null;
              try { record = JSON.parse(saved); } catch (_) { record = null; }
              if (record && record.size === this.blob.size && record.url) {
                this.url = record.url;
                this.onStatus("Resuming an earlier upload of this file");
                try {
                  this.offset = await this.resumeOffset();
                  this.resumedFrom = this.offset;
                } catch (error) {
                  if (!(error instanceof TusError) || error.retry) throw error;
                  this.url = null; // gone or expired: a new upload
                  this.forget();
                }
              }
              if (!this.url) {
                await this.create();
                this.offset = 0;
              }
              this.remember();
              await this.hashTo(this.offset);
              this.report();
              while (this.offset < this.blob.size) {
                if (this.stopped) throw new TusError("The upload was paused", 0, true);
                try {
                  this.offset = await this.patch();
                  this.retries = 0;
                  this.remember();
                  await this.hashTo(this.offset);
                } catch (error) {
                  if (!(error instanceof TusError) || !error.retry || this.stopped) throw error;
                  await this.recover(error);
                }
              }
              return { upload: this.url.split("/").pop(), sha256: this.hasher.hex() };
            }

            // The offset of the upload named by `url`, asked again while the server is unreachable or busy.
            async resumeOffset() {
              try {
                return await this.head();
              } catch (error) {
                if (!(error instanceof TusError) || !error.retry) throw error;
                await this.recover(error);
                return this.offset;
              }
            }

            // After a failed PATCH: waits (1 s, 2 s, 4 s ... 30 s), then asks the server for its offset.
            async recover(error) {
              for (;;) {
                this.retries += 1;
                if (this.retries > 12) throw new TusError("The connection was lost: " + error.message, error.status, true);
                const wait = Math.min(30, 2 ** (this.retries - 1));
                this.onStatus("Connection lost (" + error.message + "); trying again in " + wait + " s");
                await new Promise((resolve) => setTimeout(resolve, wait * 1000));
                if (this.stopped) throw new TusError("The upload was paused", 0, true);
                try {
                  this.offset = await this.head();
                  this.onStatus("Resumed at " + this.offset + " bytes");
                  return;
                } catch (again) {
                  if (!(again instanceof TusError) || !again.retry) throw again;
                  error = again;
                }
              }
            }

            stop() {
              this.stopped = true;
              if (this.request) this.request.abort();
            }

            async create() {
              const response = await fetch(ENDPOINT, {
                method: "POST",
                headers: this.headers({
                  "Upload-Length": String(this.blob.size),
                  "Upload-Metadata": "filename " + base64(this.name),
                }),
              });
              if (response.status !== 201) throw await TusUpload.failure(response, "The upload could not be made");
              this.expiresAt = response.headers.get("Upload-Expires") || undefined;
              const location = response.headers.get("Location");
              if (!location) throw new TusError("The server named no address for the upload", 201, false);
              this.url = new URL(location, window.location.href).pathname;
            }

            async head() {
              let response;
              try {
                response = await fetch(this.url, { method: "HEAD", headers: this.headers(), cache: "no-store" });
              } catch (error) {
                throw new TusError("the server cannot be reached", 0, true);
              }
              if (response.status === 404 || response.status === 410) {
                throw new TusError("the earlier upload is gone", response.status, false);
              }
              if (!response.ok) throw await TusUpload.failure(response, "The upload's offset could not be read");
              this.expiresAt = response.headers.get("Upload-Expires") || this.expiresAt;
              const offset = Number(response.headers.get("Upload-Offset"));
              if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.blob.size) {
                throw new TusError("the server answered an offset that is not a number of bytes", response.status, false);
              }
              return offset;
            }

            // Sends the next piece with XMLHttpRequest, whose upload events tell the progress within the piece.
            patch() {
              const start = this.offset;
              const piece = this.blob.slice(start, Math.min(this.blob.size, start + PIECE));
              return new Promise((resolve, reject) => {
                const xhr = new XMLHttpRequest();
                this.request = xhr;
                xhr.open("PATCH", this.url);
                const headers = this.headers({ "Upload-Offset": String(start), "Content-Type": "application/offset+octet-stream" });
                for (const name of Object.keys(headers)) xhr.setRequestHeader(name, headers[name]);
                xhr.upload.onprogress = (event) => this.report(start + event.loaded);
                xhr.onerror = () => reject(new TusError("the connection failed", 0, true));
                xhr.onabort = () => reject(new TusError("the upload was paused", 0, true));
                xhr.ontimeout = () => reject(new TusError("the server took too long", 0, true));
                xhr.onload = () => {
                  this.request = null;
                  if (xhr.status === 204) {
                    this.expiresAt = xhr.getResponseHeader("Upload-Expires") || this.expiresAt;
                    const offset = Number(xhr.getResponseHeader("Upload-Offset"));
                    if (Number.isSafeInteger(offset) && offset > start && offset <= this.blob.size) {
                      resolve(offset);
                      return;
                    }
                    reject(new TusError("the server answered a wrong offset", 204, true));
                    return;
                  }
                  const message = TusUpload.message(xhr.status, xhr.responseText);
                  const retry = xhr.status === 409 || xhr.status === 423 || xhr.status === 408 || xhr.status >= 500;
                  reject(new TusError(message, xhr.status, retry));
                };
                xhr.send(piece);
              });
            }

            // Hashes the file up to `offset` (the bytes the server holds).
            async hashTo(offset) {
              while (this.hashed < offset) {
                const end = Math.min(offset, this.hashed + PIECE);
                const bytes = new Uint8Array(await this.blob.slice(this.hashed, end).arrayBuffer());
                this.hasher.update(bytes);
                this.hashed = end;
              }
            }

            // Progress: bytes, rate over the last ten seconds, and the time left at that rate.
            report(sent) {
              const now = Date.now();
              const bytes = sent === undefined ? this.offset : sent;
              this.samples.push({ at: now, bytes });
              while (this.samples.length > 2 && now - this.samples[0].at > 10000) this.samples.shift();
              const first = this.samples[0];
              const seconds = (now - first.at) / 1000;
              const rate = seconds > 0.5 ? Math.max(0, (bytes - first.bytes) / seconds) : 0;
              const left = rate > 0 ? (this.blob.size - bytes) / rate : null;
              this.onProgress({ sent: bytes, total: this.blob.size, rate, secondsLeft: left });
            }

            static message(status, text) {
              try {
                const body = JSON.parse(text);
                if (body && body.error && body.error.message) return body.error.message + " (" + body.error.code + ")";
              } catch (_) { /* not JSON */ }
              return "the server answered " + status;
            }

            static async failure(response, prefix) {
              const text = await response.text().catch(() => "");
              const retry = response.status >= 500 || response.status === 423;
              return new TusError(prefix + ": " + TusUpload.message(response.status, text), response.status, retry);
            }
          }

          global.DepotTus = { TusUpload, TusError, pendingUploads, STORE_PREFIX };
        })(window);
        """#
}
