"""Dependencies point one way: no import cycle among the project's modules, and the library never imports the app.

The graph is read from the source with ``ast`` (nothing is imported): every ``import`` and ``from … import``
of a project module, at module level or inside a function, is an edge.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("layerzero_viz", "ui")
APP = ("ui", "app_pages", "streamlit")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    """Every module of the packages by name: Python sources, and compiled extensions (Cython) as leaves."""
    found = {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.pyx"))}
    found.update({_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))})
    return found


def _imported(node: ast.AST, module: str, is_package: bool, modules: dict[str, Path]) -> list[str]:
    """The absolute names ``node`` imports: for ``from x import y``, ``x.y`` when it is a module, else ``x``."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module ``name`` is (or lies in): the longest known prefix; None outside the project."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _without_type_checking(tree: ast.Module) -> ast.Module:
    """``tree`` less its ``if TYPE_CHECKING:`` blocks: imports for annotations only never run, so they make no
    cycle at import time (a type checker resolves them lazily)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list):
                setattr(node, field, [n for n in body if not (
                    isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING")])
    return tree


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(edges between project modules, every top-level name each module imports)."""
    modules = _modules()
    edges: dict[str, set[str]] = {m: set() for m in modules}
    tops: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        if path.suffix != ".py":
            continue  # a compiled extension imports nothing of ours
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(_without_type_checking(tree)):
            for name in _imported(node, module, is_package, modules):
                if not name:
                    continue
                tops[module].add(name.split(".")[0])
                target = _resolve(name, modules)
                if target is not None and target != module:
                    edges[module].add(target)
    # importing a.b.c runs the __init__ of a and a.b first
    for module in modules:
        for target in list(edges[module]):
            parts = target.split(".")[:-1]
            while parts:
                parent = ".".join(parts)
                if parent in modules and parent != module and not module.startswith(parent + "."):
                    edges[module].add(parent)
                parts.pop()
    return edges, tops


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_the_project():
    edges, _ = import_graph()
    assert "layerzero_viz.profile" in edges["layerzero_viz.engine"]
    assert "layerzero_viz.profile" in edges["layerzero_viz.advisor.profiles"]
    assert "ui.cache" in edges["ui.session"]


def test_no_import_cycle():
    edges, _ = import_graph()
    found = cycles(edges)
    assert not found, "import cycles:\n" + "\n".join(" ↔ ".join(c) for c in found)


def test_the_library_never_imports_the_app():
    _, tops = import_graph()
    bad = {m: sorted(t & set(APP)) for m, t in tops.items() if m.startswith("layerzero_viz") and t & set(APP)}
    assert not bad, f"layerzero_viz imports the app: {bad}"


def test_the_core_never_imports_the_advisor():
    edges, _ = import_graph()
    core = [m for m in edges if m.startswith("layerzero_viz") and not m.startswith(("layerzero_viz.advisor",))]
    bad = {m: sorted(t for t in edges[m] if t.startswith("layerzero_viz.advisor")) for m in core}
    allowed = {"layerzero_viz.commands", "layerzero_viz.cli"}  # the command line offers the advisor's commands
    bad = {m: t for m, t in bad.items() if t and not m.startswith(tuple(allowed))}
    assert not bad, f"core modules import the advisor: {bad}"


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
