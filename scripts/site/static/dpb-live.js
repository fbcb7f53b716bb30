// The "Live" control of the dpb book.
//
// Chapter pages show, in place of each widget, a notice with a Live button (the widget's HTML
// fallback, see dpb/widgets/core.py), and this script adds one Live button at the top of the
// chapter. A click opens this page's notebook live -- executed by a Jupyter kernel, every widget
// working -- on the server named in window.DPB_LIVE.url (from _static/dpb-live-config.js: `make
// live` serves one pointing at its local Jupyter server; a hosted copy sets `dpb_live_url` in
// _config.yml). With no server the buttons say, in one line, how to start one.
(function () {
  "use strict";

  function config() {
    return window.DPB_LIVE || { url: "", label: "" };
  }

  function notebookPath() {
    var meta = document.querySelector('meta[name="dpb-notebook"]');
    return meta ? meta.getAttribute("content") : null;
  }

  function liveUrl() {
    var url = config().url, nb = notebookPath();
    if (!url || !nb) return null;
    return url.split("{notebook}").join(nb.split("/").map(encodeURIComponent).join("/"));
  }

  var HOW = "No live server is attached to this page: run <code>make live</code> in the repository and " +
    "open the address it prints (or run the chapter in JupyterLab with <code>make lab</code>).";

  function goLive(event) {
    var url = liveUrl();
    if (url) {
      document.querySelectorAll(".dpb-live-button").forEach(function (b) { b.disabled = true; });
      document.querySelectorAll(".dpb-live-msg").forEach(function (m) {
        m.textContent = "Starting a kernel for this chapter on " + (config().label || url) + " ...";
      });
      window.location.assign(url);
      return;
    }
    var holder = event.currentTarget.parentNode;
    var help = holder.querySelector(".dpb-live-help");
    if (!help) {
      help = document.createElement("span");
      help.className = "dpb-live-help";
      holder.appendChild(help);
    }
    help.innerHTML = HOW;
  }

  function init() {
    var notices = document.querySelectorAll(".dpb-live-notice");
    if (!notices.length) return;
    var banner = document.createElement("div");
    banner.className = "dpb-live-banner";
    banner.innerHTML = '<button type="button" class="dpb-live-button">Live</button> ' +
      '<span class="dpb-live-msg"></span>';
    banner.querySelector(".dpb-live-msg").textContent = liveUrl()
      ? "Run this chapter and its " + notices.length + " interactive explorers on " +
        (config().label || "the live server") + "."
      : "This chapter has " + notices.length + " interactive explorers; they need a running Python kernel.";
    var article = document.querySelector("article") || document.querySelector("main") || document.body;
    article.insertBefore(banner, article.firstChild);
    document.querySelectorAll(".dpb-live-button").forEach(function (button) {
      button.disabled = false;
      button.title = liveUrl() ? "Open this chapter live" : "How to go live";
      button.addEventListener("click", goLive);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
