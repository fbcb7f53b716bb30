// Tell the ipywidgets embed manager where its fonts and assets live: in _static/widgets/ of the
// built site, next to this file. Otherwise RequireJS resolves its module ids (and so the assets)
// against the page's own URL, which 404s. Runs before require.js, which reads `window.require` as
// its initial configuration.
(function () {
  var here = document.currentScript && document.currentScript.src;
  if (!here) return;
  var base = here.replace(/[^/]*$/, "") + "widgets/";
  window.__jupyter_widgets_assets_path__ = base;
  window.require = { paths: { "@jupyter-widgets/html-manager/dist": base.replace(/\/$/, "") } };
})();
