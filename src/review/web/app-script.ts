/**
 * The page's only script, served as `/app.js` from the same origin (the CSP allows no inline
 * script): it listens to `/events` and, when the store's stamp moves, fetches the page again and
 * replaces its `[data-live]` part, keeping the focused link. Without it every page still reads.
 * @module
 */

/** The text of `/app.js`. */
export const APP_JS = `"use strict";
(function () {
  var live = document.querySelector("[data-live]");
  if (live === null || typeof EventSource !== "function") return;
  var seen = null;
  var busy = false;
  var again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin", headers: { "x-tessera-live": "1" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text === null) return;
        var next = new DOMParser().parseFromString(text, "text/html").querySelector("[data-live]");
        if (next === null) return;
        var focused = document.activeElement;
        var key = focused && live.contains(focused) ? focused.getAttribute("href") : null;
        live.replaceChildren.apply(live, Array.prototype.slice.call(next.childNodes));
        if (key !== null) {
          var same = live.querySelector('a[href="' + CSS.escape(key) + '"]');
          if (same !== null) same.focus();
        }
        document.documentElement.dataset.liveUpdates = String(Number(document.documentElement.dataset.liveUpdates || "0") + 1);
      })
      .catch(function () {})
      .finally(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }
  var events = new EventSource("/events");
  events.addEventListener("stamp", function (e) {
    if (seen !== null && e.data !== seen) refresh();
    seen = e.data;
  });
})();
`;
