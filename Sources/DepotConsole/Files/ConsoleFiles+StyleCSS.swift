extension ConsoleFiles {
    /// `console.css`: The style sheet.
    static let styleCSS = #"""
        :root {
          --ink: #1d2330; --muted: #667085; --line: #d9dee7; --paper: #ffffff; --ground: #f4f6f9;
          --accent: #2f5bd3; --bad: #b42318; --good: #067647;
          font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--ground);
        }
        [hidden] { display: none !important; }
        body { margin: 0; }
        .bar { display: flex; align-items: center; gap: 1rem; padding: 0.6rem 1.2rem; background: var(--ink); color: #fff; }
        .bar h1 { font-size: 1.1rem; margin: 0; flex: 1; }
        main { padding: 1.2rem; }
        .card, .publisher > *, #operator { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; }
        .card { max-width: 28rem; margin: 3rem auto; padding: 1.5rem; }
        label { display: flex; flex-direction: column; gap: 0.25rem; margin: 0.5rem 0; font-size: 0.9rem; }
        input, select { font: inherit; padding: 0.4rem; border: 1px solid var(--line); border-radius: 4px; }
        button { font: inherit; padding: 0.4rem 0.8rem; border: 1px solid var(--accent); border-radius: 4px;
          background: var(--paper); color: var(--accent); cursor: pointer; }
        button[type=submit], button.primary, button.publish { background: var(--accent); color: #fff; }
        button.delete { border-color: var(--bad); color: var(--bad); }
        .bar button { background: transparent; color: #fff; border-color: #fff; }
        .muted { color: var(--muted); font-size: 0.9rem; }
        .error { color: var(--bad); }
        #notice { margin: 0; padding: 0.5rem 1.2rem; background: #e8f0fe; }
        #notice.error { background: #fdecea; }
        .publisher { display: grid; grid-template-columns: 16rem 1fr; gap: 1rem; align-items: start; }
        #product-list { padding: 0.8rem; }
        #product-list ul { list-style: none; padding: 0; margin: 0 0 1rem; }
        .product-link { display: flex; flex-direction: column; align-items: flex-start; width: 100%; margin: 0.2rem 0;
          border-color: var(--line); color: var(--ink); text-align: left; }
        #product-view { padding: 1rem 1.2rem; min-width: 0; }
        #product-view h2 { margin: 0; }
        table { border-collapse: collapse; width: 100%; margin: 1rem 0; font-size: 0.9rem; }
        th, td { border-bottom: 1px solid var(--line); padding: 0.4rem; text-align: left; vertical-align: top; }
        td.actions button { margin: 0 0.3rem 0.3rem 0; }
        td.actions input.percent { width: 4.5em; margin: 0 0.3rem 0.3rem 0; }
        .state-published { color: var(--good); font-weight: 600; }
        .state-failed { color: var(--bad); }
        .row { display: flex; gap: 0.8rem; flex-wrap: wrap; align-items: flex-end; }
        .drop-zone { border: 2px dashed var(--line); border-radius: 8px; padding: 1rem; margin: 0.8rem 0; text-align: center; }
        .drop-zone.over { border-color: var(--accent); background: #eef3ff; }
        .pickers { display: flex; gap: 1.5rem; justify-content: center; flex-wrap: wrap; }
        progress { width: 100%; height: 1.2rem; margin-top: 0.8rem; }
        .upload, .product-form { border-top: 1px solid var(--line); margin-top: 1rem; padding-top: 0.5rem; }
        .product-form { max-width: 28rem; }
        .resumable { background: #fff8e6; padding: 0.5rem 0.8rem; border-radius: 6px; }
        .tabs { display: flex; gap: 0.5rem; padding: 0.8rem; border-bottom: 1px solid var(--line); }
        .tabs button.active { background: var(--accent); color: #fff; }
        #operator-report { padding: 0.8rem 1.2rem; overflow-x: auto; }
        dialog { border: 1px solid var(--line); border-radius: 8px; max-width: 32rem; }
        dialog::backdrop { background: rgba(16, 24, 40, 0.4); }
        code { background: var(--ground); padding: 0 0.2rem; }
        """#
}
