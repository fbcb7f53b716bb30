"""dpb.widgets.core: redraw on release, coalesced bursts, the Run button, the static-site notice."""

import asyncio

import ipywidgets as W
import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpb.widgets.core import NOTICE_HTML, Coalescer, explorer  # noqa: E402


def _plot(calls):
    def plot(a, b=1.0):
        calls.append((a, b))
        fig, ax = plt.subplots(figsize=(2, 1))
        ax.plot([0, 1], [a, b])
        return fig
    return plot


def test_controls_update_on_release_and_first_draw_is_shown():
    calls = []
    box = explorer(_plot(calls), {"a": W.FloatSlider(value=0.5)}, "t")
    assert box.controls["a"].continuous_update is False
    assert calls == [(0.5, 1.0)] and box.redraws == 1
    assert box.output.outputs[0]["data"]["image/png"]


def test_mimebundle_has_widget_view_and_notice():
    box = explorer(_plot([]), {"a": W.FloatSlider(value=0.5)})
    data = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/html"] == NOTICE_HTML and "make live" in NOTICE_HTML and "make lab" in NOTICE_HTML


def test_burst_of_changes_in_a_kernel_loop_costs_one_redraw():
    calls = []
    box = explorer(_plot(calls), {"a": W.FloatSlider(value=0.0, min=0, max=1, step=0.1)})

    async def drag():
        for k in range(1, 11):
            box.controls["a"].value = k / 10
            await asyncio.sleep(0.01)
        while box.coalescer.pending:
            await asyncio.sleep(0.05)

    asyncio.run(drag())
    assert calls == [(0.0, 1.0), (1.0, 1.0)]  # the first draw, then one with the last value


def test_outside_a_loop_each_change_redraws_at_once():
    ran = []
    c = Coalescer(lambda: ran.append(1))
    c()
    c()
    assert ran == [1, 1] and not c.pending
    with pytest.raises(ValueError, match="quiet"):
        Coalescer(lambda: None, quiet=-1)


def test_run_button_defers_and_reports_progress():
    calls, seen = [], []

    def plot(a, progress=None):
        progress(1, 2)
        seen.append(1)
        progress(2, 2)
        return _plot(calls)(a)

    box = explorer(plot, {"a": W.IntSlider(value=1)}, run_button=True)
    assert box.redraws == 1
    box.controls["a"].value = 3
    assert box.redraws == 1 and calls == [(1, 1.0)]  # moving a control does not simulate
    button = box.children[1].children[0]
    button.click()
    assert box.redraws == 2 and calls[-1] == (3, 1.0)


def test_errors_are_shown_not_raised():
    def bad(a):
        raise ValueError("a must be positive")

    box = explorer(bad, {"a": W.IntSlider(value=1)})
    assert "a must be positive" in box.output.outputs[0]["text"]


def test_front_end_cannot_widen_a_control_or_set_it_outside_its_range():
    """Issue 36: state a page sends through the kernel's websocket (``set_state``, what ipywidgets
    applies for a comm ``update``): a slider's range stays, its value is clamped, NaN is dropped,
    a dropdown's options stay and a bad index is dropped; other widgets take no state at all."""
    from dpb.widgets.core import float_control, int_control

    calls = []

    def plot(a, n, kind):
        calls.append((a, n, kind))
        fig, ax = plt.subplots()
        ax.plot([0, a], [0, n])
        return fig

    box = explorer(plot, {"a": float_control("a", 0.5, 0.0, 1.0, 0.1, "a"),
                          "n": int_control("n", 3, 1, 10, "n"),
                          "kind": W.Dropdown(options=["x", "y"], value="x")}, quiet=0)
    n, a, kind = box.controls["n"], box.controls["a"], box.controls["kind"]
    n.set_state({"max": 10**9, "min": -(10**9), "value": 10**9})
    assert (n.min, n.max, n.value) == (1, 10, 10)
    a.set_state({"value": float("nan")})
    assert a.value == 0.5
    a.set_state({"value": -1e300, "step": 1e-300})
    assert (a.value, a.step) == (0.0, 0.1)
    kind.set_state({"options": ["x", "y", "z" * 10**6], "index": 2})
    assert kind.options == ("x", "y") and kind.value == "x"
    kind.set_state({"index": 1})
    assert kind.value == "y"
    assert max(abs(c[1]) for c in calls) <= 10 and all(abs(c[0]) <= 1 for c in calls)
    box.output.set_state({"outputs": [{"output_type": "stream", "name": "stdout", "text": "forged"}]})
    assert "forged" not in str(box.output.outputs)
