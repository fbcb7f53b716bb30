// The "Live" control of the dpb book.
//
// Chapter pages show, in place of each widget, a notice with a Live button (the widget's HTML
// fallback, see dpb/widgets/core.py), and this script adds one Live button at the top of the
// chapter. A click opens this page's notebook live -- executed by a Jupyter kernel, every widget
// working -- at the address window.DPB_LIVE.url (from _static/dpb-live-config.js). The book served
// by `make live` gets a same-origin, relative address ("/voila/render/{name}") from its server,
// with no secret in it (the reader's login cookie does the rest), and asks that server to
// pre-render the chapter while the page is read (window.DPB_LIVE.warm); a hosted copy sets
// `dpb_live_url` in _config.yml. With no server the buttons say, in one line, how to get one.
// {notebook} in the address is the notebook's path in the repository, {name} its file name.
(function () {
  "use strict";

  function config() {
    return window.DPB_LIVE || { url: "", label: "", repository: "" };
  }

  function notebookPath() {
    var meta = document.querySelector('meta[name="dpb-notebook"]');
    return meta ? meta.getAttribute("content") : null;
  }

  function fill(template) {
    var nb = notebookPath();
    if (!template || !nb) return null;
    var enc = function (s) { return s.split("/").map(encodeURIComponent).join("/"); };
    return template.split("{notebook}").join(enc(nb)).split("{name}").join(enc(nb.split("/").pop()));
  }

  function liveUrl() { return fill(config().url); }

  function explorers(n) { return n + " interactive explorer" + (n === 1 ? "" : "s"); }

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function how() {
    var repo = config().repository;
    var where = repo
      ? "get the book's source with <code>git clone " + escapeHtml(repo) + "</code>, then in that folder run " +
        "<code>make live</code> and open the address it prints"
      : "in a copy of the book's source repository, run <code>make live</code> and open the address it prints";
    return "No live server is attached to this page: " + where +
      " (or run the chapter in JupyterLab with <code>make lab</code>).";
  }

  function cookie(name) {
    var m = document.cookie.match("(?:^|;\\s*)" + name + "=([^;]*)");
    return m ? decodeURIComponent(m[1]) : "";
  }

  // `make live` only: start pre-rendering this chapter in a kernel while the reader reads it,
  // with the one-time nonce the server wrote into this page (only into pages the reader opened).
  function warm() {
    var url = fill(config().warm);
    var nonce = document.querySelector('meta[name="dpb-warm"]');
    if (!url || !nonce || !window.fetch) return;
    fetch(url, { method: "POST", credentials: "same-origin",
                 headers: { "X-XSRFToken": cookie("_xsrf"), "X-DPB-Warm": nonce.getAttribute("content") } })
      .catch(function () { /* not logged in yet: Live will ask for the login address */ });
  }

  function goLive(event) {
    var url = liveUrl();
    if (url) {
      document.querySelectorAll(".dpb-live-button").forEach(function (b) { b.disabled = true; });
      document.querySelectorAll(".dpb-live-msg").forEach(function (m) {
        m.textContent = "Opening this chapter live on " + (config().label || url) + " ...";
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
    help.innerHTML = how();
  }

  function init() {
    var notices = document.querySelectorAll(".dpb-live-notice");
    if (!notices.length) return;
    var banner = document.createElement("div");
    banner.className = "dpb-live-banner";
    banner.innerHTML = '<button type="button" class="dpb-live-button">Live</button> ' +
      '<span class="dpb-live-msg"></span>';
    banner.querySelector(".dpb-live-msg").textContent = liveUrl()
      ? "Run this chapter and its " + explorers(notices.length) + " on " +
        (config().label || "the live server") + "."
      : "This chapter has " + explorers(notices.length) + "; they need a running Python kernel.";
    var article = document.querySelector("article") || document.querySelector("main") || document.body;
    article.insertBefore(banner, article.firstChild);
    document.querySelectorAll(".dpb-live-button").forEach(function (button) {
      button.disabled = false;
      button.title = liveUrl() ? "Open this chapter live" : "How to go live";
      button.addEventListener("click", goLive);
    });
    if (liveUrl()) warm();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
