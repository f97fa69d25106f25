extension ConsoleFiles {
    /// `products.js`: The products, their versions, the product form and the publish, roll back and delete actions.
    static let productsJS = #"""
        // The publisher's products: the list in the key's scope, one product with its versions, its form, and the
        // publish, roll back and delete actions behind a confirmation.
        "use strict";
        (function (global) {
          const { el, clear, bytes, when } = global.DepotDom;
          const { api } = global.DepotApi;
          const TYPES = ["consumable", "nonConsumable", "autoRenewable", "nonRenewing", "freeSubscription"];
          const KNOWN = "depot.console.products";
          const WORKING = ["received", "validating", "bundling"];

          // Product ids this browser created or opened: the API lists no publisher's products, so the console
          // offers the catalog's products and these, keeping those the key may open.
          function known() {
            try { return JSON.parse(localStorage.getItem(KNOWN)) || []; } catch (_) { return []; }
          }
          function remember(id) {
            const ids = known().filter((x) => x !== id);
            ids.unshift(id);
            localStorage.setItem(KNOWN, JSON.stringify(ids.slice(0, 200)));
          }

          class Products {
            constructor(app) {
              this.app = app;
              this.list = document.getElementById("product-list");
              this.view = document.getElementById("product-view");
              this.products = [];
              this.current = null; // the product shown
              this.timer = null;
            }

            async load() {
              clear(this.list).appendChild(el("p", { className: "muted" }, "Loading products…"));
              let catalog = [];
              try {
                catalog = ((await api.products()).body.products || []).map((p) => p.id);
              } catch (error) {
                this.app.notice(error.message, true);
              }
              const ids = Array.from(new Set(catalog.concat(known())));
              const answers = await Promise.all(ids.map((id) => api.product(id).then((r) => r.body.product, () => null)));
              this.products = answers.filter(Boolean);
              this.renderList();
              if (this.current) {
                const still = this.products.find((p) => p.id === this.current.id);
                if (still) this.show(still);
              } else if (this.products.length) {
                this.show(this.products[0]);
              } else {
                this.showNew();
              }
            }

            renderList() {
              clear(this.list);
              this.list.appendChild(el("h2", {}, "Products"));
              if (!this.products.length) this.list.appendChild(el("p", { className: "muted" }, "No product in this key's scope yet."));
              const items = el("ul", {});
              for (const product of this.products) {
                const current = (product.versions || []).filter((v) => v.current).map((v) => v.version);
                items.appendChild(el("li", {},
                  el("button", {
                    type: "button", className: "product-link", dataset: { product: product.id },
                    onclick: () => this.show(product),
                  }, el("strong", {}, product.title), el("span", { className: "muted" }, product.id),
                  el("span", { className: "muted" }, current.length ? "current " + current.join(", ") : "nothing on sale"))));
              }
              this.list.appendChild(items);
              this.list.appendChild(el("button", { type: "button", id: "new-product", onclick: () => this.showNew() }, "New product"));
            }

            async refresh() {
              if (!this.current || this.stopped) return;
              try {
                const product = (await api.product(this.current.id)).body.product;
                const index = this.products.findIndex((p) => p.id === product.id);
                if (index >= 0) this.products[index] = product; else this.products.unshift(product);
                this.renderList();
                this.show(product);
              } catch (error) {
                this.app.notice(error.message, true);
              }
            }

            // Follows version jobs until none is working, without reloading the page.
            watch() {
              clearTimeout(this.timer);
              if (this.stopped) return;
              const working = this.current && (this.current.versions || []).some((v) => WORKING.includes(v.state));
              if (working) this.timer = setTimeout(() => this.refresh(), 1000);
            }

            // Stops following version jobs (on sign out).
            stop() {
              this.stopped = true;
              clearTimeout(this.timer);
            }

            showNew() {
              this.current = null;
              clearTimeout(this.timer);
              clear(this.view).appendChild(this.form(null));
            }

            show(product) {
              this.current = product;
              remember(product.id);
              clear(this.view);
              this.view.appendChild(el("h2", { id: "product-title" }, product.title));
              this.view.appendChild(el("p", { className: "muted" }, product.id + " · " + product.type +
                (product.periodDays ? " · " + product.periodDays + " days" : "")));
              this.view.appendChild(this.versionsTable(product));
              this.view.appendChild(this.app.upload.panel(product));
              this.view.appendChild(el("details", {}, el("summary", {}, "Edit product"), this.form(product)));
              this.watch();
            }

            form(product) {
              const id = el("input", { name: "id", required: true, value: product ? product.id : "", readOnly: !!product,
                placeholder: "com.example.level2", id: "product-id" });
              const title = el("input", { name: "title", required: true, maxLength: 200, value: product ? product.title : "",
                id: "product-title-input" });
              const type = el("select", { name: "type", id: "product-type" },
                TYPES.map((t) => el("option", { value: t, selected: product ? product.type === t : t === "nonConsumable" }, t)));
              const period = el("input", { name: "periodDays", type: "number", min: 1, max: 36500, id: "product-period",
                value: product && product.periodDays ? String(product.periodDays) : "" });
              const periodRow = el("label", {}, "Period (days)", period);
              const sync = () => { periodRow.hidden = type.value !== "nonRenewing"; };
              type.addEventListener("change", sync);
              sync();
              const error = el("p", { className: "error", role: "alert", id: "product-error" });
              const form = el("form", { className: "product-form", id: "product-form" },
                el("h3", {}, product ? "Edit " + product.id : "New product"),
                el("label", {}, "Product id (as in the store)", id),
                el("label", {}, "Title", title),
                el("label", {}, "Type", type),
                periodRow,
                product && (product.versions || []).length
                  ? el("p", { className: "muted" }, "Once a product has versions or sales, its type and period are locked.")
                  : null,
                error,
                el("button", { type: "submit", id: "product-save" }, product ? "Save" : "Create"));
              form.addEventListener("submit", async (event) => {
                event.preventDefault();
                error.textContent = "";
                const fields = { type: type.value, title: title.value };
                if (type.value === "nonRenewing") fields.periodDays = Number(period.value);
                try {
                  const answer = await api.putProduct(id.value.trim(), fields);
                  remember(answer.body.product.id);
                  this.app.notice(answer.status === 201 ? "Product created" : "Product saved");
                  this.current = answer.body.product;
                  await this.load();
                } catch (failure) {
                  error.textContent = failure.message + (failure.code ? " (" + failure.code + ")" : "");
                }
              });
              return form;
            }

            versionsTable(product) {
              const versions = product.versions || [];
              if (!versions.length) return el("p", { className: "muted", id: "no-versions" }, "No version yet: upload one below.");
              const current = versions.filter((v) => v.current);
              const rows = versions.map((v) => this.versionRow(product, v, current));
              return el("table", { className: "versions", id: "versions" },
                el("thead", {}, el("tr", {}, ["Version", "Content", "State", "Offered from", "Bundle", "Unpacked",
                  "Update to current", "Buyers", ""].map((h) => el("th", {}, h)))),
                el("tbody", {}, rows));
            }

            versionRow(product, v, currents) {
              const contentId = v.contentId || product.id;
              const current = currents.find((c) => (c.contentId || product.id) === contentId);
              const future = v.publishedAt && new Date(v.publishedAt) > new Date();
              let state = v.state + (v.current ? " · current" : "");
              // Offered to part of the buyers or to test purchases only (a full release is current, or scheduled).
              const limited = v.state === "published" && !!v.release
                && (v.release.channel === "beta" || v.release.rollout < 100 || v.release.halted);
              if (limited) {
                state = v.release.channel === "beta" ? "beta (test purchases)"
                  : "rollout " + v.release.rollout + "%" + (v.release.halted ? " · halted" : "");
              }
              if (v.state === "published" && future) state = "scheduled";
              const delta = el("td", { className: "delta" }, "—");
              if (current && !v.current && (v.state === "published" || v.state === "superseded") && !future) {
                api.update(product.id, v.version, contentId).then((answer) => {
                  const preview = answer.body;
                  delta.textContent = preview.download === "delta" ? "delta " + bytes(preview.bytes)
                    : preview.download === "full" ? "full " + bytes(preview.bytes) : "none";
                }, () => { delta.textContent = "—"; });
              }
              const actions = el("td", { className: "actions" });
              if (v.state === "staged") {
                actions.appendChild(this.button("Publish", "publish", () => this.publish(product, v, current)));
                if (current) {
                  const percent = this.percentField(10);
                  actions.appendChild(percent);
                  actions.appendChild(this.button("Roll out", "rollout", () => this.rollout(product, v, current, percent, "publish")));
                }
                actions.appendChild(this.button("Beta", "beta", () => this.beta(product, v, current)));
              }
              if (limited && v.release.channel === "production") {
                const percent = this.percentField(Math.min(100, v.release.rollout * 2));
                actions.appendChild(percent);
                actions.appendChild(this.button("Raise", "raise", () => this.rollout(product, v, current, percent, "rollout")));
                if (!v.release.halted) actions.appendChild(this.button("Halt", "halt", () => this.halt(product, v)));
                if (current) actions.appendChild(this.button("Stop and roll back", "rollback", () => this.rollback(product, current, v)));
              }
              if (limited && v.release.channel === "beta") {
                actions.appendChild(this.button("Promote", "promote", () => this.promote(product, v, current)));
              }
              if (!limited && !v.current && !future && (v.state === "superseded" || v.state === "published")) {
                actions.appendChild(this.button("Roll back to this", "rollback", () => this.rollback(product, v, current)));
              }
              if ((v.state === "staged" || v.state === "failed") && !v.job) {
                actions.appendChild(this.button("Delete", "delete", () => this.remove(product, v)));
              }
              return el("tr", { dataset: { version: v.version, state: v.state } },
                el("td", {}, v.version),
                el("td", {}, contentId),
                el("td", { className: "state state-" + v.state }, state,
                  v.failureReason ? el("div", { className: "error" }, v.failureReason) : null),
                el("td", {}, v.publishedAt ? when(v.publishedAt) : "when published"),
                el("td", {}, bytes(v.size)),
                el("td", {}, bytes(v.unpackedSize)),
                delta,
                el("td", { className: "reach" }, v.offered === undefined ? "—"
                  : v.offered + " offered · " + v.delivered + " delivered"),
                actions);
            }

            button(label, name, action) {
              return el("button", { type: "button", className: name, onclick: action }, label);
            }

            async publish(product, v, current) {
              const from = v.publishedAt && new Date(v.publishedAt) > new Date() ? "from " + when(v.publishedAt) : "at once";
              const ok = await this.app.confirm("Publish version " + v.version + "?",
                "Buyers of " + product.title + " will get version " + v.version + " (" + bytes(v.size) + ") " + from + "." +
                (current ? " Buyers who hold " + current.version + " are offered the update; what they downloaded stays theirs."
                  : " It is the first version buyers can download."), "Publish");
              if (ok) await this.act(() => api.publish(product.id, v.version, v.contentId), "Version " + v.version + " published");
            }

            percentField(value) {
              return el("input", { type: "number", min: "1", max: "100", value: String(value), className: "percent",
                "aria-label": "percent of buyers" });
            }

            async rollout(product, v, current, field, action) {
              const percent = Number(field.value);
              if (!Number.isInteger(percent) || percent < 1 || percent > 100) {
                this.app.notice("A rollout is a whole percent from 1 to 100.", true);
                return;
              }
              const ok = await this.app.confirm("Roll version " + v.version + " out to " + percent + "%?",
                percent === 100 ? "Every buyer of " + product.title + " will get version " + v.version + "."
                  : percent + "% of the buyers of " + product.title + ", picked by a stable hash of who they are, will get version " +
                    v.version + "; the others keep " + (current ? current.version : "the current version") +
                    ". A rollout only grows; halt it or roll back to stop it.", "Roll out");
              const fields = action === "publish" ? { rollout: percent } : { percent: percent };
              if (ok) await this.act(() => api.release(product.id, v.version, v.contentId, action, fields),
                "Version " + v.version + " rolls out to " + percent + "%");
            }

            async halt(product, v) {
              const ok = await this.app.confirm("Halt the rollout of " + v.version + "?",
                "Nobody new gets version " + v.version + "; buyers who already got it keep it.", "Halt");
              if (ok) await this.act(() => api.release(product.id, v.version, v.contentId, "halt"), "Rollout of " + v.version + " halted");
            }

            async beta(product, v, current) {
              const ok = await this.app.confirm("Publish version " + v.version + " to beta?",
                "Test purchases (Sandbox, TestFlight, Xcode, Google Play testers) will get version " + v.version +
                "; production buyers keep " + (current ? current.version : "what they get now") + ".", "Publish to beta");
              if (ok) await this.act(() => api.release(product.id, v.version, v.contentId, "publish", { channel: "beta" }),
                "Version " + v.version + " published to beta");
            }

            async promote(product, v, current) {
              const ok = await this.app.confirm("Promote version " + v.version + " to production?",
                "Every buyer of " + product.title + " will get version " + v.version +
                (current ? " instead of " + current.version : "") + ".", "Promote");
              if (ok) await this.act(() => api.release(product.id, v.version, v.contentId, "promote"),
                "Version " + v.version + " promoted");
            }

            async rollback(product, v, current) {
              const ok = await this.app.confirm("Roll back to version " + v.version + "?",
                "Buyers of " + product.title + " will get version " + v.version + " (" + bytes(v.size) + ") again" +
                (current ? " instead of " + current.version : "") +
                ", on their next download or restore. Files already on their devices are not removed.", "Roll back");
              if (ok) await this.act(() => api.publish(product.id, v.version, v.contentId), "Rolled back to " + v.version);
            }

            async remove(product, v) {
              const ok = await this.app.confirm("Delete version " + v.version + "?",
                "Version " + v.version + " was never published: no buyer has it, and buyers keep getting what they get now. " +
                "Its bundle is removed from Depot.", "Delete");
              if (ok) await this.act(() => api.remove(product.id, v.version, v.contentId), "Version " + v.version + " deleted");
            }

            async act(request, done) {
              try {
                await request();
                this.app.notice(done);
              } catch (error) {
                this.app.notice(error.message + " (" + error.code + ")", true);
              }
              await this.refresh();
            }
          }

          global.DepotProducts = { Products, TYPES };
        })(window);
        """#
}
