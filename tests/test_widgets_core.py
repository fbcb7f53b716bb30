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
