/* Figures of the dpb book on a small screen (checked at 390 px by tests/test_layout.py).
 *
 * dpb.css scales every figure of a code cell to the width of the text column, so the page never
 * scrolls sideways.  A figure shown clearly smaller than its own size (a two-panel figure on a
 * phone) becomes a button: a tap (or Enter/Space) shows it at its own size in a full-screen view
 * that scrolls in both directions; a tap, Escape or the close button returns to the page.
 * Nothing is loaded: the enlarged figure is the same image.
 *
 * Formulas on a small screen: inline math is part of its line and never scrolls (dpb.css), but
 * MathJax 3 cannot break a formula across lines, so an inline formula wider than its column (a
 * long one on a phone, or in a narrow table column) is set on a line of its own, as display math
 * is, and only then scrolls if it is still wider than the column (class dpb-math-own-line; checked
 * by tests/test_reading.py).  Re-measured when the window is resized or a dropdown opens. */
(function () {
  "use strict";
  var SHRUNK = 0.8; // shown at less than 80 % of its own width: worth enlarging
  var view = null;

  function close() {
    if (!view) return;
    var opener = view.opener;
    view.remove();
    view = null;
    document.documentElement.classList.remove("dpb-figure-zoom-open");
    if (opener) opener.focus({ preventScroll: true });
  }

  function open(img) {
    close();
    view = document.createElement("div");
    view.className = "dpb-figure-zoom";
    view.setAttribute("role", "dialog");
    view.setAttribute("aria-modal", "true");
    view.setAttribute("aria-label", "Enlarged figure (tap to close)");
    view.opener = img;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "dpb-figure-zoom-close";
    button.setAttribute("aria-label", "Close the enlarged figure");
    button.textContent = "\u00d7";
    var big = document.createElement("img");
    big.src = img.currentSrc || img.src;
    big.alt = img.alt || "";
    big.width = img.naturalWidth;
    view.appendChild(button);
    view.appendChild(big);
    // a tap closes the view; scrolling it (a drag) does not produce a click
    view.addEventListener("click", close);
    document.body.appendChild(view);
    document.documentElement.classList.add("dpb-figure-zoom-open");
    button.focus({ preventScroll: true });
  }

  function mark(img) {
    var shrunk = img.naturalWidth > 0 &&
      img.getBoundingClientRect().width < SHRUNK * img.naturalWidth;
    img.classList.toggle("dpb-zoomable", shrunk);
    if (shrunk) {
      img.setAttribute("role", "button");
      img.setAttribute("tabindex", "0");
      img.setAttribute("title", "Tap to enlarge");
    } else {
      img.removeAttribute("role");
      img.removeAttribute("tabindex");
      img.removeAttribute("title");
    }
  }

  function markAll() {
    document.querySelectorAll("div.cell_output img").forEach(function (img) {
      if (img.complete) mark(img);
      else img.addEventListener("load", function () { mark(img); }, { once: true });
    });
  }

  document.addEventListener("click", function (ev) {
    var img = ev.target.closest && ev.target.closest("div.cell_output img.dpb-zoomable");
    if (img) { ev.preventDefault(); open(img); }
  });
  document.addEventListener("keydown", function (ev) {
    if (view && ev.key === "Escape") { close(); return; }
    var img = ev.target.closest && ev.target.closest("div.cell_output img.dpb-zoomable");
    if (img && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); open(img); }
  });
  function blockOf(el) {
    var b = el.parentElement;
    while (b && getComputedStyle(b).display.indexOf("inline") === 0) b = b.parentElement;
    return b;
  }

  function fitFormulas() {
    var all = Array.prototype.slice.call(
      document.querySelectorAll('mjx-container:not([display="true"])'));
    all.forEach(function (m) { m.classList.remove("dpb-math-own-line"); });
    var wide = all.filter(function (m) {   // measured together: one layout
      if (!m.getClientRects().length) return false;  // inside a closed dropdown
      var b = blockOf(m);
      if (!b) return false;
      var cs = getComputedStyle(b);
      var room = b.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      return m.getBoundingClientRect().width > room + 1;
    });
    wide.forEach(function (m) { m.classList.add("dpb-math-own-line"); });
  }

  var pending = null;
  function fitSoon() {
    if (pending) clearTimeout(pending);
    pending = setTimeout(function () { pending = null; fitFormulas(); }, 60);
  }

  function fitAfterMathJax() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fitFormulas);
    }
  }

  window.addEventListener("load", fitAfterMathJax);
  window.addEventListener("resize", fitSoon);
  document.addEventListener("toggle", fitSoon, true);   // <details> dropdowns
  document.addEventListener("click", function (ev) {    // sphinx-togglebutton dropdowns
    if (ev.target.closest && ev.target.closest(".toggle-button, .admonition.dropdown, summary")) fitSoon();
  });
  window.addEventListener("resize", markAll);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", markAll);
  else markAll();
})();
