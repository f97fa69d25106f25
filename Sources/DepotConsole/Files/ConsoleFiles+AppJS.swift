extension ConsoleFiles {
    /// `app.js`: Sign in and out, notices and the confirmation dialog.
    static let appJS = #"""
        // The console's start: sign in with a publisher key or an operator token, the notices, the confirmation
        // dialog, and sign out.
        "use strict";
        (function (global) {
          const { session, identify } = global.DepotApi;

          class App {
            constructor() {
              this.signInSection = document.getElementById("sign-in");
              this.publisherSection = document.getElementById("publisher");
              this.operatorSection = document.getElementById("operator");
              this.who = document.getElementById("who");
              this.signOutButton = document.getElementById("sign-out");
              this.noticeBox = document.getElementById("notice");
              this.dialog = document.getElementById("confirm");
              this.products = new global.DepotProducts.Products(this);
              this.upload = new global.DepotUpload.Upload(this);
              this.operator = new global.DepotOperator.Operator(this);
              document.getElementById("sign-in-form").addEventListener("submit", (event) => {
                event.preventDefault();
                this.signIn(document.getElementById("token").value.trim());
              });
              this.signOutButton.addEventListener("click", () => this.signOut());
              const saved = session.get();
              if (saved && saved.token) this.enter(saved); else this.showSignIn();
            }

            async signIn(token) {
              const error = document.getElementById("sign-in-error");
              error.textContent = "";
              if (!token) { error.textContent = "Paste a publisher key (dpk_…) or an operator token."; return; }
              try {
                const credential = await identify(token);
                session.set(credential);
                document.getElementById("token").value = "";
                this.enter(credential);
              } catch (failure) {
                session.clear();
                error.textContent = "Not signed in: " + failure.message;
              }
            }

            enter(credential) {
              this.credential = credential;
              this.signInSection.hidden = true;
              this.signOutButton.hidden = false;
              this.who.textContent = credential.kind === "publisher" ? "Publisher key" : "Operator";
              if (credential.kind === "publisher") {
                this.publisherSection.hidden = false;
                this.products.load();
              } else {
                this.operatorSection.hidden = false;
                this.operator.load();
              }
            }

            showSignIn() {
              this.signInSection.hidden = false;
              this.publisherSection.hidden = true;
              this.operatorSection.hidden = true;
              this.signOutButton.hidden = true;
              this.who.textContent = "";
            }

            signOut() {
              this.upload.stop();
              this.products.stop();
              session.clear();
              this.credential = null;
              global.DepotDom.clear(document.getElementById("product-view"));
              global.DepotDom.clear(document.getElementById("product-list"));
              global.DepotDom.clear(document.getElementById("operator-report"));
              this.products = new global.DepotProducts.Products(this);
              this.upload = new global.DepotUpload.Upload(this);
              this.notice("Signed out");
              this.showSignIn();
            }

            notice(text, failed) {
              this.noticeBox.textContent = text;
              this.noticeBox.classList.toggle("error", !!failed);
              this.noticeBox.hidden = false;
              clearTimeout(this.noticeTimer);
              this.noticeTimer = setTimeout(() => { this.noticeBox.hidden = true; }, failed ? 15000 : 5000);
            }

            // Asks before an action that changes what buyers get; resolves true when confirmed.
            confirm(title, text, action) {
              document.getElementById("confirm-title").textContent = title;
              document.getElementById("confirm-text").textContent = text;
              document.getElementById("confirm-ok").textContent = action;
              return new Promise((resolve) => {
                const done = () => {
                  this.dialog.removeEventListener("close", done);
                  resolve(this.dialog.returnValue === "ok");
                };
                this.dialog.returnValue = "";
                this.dialog.addEventListener("close", done);
                this.dialog.showModal();
              });
            }
          }

          document.addEventListener("DOMContentLoaded", () => { global.depotConsole = new App(); });
        })(window);
        """#
}
