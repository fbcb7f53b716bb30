"""Measures of the package's size and structure: code lines and import circles.

``python benchmarks/code_measures.py [dpb]`` prints

* the lines of code of every module (a line counts when it holds a token other than a comment, a
  docstring -- the first string statement of a module, class or function --, or a line break);
* the import circles between the package's modules, function-level imports included: the strongly
  connected components of the graph "module A imports module B" (``from . import x`` counts as an
  import of the package and of ``x`` when ``x`` is a submodule), each listed with its modules.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path


def _docstring_lines(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.update(range(body[0].lineno, body[0].end_lineno + 1))
    return out


def code_lines(path: Path) -> int:
    """Lines of ``path`` holding code (not blank, not only a comment, not a docstring)."""
    src = path.read_text()
    docs = _docstring_lines(ast.parse(src))
    lines = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in skip:
            continue
        for line in range(tok.start[0], tok.end[0] + 1):
            if line not in docs:
                lines.add(line)
    return len(lines)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports (anywhere in its code)."""
    files = sorted(root.rglob("*.py"))
    names = {_module_name(f, root): f for f in files}
    graph: dict[str, set[str]] = {}
    for name, f in names.items():
        is_pkg = f.name == "__init__.py"
        package = name if is_pkg else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                deps.add(mod)
                deps.update(f"{mod}.{a.name}" for a in node.names)
        graph[name] = {d for d in deps if d in names and d != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(root: str = "dpb") -> None:
    root = Path(root)
    total = sum(code_lines(f) for f in root.rglob("*.py"))
    print(f"code lines of {root}/ (no blank, comment or docstring lines): {total}")
    graph = import_graph(root)
    # a package's __init__ importing its submodules is not a circle in itself: drop the edges
    # from a module to the packages containing it (``from . import x`` inside the package)
    found = circles({m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()})
    print(f"import circles (function-level imports included): {len(found)}")
    for comp in found:
        print("  " + " <-> ".join(comp))


if __name__ == "__main__":
    main(*sys.argv[1:])
