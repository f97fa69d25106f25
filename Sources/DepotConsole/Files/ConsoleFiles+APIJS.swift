extension ConsoleFiles {
    /// `api.js`: Calls to the API with the credential of the tab's sessionStorage as a bearer token.
    static let apiJS = #"""
        // Calls to Depot's API with the signed-in credential. The credential lives in this tab's sessionStorage
        // and travels only as `Authorization: Bearer`: the console sets no cookie, so no other site can act with it.
        "use strict";
        (function (global) {
          const KEY = "depot.console.credential";

          class ApiError extends Error {
            constructor(status, code, message) {
              super(message);
              this.status = status;
              this.code = code;
            }
          }

          const session = {
            get() {
              try { return JSON.parse(sessionStorage.getItem(KEY)); } catch (_) { return null; }
            },
            set(credential) { sessionStorage.setItem(KEY, JSON.stringify(credential)); },
            clear() { sessionStorage.removeItem(KEY); },
          };

          // Answers with the parsed JSON body (null for an empty one); throws ApiError with the server's code.
          async function call(method, path, options) {
            const opts = options || {};
            const credential = opts.token !== undefined ? { token: opts.token } : session.get();
            const headers = Object.assign({ Accept: "application/json" }, opts.headers || {});
            if (credential && credential.token) headers.Authorization = "Bearer " + credential.token;
            let body;
            if (opts.json !== undefined) {
              headers["Content-Type"] = "application/json";
              body = JSON.stringify(opts.json);
            }
            let response;
            try {
              response = await fetch(path, { method, headers, body, cache: "no-store", credentials: "omit" });
            } catch (error) {
              throw new ApiError(0, "network", "Depot cannot be reached: " + error.message);
            }
            const text = await response.text();
            let parsed = null;
            if (text) {
              try { parsed = JSON.parse(text); } catch (_) { parsed = null; }
            }
            if (!response.ok) {
              const error = parsed && parsed.error;
              throw new ApiError(
                response.status,
                (error && error.code) || "http-" + response.status,
                (error && error.message) || "Depot answered " + response.status,
              );
            }
            return { status: response.status, body: parsed, headers: response.headers };
          }

          // Whether `token` opens the publisher API (tus discovery needs a valid key) or the operator reports.
          async function identify(token) {
            if (token.startsWith("dpk_")) {
              const response = await fetch("/v1/publisher/uploads", {
                method: "OPTIONS", headers: { Authorization: "Bearer " + token }, cache: "no-store", credentials: "omit",
              });
              if (response.ok) {
                return { kind: "publisher", token, maxSize: Number(response.headers.get("Tus-Max-Size")) || null };
              }
              const text = await response.text();
              let message = "The publisher key was refused";
              try { message = JSON.parse(text).error.message; } catch (_) { /* keep the default */ }
              throw new ApiError(response.status, "refused", message);
            }
            await call("GET", "/v1/admin/apple-outbox?limit=1", { token });
            return { kind: "operator", token };
          }

          const enc = encodeURIComponent;
          const api = {
            products: () => call("GET", "/v1/products"),
            product: (id) => call("GET", "/v1/publisher/products/" + enc(id)),
            putProduct: (id, fields) => call("PUT", "/v1/publisher/products/" + enc(id), { json: fields }),
            createVersion: (id, fields) => call("POST", "/v1/publisher/products/" + enc(id) + "/versions", { json: fields }),
            publish: (id, version, contentId) =>
              call("POST", "/v1/publisher/products/" + enc(id) + "/versions/" + enc(version) + "/publish" + content(contentId)),
            // A release route (`publish`, `rollout`, `halt`, `promote`) with its JSON body, if any.
            release: (id, version, contentId, action, fields) =>
              call("POST", "/v1/publisher/products/" + enc(id) + "/versions/" + enc(version) + "/" + action + content(contentId),
                fields === undefined ? {} : { json: fields }),
            remove: (id, version, contentId) =>
              call("DELETE", "/v1/publisher/products/" + enc(id) + "/versions/" + enc(version) + content(contentId)),
            update: (id, from, contentId) =>
              call("GET", "/v1/products/" + enc(id) + "/update?from=" + enc(from) + "&contentId=" + enc(contentId)),
            report: (path, params) => call("GET", path + query(params)),
          };

          function content(contentId) { return contentId ? "?contentId=" + enc(contentId) : ""; }

          function query(params) {
            const pairs = Object.keys(params || {}).filter((k) => params[k] !== undefined && params[k] !== "")
              .map((k) => enc(k) + "=" + enc(params[k]));
            return pairs.length ? "?" + pairs.join("&") : "";
          }

          global.DepotApi = { api, call, identify, session, ApiError };
        })(window);
        """#
}
