"""Ctrl-C told apart from a ``KeyboardInterrupt`` that code raises itself.

A user's policy may ``raise KeyboardInterrupt`` (or call ``sys.exit``) at import or in a method;
the runner must report that as the policy's failure, in one line naming the file, and still stop
at once on a real Ctrl-C.  :func:`watching` installs, for the duration of a ``with`` block in the
main thread, a SIGINT handler that counts the signals before raising ``KeyboardInterrupt`` as the
default handler does; :meth:`Watch.real` then says whether a ``KeyboardInterrupt`` came from a
signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["Watch", "watching"]


class Watch:
    """Counts SIGINT signals while installed (see :func:`watching`)."""

    def __init__(self) -> None:
        self.signals = 0
        self.installed = False

    def _handler(self, signum, frame):
        self.signals += 1
        raise KeyboardInterrupt

    def real(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a Ctrl-C (or SIGTERM turned into one) rather than raised by code: any
        ``KeyboardInterrupt`` when no handler could be installed (not the main thread), or a
        subclass (the command line's SIGTERM), counts as real."""
        if not isinstance(exc, KeyboardInterrupt):
            return False
        return not self.installed or type(exc) is not KeyboardInterrupt or self.signals > 0


@contextlib.contextmanager
def watching():
    """Install a counting SIGINT handler (main thread, default handler in place) while in the
    block; yields the :class:`Watch`."""
    watch = Watch()
    previous = None
    if threading.current_thread() is threading.main_thread():
        current = signal.getsignal(signal.SIGINT)
        if current is signal.default_int_handler:
            previous = signal.signal(signal.SIGINT, watch._handler)
            watch.installed = True
    try:
        yield watch
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
