// The run page's DOM helpers (run.js, run_detail.js): every string from the log is model or data
// text, so nodes are built with createElement and textContent only, never innerHTML, attribute
// values made visible, links only the page's own paths, and controls shown as code points.
(function () {
  "use strict";
  // C0/C1 controls (but tab and newline), bidi overrides and isolates, zero-width marks.
  var CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

  function visible(value) {
    if (value === null || value === undefined) return "";
    return String(value).replace(CONTROLS, function (c) {
      var hex = c.charCodeAt(0).toString(16).toUpperCase();
      return "\u27e8U+" + ("0000" + hex).slice(-4) + "\u27e9";
    });
  }

  function el(tag, attrs) {
    var node = document.createElement(tag);
    var key;
    for (key in attrs || {}) {
      if (key === "text") node.textContent = visible(attrs[key]);
      else if (key === "cls") node.className = attrs[key];
      else if (key.slice(0, 5) === "data-") node.setAttribute(key, String(attrs[key]));
      else if (key === "href") node.setAttribute("href", safeHref(attrs[key]));
      else node.setAttribute(key, visible(attrs[key]));
    }
    for (var i = 2; i < arguments.length; i++) {
      if (arguments[i] !== null && arguments[i] !== undefined) node.appendChild(arguments[i]);
    }
    return node;
  }

  // Links the page makes are its own: a relative path or a fragment, never a scheme.
  function safeHref(href) {
    return /^(\/|#)/.test(href) && href.indexOf("//") !== 0 ? href : "#";
  }

  function num(value) {
    if (value === null || value === undefined) return "-";
    if (typeof value !== "number") return visible(value);
    return Math.abs(value) >= 1e4 || (value !== 0 && Math.abs(value) < 1e-3)
      ? value.toExponential(3) : String(+value.toPrecision(4));
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function getJSON(url) {
    return fetch(url, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) {
        return r.text().then(function (t) {
          var said = t;
          try { said = JSON.parse(t).error || t; } catch (e) { said = t; }
          throw new Error(said || r.statusText);
        });
      }
      return r.json();
    });
  }

  window.rlvrDom = { visible: visible, el: el, num: num, clear: clear, getJSON: getJSON };
})();
