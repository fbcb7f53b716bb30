"""Helpers shared by the test modules (a test module never imports another test module:
``tests/test_test_modules.py`` checks it).

- :mod:`helpers.site`: the built site served on 127.0.0.1 and a headless Chromium (the ``server``
  and ``browser`` fixtures), offline request watching and the offline rendering check;
- :mod:`helpers.pages`: one measured visit of a page per viewport, shared by ``test_reading.py``
  and ``test_layout.py``;
- :mod:`helpers.processes`: the processes of a session (``/proc``), stopped by group or session;
- :mod:`helpers.dask`: a ``dask worker`` process of our own, killable without a nanny;
- :mod:`helpers.results`: damaging a stored result file inside its archive;
- :mod:`helpers.cli`: calling ``dpb``'s ``main`` or a fresh Python from a test.
"""
