extension ConsoleFiles {
    /// `operator.js`: The operator's reports, paged by the API's cursors.
    static let operatorJS = #"""
        // The operator's reports (admin token): deliveries not confirmed, store calls pending or failed, irregular
        // activity. Each is paged as the API pages it: `limit`, and `cursor` set to the previous page's `nextCursor`.
        "use strict";
        (function (global) {
          const { el, clear, when, bytes } = global.DepotDom;
          const { api } = global.DepotApi;

          const REPORTS = {
            deliveries: {
              title: "Deliveries not confirmed",
              path: "/v1/admin/deliveries/unfinished",
              rows: (body) => body.deliveries || [],
              columns: [
                ["Transaction", (r) => r.transactionId], ["Content", (r) => r.contentId], ["Version", (r) => r.version],
                ["Grants", (r) => r.grantsIssued], ["Bytes served", (r) => bytes(r.bytesServed) + " of " + bytes(r.size)],
                ["Last activity", (r) => when(r.lastActivityAt)], ["Store deadline", (r) => when(r.storeDeadline)],
              ],
              idle: true,
            },
            outbox: {
              title: "Store calls pending or failed",
              path: "/v1/admin/apple-outbox",
              rows: (body) => body.jobs || [],
              note: (body) => (body.enabled ? null : "This instance does not call the App Store Server API."),
              columns: [
                ["Id", (r) => r.id], ["Call", (r) => r.kind], ["Transaction", (r) => r.transactionId],
                ["Environment", (r) => r.environment], ["State", (r) => r.state], ["Attempts", (r) => r.attempts],
                ["Next attempt", (r) => when(r.nextAttemptAt)], ["Last error", (r) => r.lastError || ""],
              ],
            },
            irregular: {
              title: "Irregular activity",
              path: "/v1/admin/irregular",
              rows: (body) => body.transactions || [],
              note: (body) => "Transactions redeemed by too many accounts or addresses within " +
                global.DepotDom.duration(body.windowSeconds) + ".",
              columns: [
                ["Transaction", (r) => r.transactionId], ["Accounts", (r) => r.appAccountTokens],
                ["Addresses", (r) => r.clientAddresses], ["Last attempt", (r) => when(r.lastAttemptAt)],
              ],
            },
          };

          class Operator {
            constructor(app) {
              this.app = app;
              this.tabs = document.getElementById("operator-tabs");
              this.view = document.getElementById("operator-report");
            }

            load() {
              clear(this.tabs);
              for (const name of Object.keys(REPORTS)) {
                this.tabs.appendChild(el("button", { type: "button", dataset: { report: name },
                  onclick: () => this.open(name) }, REPORTS[name].title));
              }
              this.open("deliveries");
            }

            // Opens a report at its first page; `cursors` holds the cursor of each page shown before.
            open(name) {
              for (const tab of this.tabs.children) tab.classList.toggle("active", tab.dataset.report === name);
              this.report = name;
              this.cursors = [];
              this.olderThan = 3600;
              this.page(undefined);
            }

            async page(cursor) {
              const report = REPORTS[this.report];
              const params = { limit: 50, cursor };
              if (report.idle) params.olderThan = this.olderThan;
              clear(this.view).appendChild(el("p", { className: "muted" }, "Loading…"));
              let body;
              try {
                body = (await api.report(report.path, params)).body;
              } catch (error) {
                clear(this.view).appendChild(el("p", { className: "error", role: "alert" }, error.message + " (" + error.code + ")"));
                return;
              }
              const rows = report.rows(body);
              clear(this.view);
              this.view.appendChild(el("h2", {}, report.title));
              if (report.idle) {
                const idle = el("input", { type: "number", min: 0, value: String(this.olderThan), id: "older-than" });
                const form = el("form", { className: "row" }, el("label", {}, "Idle for at least (seconds)", idle),
                  el("button", { type: "submit" }, "Show"));
                form.addEventListener("submit", (event) => {
                  event.preventDefault();
                  this.olderThan = Math.max(0, Number(idle.value) || 0);
                  this.cursors = [];
                  this.page(undefined);
                });
                this.view.appendChild(form);
              }
              const note = report.note && report.note(body);
              if (note) this.view.appendChild(el("p", { className: "muted" }, note));
              if (!rows.length) {
                this.view.appendChild(el("p", { className: "muted", id: "report-empty" }, "Nothing to show."));
              } else {
                this.view.appendChild(el("table", { className: "report", id: "report-table" },
                  el("thead", {}, el("tr", {}, report.columns.map((c) => el("th", {}, c[0])))),
                  el("tbody", {}, rows.map((row) => el("tr", {}, report.columns.map((c) => {
                    const value = c[1](row);
                    return el("td", {}, value === undefined || value === null ? "" : String(value));
                  }))))));
              }
              const nav = el("div", { className: "row pager" });
              if (this.cursors.length) {
                nav.appendChild(el("button", { type: "button", id: "page-previous", onclick: () => {
                  this.cursors.pop();
                  this.page(this.cursors[this.cursors.length - 1]);
                } }, "Previous page"));
              }
              if (body.nextCursor) {
                nav.appendChild(el("button", { type: "button", id: "page-next", onclick: () => {
                  this.cursors.push(body.nextCursor);
                  this.page(body.nextCursor);
                } }, "Next page"));
              }
              this.view.appendChild(nav);
            }
          }

          global.DepotOperator = { Operator };
        })(window);
        """#
}
