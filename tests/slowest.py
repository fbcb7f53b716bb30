"""Print the N slowest test phases recorded in a durations file (``make test``'s last step).

``tests/conftest.py`` appends ``seconds<TAB>phase<TAB>nodeid`` for every setup, call and teardown
of a pytest run to ``$DPB_DURATIONS``; ``make test`` runs pytest twice (the tests that need no
build, beside the build; then the tests of the build), so this prints the slowest of both::

    python tests/slowest.py _build/test-durations.tsv 20
"""

import sys


def main(path: str, n: int) -> None:
    rows = []
    try:
        with open(path) as f:
            for line in f:
                seconds, when, nodeid = line.rstrip("\n").split("\t", 2)
                rows.append((float(seconds), when, nodeid))
    except FileNotFoundError:
        print(f"no test durations recorded in {path}")
        return
    rows.sort(reverse=True)
    print(f"\n{n} slowest test phases of `make test` (of {len(rows)}; wall seconds, two workers):")
    for seconds, when, nodeid in rows[:n]:
        print(f"{seconds:8.2f}s {when:<8} {nodeid}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20)
