"""No import cycle between swarmstack's modules.

The graph is read from the source with ``ast``: every ``import`` and ``from … import``
statement counts, at any depth (inside functions and methods too), relative imports resolved
against the importing module's package. ``import a.b`` depends on the module ``a.b``;
``from pkg import name`` reads the namespace of ``pkg``, so it depends on ``pkg`` and also on
``pkg.name`` when that is a module. Names outside swarmstack are ignored, and a name that is
not a module resolves to the closest enclosing module. A strongly connected component of more
than one module is a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "swarmstack"
ROOT = Path(__file__).resolve().parents[2] / PACKAGE


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` file under ``root``."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def import_graph(root: Path) -> dict[str, dict[str, list[str]]]:
    """Module -> {imported module -> the import statements (``file:line``) behind the edge}."""
    modules = module_files(root)

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, list[str]]] = {name: {} for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                if target != root.name and not target.startswith(root.name + "."):
                    continue
                imported = owner(target)
                if imported is not None and imported != name:
                    where = f"{path.relative_to(root.parent)}:{node.lineno}"
                    statements = graph[name].setdefault(imported, [])
                    if where not in statements:
                        statements.append(where)
    return graph


def cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def describe(graph: dict[str, dict[str, list[str]]], component: list[str]) -> str:
    members = set(component)
    lines = [f"cycle of {len(component)} modules: {', '.join(component)}"]
    for name in component:
        for imported in sorted(set(graph[name]) & members):
            lines.append(f"    {name} -> {imported}  ({', '.join(graph[name][imported])})")
    return "\n".join(lines)


def test_swarmstack_has_no_import_cycle():
    graph = import_graph(ROOT)
    assert len(graph) > 100, "the package source was not found"
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(graph, c) for c in found)


def test_the_graph_sees_imports_in_functions_and_relative_imports(tmp_path):
    package = tmp_path / "swarmstack"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "inner" / "__init__.py").write_text("from .a import f\n")
    (package / "inner" / "a.py").write_text("def f():\n    from ..b import g\n    return g\n")
    (package / "b.py").write_text("class B:\n    def m(self):\n        import swarmstack.c\n")
    (package / "c.py").write_text("import os\nfrom swarmstack.inner import a\n")
    graph = import_graph(package)
    assert graph["swarmstack.inner.a"] == {"swarmstack.b": ["swarmstack/inner/a.py:2"]}
    assert set(graph["swarmstack.c"]) == {"swarmstack.inner", "swarmstack.inner.a"}
    assert cycles(graph) == [["swarmstack.b", "swarmstack.c", "swarmstack.inner", "swarmstack.inner.a"]]
    (package / "c.py").write_text("import os\n")
    assert cycles(import_graph(package)) == []
