extension ConsoleFiles {
    /// `index.html`: The page: its layout, the sign-in form and the confirmation dialog; scripts and styles come from files.
    static let indexHTML = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Depot console</title>
        <link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/console/console.css">
        <script src="/console/sha256.js" defer></script>
        <script src="/console/zip.js" defer></script>
        <script src="/console/tus.js" defer></script>
        <script src="/console/api.js" defer></script>
        <script src="/console/dom.js" defer></script>
        <script src="/console/products.js" defer></script>
        <script src="/console/upload.js" defer></script>
        <script src="/console/operator.js" defer></script>
        <script src="/console/app.js" defer></script>
        </head>
        <body>
        <header class="bar">
          <h1>Depot console</h1>
          <span id="who"></span>
          <button type="button" id="sign-out" hidden>Sign out</button>
        </header>
        <p id="notice" role="status" hidden></p>
        <main>
          <section id="sign-in" hidden>
            <form id="sign-in-form" class="card" autocomplete="off">
              <h2>Sign in</h2>
              <p class="muted">With a publisher key (dpk_…, from <code>depot keys create</code>) or an operator token.
                It is kept in this tab only, until you sign out or close the tab.</p>
              <label>Key or token <input id="token" type="password" autocomplete="off" spellcheck="false"></label>
              <button type="submit" id="sign-in-button">Sign in</button>
              <p id="sign-in-error" class="error" role="alert"></p>
            </form>
          </section>
          <section id="publisher" class="publisher" hidden>
            <nav id="product-list" aria-label="Products"></nav>
            <div id="product-view"></div>
          </section>
          <section id="operator" hidden>
            <div id="operator-tabs" class="tabs" role="tablist"></div>
            <div id="operator-report"></div>
          </section>
        </main>
        <dialog id="confirm">
          <form method="dialog">
            <h2 id="confirm-title"></h2>
            <p id="confirm-text"></p>
            <div class="row">
              <button value="cancel" id="confirm-cancel">Cancel</button>
              <button value="ok" id="confirm-ok" class="primary">Confirm</button>
            </div>
          </form>
        </dialog>
        <noscript><p>The console needs JavaScript.</p></noscript>
        </body>
        </html>
        """#
}
