"""Print one digest of the code that makes the numbers: the provenance of every registered policy
(:func:`dpb.experiments.store.chunk_provenance`).

Run it before and after an edit.  The same digest means the edit changes no number's code hash:
the committed reference samples (``tests/data/reference``), the coverage data
(``tests/data/coverage``) and every reader's cached results stay valid.  A different digest means
they must be recomputed (``make oracle``; ``tests/test_coverage.py``) and committed with the edit.
``--each`` prints one line per policy instead."""
import hashlib
import json
import sys

from dpb.experiments.store import chunk_provenance
from dpb.policies import policy_names


def main() -> None:
    each = "--each" in sys.argv[1:]
    total = hashlib.sha256()
    for name in sorted(policy_names()):
        line = json.dumps(chunk_provenance(name), sort_keys=True)
        total.update(name.encode() + b"\0" + line.encode() + b"\n")
        if each:
            print(name, hashlib.sha256(line.encode()).hexdigest()[:16])
    print("numbers stamp", total.hexdigest()[:16])


if __name__ == "__main__":
    main()
