/* The menu and contents buttons of the dpb book on phones and tablets (checked at 390 and 800 px
 * by tests/test_reading.py).
 *
 * The page has two copies of each button: one in the theme's top bar, hidden by the book layout,
 * and one in the article header, the one a reader sees.  pydata-sphinx-theme (which opens the
 * navigation and the page contents as drawers) and sphinx-book-theme (which collapses the sidebar
 * on wide screens) bind their handlers to the *first* copy only, so the visible buttons did
 * nothing.  Here every other copy forwards its click to the first one, which runs the themes' own
 * handlers: the same drawer, the same focus handling, the same Escape to close. */
(function () {
  "use strict";
  function forward(selector) {
    var all = document.querySelectorAll(selector);
    if (all.length < 2) return;
    var bound = all[0];
    Array.prototype.slice.call(all, 1).forEach(function (button) {
      button.addEventListener("click", function (event) {
        event.preventDefault();
        event.stopPropagation();
        bound.click();
      });
    });
  }
  /* The chevrons that unfold a part of the navigation are <summary> elements holding only an
   * icon: a screen reader announced them without a name.  Each is named after its entry. */
  function nameSummaries() {
    document.querySelectorAll("nav summary, .bd-sidebar summary").forEach(function (summary) {
      if (summary.textContent.trim() || summary.hasAttribute("aria-label")) return;
      var item = summary.closest("li");
      var link = item && item.querySelector("a");
      var name = link ? link.textContent.trim() : "";
      summary.setAttribute("aria-label", name ? "Sections of " + name : "Show or hide sections");
    });
  }
  function init() {
    forward(".primary-toggle");
    forward(".secondary-toggle");
    nameSummaries();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
