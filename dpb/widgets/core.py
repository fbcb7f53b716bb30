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
import math
import numbers
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import ipywidgets as W
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .._first_draw import first_draw
from .._validate import as_flag, as_real

__all__ = ["explorer", "Explorer", "Coalescer", "figure_output", "control", "eps_control", "float_control",
           "int_control", "NOTICE_HTML", "QUIET_SECONDS"]

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


def _option_values(options) -> list:
    return [o[1] if isinstance(o, tuple) and len(o) == 2 and isinstance(o[0], str) else o for o in options]


def _same(a, b) -> bool:
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False  # True == 1, but a bool is no numeric option
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays and other odd values are no option
        return False


def _quiet(quiet) -> float:
    return as_real("quiet", quiet, low=0.0, high=60.0)  # seconds


_Control = TypeVar("_Control")


def control(name: str, factory: Callable[..., _Control], **kwargs: Any) -> _Control:
    """The control ``factory(**kwargs)`` for the explorer parameter ``name``, or a clear error.

    A control silently clamps a value outside its range to the nearest end, and raises a
    ``TraitError`` for a value of the wrong kind or not among its options.  This checks the
    initial ``value`` first: ``TypeError`` (wrong type: a string, a bool or None where a number is
    meant) or ``ValueError`` naming ``name`` and the control's range or options, before the
    control is built.

    Parameters
    ----------
    name : str
        The explorer's parameter (the control's key), named by the errors.
    factory : type
        An ``ipywidgets`` control class (slider, dropdown, text box, ...).
    **kwargs
        Its arguments, ``value`` included; ``style`` defaults to a description shown in full
        (``{"description_width": "initial"}``).
    """
    kwargs.setdefault("style", {"description_width": "initial"})  # the whole description shows
    value: Any = kwargs.get("value")
    if "options" in kwargs:
        allowed = _option_values(kwargs["options"])
        values = value if factory is W.SelectMultiple else (value,)
        if factory is W.SelectMultiple and not isinstance(value, tuple):
            raise TypeError(f"{name} must be a tuple of options, got {value!r}")
        for v in values:
            if not any(_same(v, a) for a in allowed):
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {v!r}")
    elif factory in (W.Text, W.Textarea):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    elif "min" in kwargs or "max" in kwargs or factory.__name__.endswith(("Slider", "Text")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
        integral = factory.__name__.startswith(("Int", "BoundedInt"))
        if integral and not float(value).is_integer():
            raise ValueError(f"{name} must be an integer, got {value!r}")
        lo, hi = kwargs.get("min", -math.inf), kwargs.get("max", math.inf)
        if factory is W.FloatLogSlider:
            base = kwargs.get("base", 10.0)
            lo, hi = base ** lo, base ** hi
        if not lo <= value <= hi:  # NaN fails too
            raise ValueError(f"{name} must lie in [{lo:g}, {hi:g}] (the range of its control), got {value!r}")
    return factory(**kwargs)


#: The state a front end may set on a control: a slider, text box or checkbox sends ``value``, a
#: dropdown or list sends ``index``; its range, step, options and everything else stay the kernel's.
FRONT_END_KEYS = frozenset({"value", "index"})


def guard_front_end(widget, keys=FRONT_END_KEYS) -> None:
    """Let the front end (a page's websocket) set only ``keys`` of ``widget``, within its range.

    ipywidgets applies any state a front end sends, ``min``/``max``/``options`` included, so a page
    could widen a slider and ask for any size of computation.  After this, other keys are dropped,
    a numeric ``value`` that is not finite is dropped and one outside ``[min, max]`` is clamped to
    the nearest end (as the slider itself would), and a bad ``index`` is dropped.
    """
    original = widget.set_state

    def set_state(sync_data):
        state = {k: v for k, v in dict(sync_data).items() if k in keys and k in widget.keys}
        value = state.get("value")
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and hasattr(widget, "max"):
            if not math.isfinite(value):
                state.pop("value")
            else:
                lo, hi = widget.min, widget.max
                if isinstance(widget, W.FloatLogSlider):
                    lo, hi = widget.base ** lo, widget.base ** hi
                state["value"] = min(max(value, lo), hi)
        if "index" in state:
            n = len(getattr(widget, "options", ()))

            def ok(i) -> bool:
                return isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n

            idx = state["index"]
            if not (ok(idx) or idx is None or (isinstance(idx, (list, tuple)) and all(map(ok, idx)))):
                state.pop("index")
        if state:
            original(state)

    widget.set_state = set_state


def eps_control(value: float, low: float = -2, high: float = 1) -> W.FloatLogSlider:
    """The control of a privacy budget ``eps``: a log slider from ``10**low`` to ``10**high``."""
    return control("eps", W.FloatLogSlider, value=value, base=10, min=low, max=high, step=0.05,
                   description="ε")


def float_control(name: str, value: float, low: float, high: float, step: float, description: str,
                  **kwargs: Any) -> W.FloatSlider:
    """The slider of a real parameter ``name`` from ``low`` to ``high`` in steps of ``step``."""
    return control(name, W.FloatSlider, value=value, min=low, max=high, step=step, description=description,
                   **kwargs)


def int_control(name: str, value: int, low: int, high: int, description: str, step: int = 1) -> W.IntSlider:
    """The slider of an integer parameter ``name`` from ``low`` to ``high`` in steps of ``step``."""
    return control(name, W.IntSlider, value=value, min=low, max=high, step=step, description=description)


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
    last_error : Exception or None
        Why the last redraw showed a message instead of its figure: the exception the plotting
        function raised (shown as ``Cannot draw: ...``), or the one behind a message figure it
        returned (a figure with the attribute ``dpb_error``, as
        :func:`dpb.widgets.lower_bound.message_on_error` makes); None when the last redraw drew
        its figure.  The
        explorer never raises from a redraw (a live control must stay usable), so this is where
        a program or a test sees a redraw fail.
    """

    def __init__(self, children: Iterable[W.Widget] = (), **kwargs: Any) -> None:
        if isinstance(children, (str, bytes)) or not hasattr(children, "__iter__"):
            raise TypeError(f"children must be a sequence of widgets, got {type(children).__name__}")
        children = tuple(children)
        if not all(isinstance(c, W.Widget) for c in children):
            raise TypeError(f"children must be a sequence of widgets, got {children!r}")
        super().__init__(children=children, **kwargs)

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
        if not callable(action):
            raise TypeError(f"action must be callable, got {type(action).__name__} {action!r}")
        quiet = _quiet(quiet)
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


def figure_output(fig: Figure) -> dict:
    """The notebook output (``display_data``) of a matplotlib figure: PNG plus a text label."""
    from IPython.core.pylabtools import print_figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__} {fig!r}")
    # the whole figure as laid out (constrained layout, or a plot's fixed margins, which the plot
    # tests check for clipped text): no "tight" crop, which lays the figure out a second time
    # (a third of a redraw's CPU time, measured on the d_eps explorer)
    png = print_figure(fig, "png", bbox_inches=None)
    return {
        "output_type": "display_data",
        "data": {"image/png": base64.b64encode(png).decode("ascii"),
                 "text/plain": f"<Figure size {fig.get_figwidth():g}x{fig.get_figheight():g} in>"},
        "metadata": {},
    }


def _error_output(exc: BaseException) -> dict:
    return {"output_type": "stream", "name": "stderr",
            "text": f"Cannot draw: {type(exc).__name__}: {exc}\n"}


def _check_explorer(plot, controls, title) -> None:
    """Refuse bad arguments of :func:`explorer` (``TypeError``/``ValueError`` naming them)."""
    if not callable(plot):
        raise TypeError(f"plot must be a plotting function, got {type(plot).__name__} {plot!r}")
    if not isinstance(controls, dict) or not all(isinstance(c, W.ValueWidget) for c in controls.values()):
        raise TypeError(f"controls must be a dict from keyword name to an ipywidgets control, "
                        f"got {controls!r}")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None, got {type(title).__name__}")
    if not controls:
        raise ValueError("controls must name at least one control")


def explorer(plot: Callable[..., Figure], controls: dict, title: str | None = None, run_button: bool = False,
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
    run_button = as_flag("run_button", run_button)
    _check_explorer(plot, controls, title)
    quiet = _quiet(quiet)
    for control in controls.values():
        if hasattr(control, "continuous_update"):
            control.continuous_update = False
        guard_front_end(control)
    out = W.Output()
    takes_progress = "progress" in inspect.signature(plot).parameters
    bar = W.FloatProgress(value=0.0, min=0.0, max=1.0, description="", bar_style="info",
                          layout=W.Layout(width="240px", visibility="hidden"))
    status = W.HTML("")

    def draw() -> None:
        kwargs = {name: c.value for name, c in controls.items()}
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
            box.last_error = exc
            return
        finally:
            bar.layout.visibility = "hidden"
        box.last_error = getattr(fig, "dpb_error", None)
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
    todo, own = [box], {id(c) for c in controls.values()}
    while todo:  # nothing but the controls takes state from the front end
        w = todo.pop()
        todo.extend(getattr(w, "children", ()))
        if id(w) not in own:
            guard_front_end(w, keys=frozenset())
    box.controls = controls
    box.output = out
    box.redraws = 0
    box.last_error = None
    box.redraw = draw
    if not run_button:
        coalesce = Coalescer(draw, quiet)
        for control in controls.values():
            control.observe(coalesce, names="value")
        box.coalescer = coalesce
    first_draw(box, plot, title)  # at the defaults: drawn, or kept by `make live` ($DPB_LIVE_FIGURES)
    return box
