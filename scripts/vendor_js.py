"""Put the JavaScript the built book needs into ``_vendor/`` so the site works offline.

The book must typeset math with no internet.  At build time this script installs pinned packages
from the npm registry (``vendor/package.json`` + ``vendor/package-lock.json``) and copies what the
pages load into ``_vendor/`` (git-ignored), which ``_config.yml`` lists in ``html_static_path``:

- ``_vendor/mathjax/``        MathJax 3 (``es5/`` of the ``mathjax`` package; ``mathjax_path``)

``npm ci`` also installs the test-only ``devDependencies`` (axe-core, the accessibility check of
``tests/test_reading.py``, which reads it from ``vendor/node_modules``); they are never copied into
``_vendor/``, so the site never serves them.

The static site renders no widgets (each shows a notice and a "Live" button, see
``scripts/site/dpb_site.py``); live widgets run in JupyterLab or Voila, installed from PyPI.

Nothing is committed; a stamp file makes reruns instant.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "vendor"
OUT = ROOT / "_vendor"
STAMP = OUT / ".stamp"

COPIES = {
    "mathjax/es5": "mathjax",
}
#: our own files, copied as they are
OWN: dict[str, str] = {}


def _fingerprint() -> str:
    h = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        h.update((VENDOR / name).read_bytes())
    for name in OWN:
        h.update((VENDOR / name).read_bytes())
    h.update(repr(sorted(COPIES.items())).encode())
    return h.hexdigest()


def main() -> int:
    fp = _fingerprint()
    if STAMP.exists() and STAMP.read_text() == fp and all((OUT / d).exists() for d in COPIES.values()):
        print("vendor_js: _vendor/ is up to date")
        return 0
    npm = shutil.which("npm")
    if npm is None:
        print("vendor_js: npm is required (Node.js) to fetch MathJax", file=sys.stderr)
        return 1
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=VENDOR, check=True)
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    for src, dst in COPIES.items():
        s = VENDOR / "node_modules" / src
        d = OUT / dst
        if s.is_dir():
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("*.map", "*.md"))
        else:
            shutil.copy2(s, d)
    for src, dst in OWN.items():
        shutil.copy2(VENDOR / src, OUT / dst)
    STAMP.write_text(fp)
    print(f"vendor_js: wrote {', '.join(COPIES.values())} into {OUT.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
