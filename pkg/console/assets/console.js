// Recollect console: the theme toggle and confirmations. Everything works
// without it; no other script runs on these pages.
(function () {
  "use strict";
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem("recollect-theme"); } catch (e) { /* storage off */ }
  if (saved === "light" || saved === "dark") root.setAttribute("data-theme", saved);
  document.addEventListener("DOMContentLoaded", function () {
    var btn = document.getElementById("theme");
    if (btn) {
      btn.addEventListener("click", function () {
        var dark = root.getAttribute("data-theme") ? root.getAttribute("data-theme") === "dark"
          : window.matchMedia("(prefers-color-scheme: dark)").matches;
        var next = dark ? "light" : "dark";
        root.setAttribute("data-theme", next);
        btn.setAttribute("aria-pressed", String(next === "dark"));
        try { localStorage.setItem("recollect-theme", next); } catch (e) { /* storage off */ }
      });
    }
    // A form or button with data-confirm asks before it submits.
    document.addEventListener("submit", function (ev) {
      var form = ev.target;
      var sub = ev.submitter;
      var msg = (sub && sub.getAttribute("data-confirm")) || form.getAttribute("data-confirm");
      if (msg && !window.confirm(msg)) ev.preventDefault();
    });
  });
})();
