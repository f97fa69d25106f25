extension ConsoleFiles {
    /// `dom.js`: DOM building with createElement and textContent only, and the formats of sizes and times.
    static let domJS = #"""
        // Builds the page with createElement and textContent only: whatever the server answers is shown as text,
        // never parsed as markup.
        "use strict";
        (function (global) {
          // el("td", {className: "x", onclick: fn}, "text", child, ...)
          function el(tag, attrs, ...children) {
            const node = document.createElement(tag);
            for (const [name, value] of Object.entries(attrs || {})) {
              if (value === undefined || value === null || value === false) continue;
              if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
              else if (name === "className") node.className = value;
              else if (name === "dataset") Object.assign(node.dataset, value);
              else if (name in node && typeof value !== "string") node[name] = value;
              else node.setAttribute(name, value === true ? "" : String(value));
            }
            append(node, children);
            return node;
          }

          function append(node, children) {
            for (const child of children) {
              if (child === undefined || child === null || child === false) continue;
              if (Array.isArray(child)) append(node, child);
              else node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
            }
          }

          function clear(node) {
            while (node.firstChild) node.removeChild(node.firstChild);
            return node;
          }

          function bytes(n) {
            if (n === undefined || n === null) return "—";
            const units = ["B", "KB", "MB", "GB", "TB"];
            let value = n;
            let unit = 0;
            while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
            return (unit === 0 ? String(value) : value.toFixed(value < 10 ? 2 : 1)) + " " + units[unit];
          }

          function duration(seconds) {
            if (seconds === null || seconds === undefined || !isFinite(seconds)) return "—";
            const s = Math.round(seconds);
            if (s < 60) return s + " s";
            if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
            return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
          }

          function when(text) {
            if (!text) return "—";
            const date = new Date(text);
            return isNaN(date) ? text : date.toLocaleString();
          }

          global.DepotDom = { el, clear, bytes, duration, when };
        })(window);
        """#
}
