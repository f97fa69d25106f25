extension ConsoleFiles {
    /// `upload.js`: The upload panel: a dropped or chosen folder or archive, its upload, the version job followed.
    static let uploadJS = #"""
        // The upload panel: a folder or an archive, dropped or chosen, sent with the tus client, then made a version
        // whose job is followed (validating, bundling, staged or failed) without reloading.
        "use strict";
        (function (global) {
          const { el, clear, bytes, duration } = global.DepotDom;
          const { api } = global.DepotApi;
          const { TusUpload, pendingUploads } = global.DepotTus;

          function isoUTC(localValue) {
            if (!localValue) return undefined;
            const date = new Date(localValue);
            if (isNaN(date)) return undefined;
            return date.toISOString().replace(/\.\d{3}Z$/, "Z");
          }

          class Upload {
            constructor(app) {
              this.app = app;
              this.source = null; // {kind: "file"|"folder", name, size, fingerprint, file | entries}
              this.running = null;
            }

            // The panel for `product`; the same one again while the same product is shown, so that a refresh of the
            // versions keeps what was chosen and the upload's progress.
            panel(product) {
              if (this.node && this.product && this.product.id === product.id) {
                this.product = product;
                return this.node;
              }
              this.product = product;
              this.source = null;
              const version = el("input", { id: "upload-version", required: true, placeholder: "1.1", maxLength: 64 });
              const contentId = el("input", { id: "upload-content-id", placeholder: product.id });
              const schedule = el("input", { id: "upload-schedule", type: "datetime-local" });
              const archive = el("input", { id: "upload-archive", type: "file", accept: ".zip,.tar,.tgz,.tar.gz,application/zip" });
              const folder = el("input", { id: "upload-folder", type: "file", webkitdirectory: true, multiple: true });
              this.chosen = el("p", { id: "upload-chosen", className: "muted" }, "Nothing chosen yet.");
              const zone = el("div", { id: "drop-zone", className: "drop-zone", tabIndex: 0 },
                el("p", {}, "Drop a folder or a zip, tar or tar.gz archive here"),
                el("div", { className: "pickers" },
                  el("label", {}, "Archive ", archive),
                  el("label", {}, "Folder ", folder)),
                this.chosen);
              zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
              zone.addEventListener("dragleave", () => zone.classList.remove("over"));
              zone.addEventListener("drop", (event) => { event.preventDefault(); zone.classList.remove("over"); this.dropped(event); });
              archive.addEventListener("change", () => { if (archive.files[0]) this.chooseFile(archive.files[0]); });
              folder.addEventListener("change", () => this.chooseFolderList(folder.files));
              this.resumableBox = el("div", { className: "resumable", id: "upload-resumable" });
              this.progress = el("progress", { id: "upload-progress", max: 1, value: 0 });
              this.status = el("p", { id: "upload-status", role: "status" });
              this.rate = el("span", { id: "upload-rate" }, "—");
              this.left = el("span", { id: "upload-left" }, "—");
              const start = el("button", { type: "submit", id: "upload-start" }, "Upload and stage");
              const pause = el("button", { type: "button", id: "upload-pause", onclick: () => this.pause() }, "Pause");
              const form = el("form", { className: "upload", id: "upload-form" },
                el("h3", {}, "New version"),
                el("div", { className: "row" },
                  el("label", {}, "Version", version),
                  el("label", {}, "Content id (optional)", contentId),
                  el("label", {}, "Offer from (optional; empty: when published)", schedule)),
                zone,
                this.resumableBox,
                el("div", { className: "row" }, start, pause),
                this.progress,
                el("p", { className: "muted" }, "Rate ", this.rate, " · time left ", this.left),
                this.status);
              this.node = form;
              this.showResumable();
              form.addEventListener("submit", (event) => {
                event.preventDefault();
                this.run({ version: version.value.trim(), contentId: contentId.value.trim() || undefined,
                  publishedAt: isoUTC(schedule.value) });
              });
              return form;
            }

            // Uploads a reload or a cut left unfinished: choosing the same file again resumes them.
            showResumable() {
              const pending = pendingUploads().filter((u) => u.productId === this.product.id);
              const box = clear(this.resumableBox);
              box.hidden = !pending.length;
              if (!pending.length) return;
              box.appendChild(el("p", {}, "Unfinished uploads: choose the same file or folder again to go on where they stopped."));
              box.appendChild(el("ul", {}, pending.map((u) => el("li", {}, u.name + " — " + bytes(u.offset) + " of " +
                bytes(u.size) + (u.version ? " (version " + u.version + ")" : "")))));
            }

            chooseFile(file) {
              this.source = { kind: "file", name: file.name, size: file.size, file,
                fingerprint: ["file", file.name, file.size, file.lastModified].join(":") };
              this.chosen.textContent = "Archive " + file.name + " (" + bytes(file.size) + ")";
            }

            chooseFolder(name, entries) {
              const size = entries.reduce((sum, e) => sum + e.file.size, 0);
              const newest = entries.reduce((max, e) => Math.max(max, e.file.lastModified || 0), 0);
              this.source = { kind: "folder", name: name + ".zip", size, entries,
                fingerprint: ["folder", name, entries.length, size, newest].join(":") };
              this.chosen.textContent = "Folder " + name + ": " + entries.length + " files, " + bytes(size) + " (packed as a zip)";
            }

            chooseFolderList(fileList) {
              if (!fileList || !fileList.length) return;
              const first = fileList[0].webkitRelativePath || fileList[0].name;
              this.chooseFolder(first.split("/")[0], global.DepotZip.filesOfDirectoryInput(fileList));
            }

            async dropped(event) {
              const items = Array.from(event.dataTransfer.items || []);
              const entry = items.length === 1 && items[0].webkitGetAsEntry ? items[0].webkitGetAsEntry() : null;
              if (entry && entry.isDirectory) {
                this.chooseFolder(entry.name, await global.DepotZip.filesOfEntry(entry));
              } else if (event.dataTransfer.files.length === 1) {
                this.chooseFile(event.dataTransfer.files[0]);
              } else {
                this.chosen.textContent = "Drop one folder or one archive.";
              }
            }

            pause() {
              if (this.running) this.running.stop();
            }

            // Stops the upload and the following of its job (on sign out).
            stop() {
              this.stopped = true;
              this.pause();
            }

            say(text, failed) {
              this.status.textContent = text;
              this.status.classList.toggle("error", !!failed);
            }

            async run(request) {
              if (this.running) return;
              if (!this.source) { this.say("Choose a folder or an archive first.", true); return; }
              if (!request.version) { this.say("Give the version's name.", true); return; }
              const source = this.source;
              const product = this.product;
              try {
                let blob = source.file;
                if (source.kind === "folder") {
                  this.say("Packing the folder…");
                  blob = await global.DepotZip.zipFolder(source.entries, (done, total) => {
                    this.progress.value = total ? done / total : 1;
                  });
                }
                const maxSize = this.app.credential.maxSize;
                if (maxSize && blob.size > maxSize) throw new Error("Depot takes uploads of at most " + bytes(maxSize));
                this.say("Uploading…");
                this.running = new TusUpload({
                  blob, name: source.name, fingerprint: product.id + ":" + source.fingerprint, token: this.app.credential.token,
                  details: { productId: product.id, version: request.version },
                  onProgress: (p) => {
                    this.progress.value = p.total ? p.sent / p.total : 1;
                    this.progress.textContent = Math.round((p.sent / (p.total || 1)) * 100) + "%";
                    this.rate.textContent = p.rate ? bytes(p.rate) + "/s" : "—";
                    this.left.textContent = p.sent >= p.total ? "0 s" : duration(p.secondsLeft);
                    this.status.textContent = "Uploading: " + bytes(p.sent) + " of " + bytes(p.total);
                  },
                  onStatus: (text) => this.say(text),
                });
                const done = await this.running.start();
                if (this.running.resumedFrom !== null) this.progress.dataset.resumedFrom = String(this.running.resumedFrom);
                this.say("Uploaded; creating version " + request.version + "…");
                const answer = await api.createVersion(product.id, {
                  upload: done.upload, sha256: done.sha256, version: request.version, contentId: request.contentId,
                  publishedAt: request.publishedAt,
                });
                this.running.forget();
                this.running = null;
                this.showResumable();
                this.follow(product.id, answer.body.version.job, request.version);
              } catch (error) {
                this.running = null;
                this.showResumable();
                const code = error.code ? " (" + error.code + ")" : "";
                this.say(error.message + code + (error.retry ? " — press Upload to go on." : ""), true);
              }
            }

            // Polls the product until the job is staged or failed, saying each state.
            async follow(productId, job, version) {
              const labels = { received: "Received", validating: "Validating the pack…", bundling: "Building the bundle…" };
              while (!this.stopped) {
                let product;
                try {
                  product = (await api.product(productId)).body.product;
                } catch (error) {
                  this.say("The job's state cannot be read: " + error.message, true);
                  if (error.status >= 400 && error.status < 500) return; // signed out, or the key was revoked
                  await new Promise((resolve) => setTimeout(resolve, 2000));
                  continue;
                }
                const versions = product.versions || [];
                const running = versions.find((v) => v.job === job);
                const staged = versions.find((v) => !v.job && v.version === version && v.state !== "failed");
                if (running && running.state === "failed") {
                  this.say("Failed: " + (running.failureReason || "no reason given"), true);
                  this.app.products.refresh();
                  return;
                }
                if (!running && staged) {
                  this.say("Version " + version + " is staged: publish it when ready.");
                  this.app.products.refresh().then(() => this.say("Version " + version + " is staged: publish it when ready."));
                  return;
                }
                this.say(running ? labels[running.state] || running.state : "Waiting for the job…");
                await new Promise((resolve) => setTimeout(resolve, 1000));
              }
            }
          }

          global.DepotUpload = { Upload };
        })(window);
        """#
}
