"""The one pattern every explorer uses: controls + an output area redrawn by a plotting function.

Three rules keep the explorers responsive and honest wherever the book is read:

- **Redraw on release, coalesced.**  Every control that has ``continuous_update`` gets
  ``continuous_update=False`` (a slider sends its value when released, a text box on Enter), and
  changes that arrive while the kernel is busy or within :data:`QUIET_SECONDS` of each other are
  coalesced into a single redraw with the latest values (:class:`Coalescer`).  A drag across ten
  values therefore costs at most two recomputations instead of ten.
- **Expensive settings behind a button.**  With ``run_button=True`` nothing is computed when a
  control moves; a "Run" button redraws, and a progress bar follows the plotting function's
  ``progress(done, total)`` callback when it accepts one.
- **No dead controls without a kernel.**  The widget's rich output carries, next to the live widget
  view, an HTML fallback (:data:`NOTICE_HTML`): a one-line notice that the explorer needs a kernel
  and how to get one (``make live`` or ``make lab``).  Front ends that run widgets (JupyterLab,
  Voilà) show the widget; the built book, which does not render widget views, shows the notice.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import time
from collections.abc import Callable

import ipywidgets as W
import matplotlib.pyplot as plt

__all__ = ["explorer", "Explorer", "Coalescer", "figure_output", "NOTICE_HTML", "QUIET_SECONDS"]

#: Seconds without a new change before a coalesced redraw starts.
QUIET_SECONDS = 0.15

#: What a front end without a kernel shows instead of the widget (the built book, GitHub).  The
#: ``dpb-live-button`` is wired by the site's ``dpb-live.js``; elsewhere it is an inert label.
NOTICE_HTML = (
    '<div class="dpb-live-notice"><button type="button" class="dpb-live-button" disabled>Live</button> '
    "<span>Interactive explorer: it needs a running Python kernel. Go live with <code>make live</code> "
    "(this page, in the browser) or <code>make lab</code> (JupyterLab); the figure above shows its "
    "default parameters.</span></div>"
)


class Explorer(W.VBox):
    """A ``VBox`` whose rich output also carries :data:`NOTICE_HTML` for front ends without widgets.

    Attributes
    ----------
    controls : dict
        Keyword name -> control, as given to :func:`explorer`.
    output : ipywidgets.Output
        The output area holding the current figure.
    redraws : int
        How many times the plotting function has been called (the benchmark reads it).
    redraw : callable
        ``redraw()`` draws now with the controls' current values.
    """

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        if data is not None:
            data["text/html"] = NOTICE_HTML
        return data


class Coalescer:
    """Call ``action()`` once for a burst of requests.

    Inside a running asyncio event loop (an IPython kernel handling widget messages), a request
    (re)starts a timer of ``quiet`` seconds and ``action`` runs when it expires, so a burst of
    changes, including those queued while a previous redraw was running, ends in one call with the
    latest values.  Outside an event loop (plain Python, tests) ``action`` runs at once.

    Parameters
    ----------
    action : callable
        Called without arguments.
    quiet : float
        Seconds without a new request before ``action`` runs; 0 runs at once.
    """

    def __init__(self, action: Callable[[], None], quiet: float = QUIET_SECONDS):
        if quiet < 0:
            raise ValueError(f"quiet must be >= 0 seconds, got {quiet!r}")
        self.action = action
        self.quiet = float(quiet)
        self._handle: asyncio.TimerHandle | None = None

    def __call__(self, *_args) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self.quiet == 0:
            self.action()
            return
        if self._handle is not None:
            self._handle.cancel()
        self._handle = loop.call_later(self.quiet, self._fire)

    @property
    def pending(self) -> bool:
        """Whether a coalesced call is waiting for its quiet period to end."""
        return self._handle is not None

    def _fire(self) -> None:
        self._handle = None
        self.action()


def figure_output(fig) -> dict:
    """The notebook output (``display_data``) of a matplotlib figure: PNG plus a text label."""
    from IPython.core.pylabtools import print_figure

    png = print_figure(fig, "png", bbox_inches="tight")
    return {
        "output_type": "display_data",
        "data": {"image/png": base64.b64encode(png).decode("ascii"),
                 "text/plain": f"<Figure size {fig.get_figwidth():g}x{fig.get_figheight():g} in>"},
        "metadata": {},
    }


def _error_output(exc: BaseException) -> dict:
    return {"output_type": "stream", "name": "stderr",
            "text": f"Cannot draw: {type(exc).__name__}: {exc}\n"}


def explorer(plot, controls: dict, title: str | None = None, run_button: bool = False,
             quiet: float = QUIET_SECONDS) -> Explorer:
    """Build a widget that calls ``plot(**values)`` and shows its figure when the controls change.

    Parameters
    ----------
    plot : callable
        A :mod:`dpb.plotting` function returning a matplotlib Figure.  With ``run_button=True`` and a
        ``progress`` parameter, it is called with ``progress=callback`` where ``callback(done,
        total)`` moves the progress bar.
    controls : dict
        Keyword name -> ipywidget (its ``value`` is passed to ``plot``).  Controls with a
        ``continuous_update`` trait are set to ``continuous_update=False`` (update on release).
    title : str, optional
        A line of text above the controls.
    run_button : bool
        If true, moving a control only marks the figure as out of date; a "Run" button redraws,
        with a progress bar.  For settings that take seconds or more.
    quiet : float
        Seconds of quiet before a coalesced redraw (see :class:`Coalescer`); 0 redraws at once.

    Returns
    -------
    Explorer
        The widget; it shows the figure at the controls' initial values at once.
    """
    if not controls:
        raise ValueError("controls must name at least one control")
    for control in controls.values():
        if hasattr(control, "continuous_update"):
            control.continuous_update = False
    out = W.Output()
    takes_progress = "progress" in inspect.signature(plot).parameters
    bar = W.FloatProgress(value=0.0, min=0.0, max=1.0, description="", bar_style="info",
                          layout=W.Layout(width="240px", visibility="hidden"))
    status = W.HTML("")

    def draw() -> None:
        values = {name: c.value for name, c in controls.items()}
        kwargs = dict(values)
        if run_button and takes_progress:
            def progress(done: int, total: int) -> None:
                bar.value = done / max(total, 1)
            kwargs["progress"] = progress
        box.redraws += 1
        t0 = time.perf_counter()
        if run_button:
            bar.value = 0.0
            bar.layout.visibility = "visible"
            status.value = "running…"
        try:
            fig = plot(**kwargs)
        except Exception as exc:  # shown in the output area, as a traceback would be in a cell
            out.outputs = (_error_output(exc),)
            status.value = ""
            return
        finally:
            bar.layout.visibility = "hidden"
        try:
            out.outputs = (figure_output(fig),)
        finally:
            plt.close(fig)
        if run_button:
            status.value = f"done in {time.perf_counter() - t0:.1f} s"

    rows = [W.HBox(list(controls.values()), layout=W.Layout(flex_flow="row wrap")), out]
    if run_button:
        button = W.Button(description="Run", button_style="primary", icon="play")
        button.on_click(lambda _b: draw())

        def stale(_change) -> None:
            status.value = "settings changed: press Run"

        for control in controls.values():
            control.observe(stale, names="value")
        rows.insert(1, W.HBox([button, bar, status]))
    if title:
        rows.insert(0, W.HTML(f"<b>{title}</b>"))
    box = Explorer(rows)
    box.controls = controls
    box.output = out
    box.redraws = 0
    box.redraw = draw
    if not run_button:
        coalesce = Coalescer(draw, quiet)
        for control in controls.values():
            control.observe(coalesce, names="value")
        box.coalescer = coalesce
    draw()
    return box
