"""The project's import graph, read statically with `ast` (nothing is imported).

Three properties of the packages `advisor`, `ui`, `knowledge` and `rules`:

* no module uses another module's private name: neither ``from x import _y`` nor ``x._y`` where ``x`` is
  an imported project module (imports at module level and inside functions both count; dunder names such
  as ``__version__`` are not private);
* no cycle among the imports that run when a module is loaded (module level, outside
  ``if TYPE_CHECKING:``); imports inside functions run later and may not close a cycle at load time.
* every import inside a function of a project module or of a HEAVY third-party package
  says in a comment why it is not at module level (REASON below).

An edge goes to the module named by the import: ``from a.b import c`` points at ``a.b.c`` when that is a
module, else at ``a.b``. Parent packages' ``__init__`` are not added as edges (all of ours are docstrings).

Run as a script to print today's graph problems: ``python tests/test_import_graph.py``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("advisor", "ui", "knowledge", "rules")
# third-party packages slow to import or only in an extra: a function-level import of one needs a reason too
HEAVY = ("gradio", "langchain", "langchain_core", "langchain_openai", "openai", "slack_bolt", "slack_sdk", "pydantic",
         "pydantic_core", "durable", "fastapi", "starlette", "uvicorn", "psycopg", "psycopg_pool", "playwright", "mcp")


@dataclass(frozen=True)
class Import:
    """One import statement's effect: the module it loads and, for ``from`` imports, the name it takes."""

    source: str
    target: str
    name: str | None
    line: int
    when: str  # "load" (module level), "call" (inside a function) or "typing" (under `if TYPE_CHECKING:`)


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` file of the project packages."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve_relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


class _Walker(ast.NodeVisitor):
    """Collects a module's imports, the local names bound to project modules, and attribute uses."""

    def __init__(self, module: str, is_package: bool, modules: set[str]) -> None:
        self.module, self.is_package, self.modules = module, is_package, modules
        self.imports: list[Import] = []
        self.heavy: list[Import] = []
        self.module_aliases: dict[str, str] = {}
        self.attributes: list[tuple[str, str, int]] = []
        self._depth = 0
        self._type_checking = 0

    def _when(self) -> str:
        return "typing" if self._type_checking else "call" if self._depth else "load"

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self._type_checking += 1
            for child in node.body:
                self.visit(child)
            self._type_checking -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] in HEAVY:
                self.heavy.append(Import(self.module, alias.name, None, node.lineno, self._when()))
            if alias.name.split(".")[0] not in PACKAGES:
                continue
            self.imports.append(Import(self.module, alias.name, None, node.lineno, self._when()))
            if alias.asname:
                self.module_aliases[alias.asname] = alias.name
            else:
                self.module_aliases[alias.name] = alias.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = _resolve_relative(self.module, self.is_package, node.level, node.module)
        else:
            base = node.module or ""
        if base.split(".")[0] in HEAVY and not node.level:
            self.heavy.extend(Import(self.module, base, a.name, node.lineno, self._when()) for a in node.names)
        if base.split(".")[0] not in PACKAGES:
            return
        for alias in node.names:
            full = f"{base}.{alias.name}"
            if full in self.modules:
                self.imports.append(Import(self.module, full, None, node.lineno, self._when()))
                self.module_aliases[alias.asname or alias.name] = full
            else:
                self.imports.append(Import(self.module, base, alias.name, node.lineno, self._when()))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = _dotted(node.value)
        if chain is not None:
            self.attributes.append((chain, node.attr, node.lineno))
        self.generic_visit(node)


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


@dataclass
class Graph:
    """The project's imports and attribute uses of imported project modules."""

    imports: list[Import]
    private_uses: list[str]
    heavy: list[Import] = field(default_factory=list)  # imports of the HEAVY third-party packages

    def edges(self, *when: str) -> dict[str, set[str]]:
        """Module → the project modules it imports, counting only the imports of the kinds `when`."""
        edges: dict[str, set[str]] = {}
        for imp in self.imports:
            if imp.when in when and imp.target != imp.source:
                edges.setdefault(imp.source, set()).add(imp.target)
        return edges


def read_graph(root: Path = ROOT) -> Graph:
    """Walk every project module once; collect imports and uses of other modules' private names."""
    modules = project_modules(root)
    names = set(modules)
    imports: list[Import] = []
    heavy: list[Import] = []
    private: list[str] = []
    for module, path in modules.items():
        walker = _Walker(module, path.name == "__init__.py", names)
        walker.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        imports.extend(walker.imports)
        heavy.extend(walker.heavy)
        rel = path.relative_to(root)
        for imp in walker.imports:
            if imp.name is not None and _is_private(imp.name):
                private.append(f"{rel}:{imp.line}: from {imp.target} import {imp.name}")
        for chain, attr, line in walker.attributes:
            target = walker.module_aliases.get(chain)
            if target is not None and target != module and _is_private(attr):
                private.append(f"{rel}:{line}: {target}.{attr}")
    return Graph(imports, private, heavy)


# A function-level import states why it is not at module level, in a comment on its line or the line above:
# "start-up:" (a scriptable CLI command loads the module but must not load the target), "optional dependency:"
# (the package comes with an extra), "optional:" (the import may fail and is handled), "cycle:" (the target loads
# this module at load time), "late binding:" (the name is looked up at call time, e.g. tests patch it), "name:" (the
# name means something else at module level).
REASON = re.compile(r"#\s*(start-up|optional dependency|optional|cycle|late binding|name):\s*\S")


def unexplained_function_imports(graph: Graph, root: Path = ROOT) -> list[str]:
    """Function-level imports of project modules and HEAVY packages without a reason comment, as "file:line"."""
    modules = project_modules(root)
    texts: dict[str, list[str]] = {}
    missing = set()
    for imp in graph.imports + graph.heavy:
        if imp.when != "call":
            continue
        path = modules[imp.source]
        lines = texts.setdefault(imp.source, path.read_text(encoding="utf-8").splitlines())
        nearby = lines[imp.line - 1:imp.line] + lines[max(imp.line - 2, 0):imp.line - 1]
        if not any(REASON.search(line) for line in nearby):
            missing.add(f"{path.relative_to(root)}:{imp.line}")
    return sorted(missing, key=lambda m: (m.partition(":")[0], int(m.partition(":")[2])))


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan), each sorted, as cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def connect(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return sorted(found)


# --- self-tests on synthetic trees: the checks can fail -------------------------------------------------


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for package in PACKAGES:
        (tmp_path / package).mkdir(exist_ok=True)
        (tmp_path / package / "__init__.py").touch()
    return tmp_path


def test_cycle_finder_on_a_synthetic_graph() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert find_cycles(edges) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_synthetic_tree_shows_private_uses_and_cycles(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "advisor/one.py": "from advisor.two import _hidden, shown\nimport ui.web as w\nw._pool\n",
            "advisor/two.py": "from . import one\ndef f():\n    from ui import web\n    return web._x\n",
            "ui/web.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from advisor import one\n"
                         "def g():\n    from rules import r\n",
            "rules/r.py": "import ui.web\n",
        },
    )
    graph = read_graph(root)
    assert sorted(graph.private_uses) == [
        "advisor/one.py:1: from advisor.two import _hidden",
        "advisor/one.py:3: ui.web._pool",
        "advisor/two.py:4: ui.web._x",
    ]
    assert find_cycles(graph.edges("load")) == [["advisor.one", "advisor.two"]]
    assert find_cycles(graph.edges("load", "call")) == [["advisor.one", "advisor.two"], ["rules.r", "ui.web"]]


def test_function_level_imports_without_a_reason_are_found(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "advisor/a.py": "def f():\n    from rules import r\n    import gradio\n    import json\n",
            "advisor/b.py": "def f():\n    # start-up: estimate never loads the rules\n    from rules import r\n"
                            "    import gradio  # optional dependency: gradio only with the web extra\n"
                            "from rules import r\n",
            "ui/cli/c.py": "def f():\n    from rules import r\n",
            "rules/r.py": "",
        },
    )
    assert unexplained_function_imports(read_graph(root), root) == ["advisor/a.py:2", "advisor/a.py:3",
                                                                    "ui/cli/c.py:2"]  # the CLI is no exception


# --- the project ----------------------------------------------------------------------------------------

# Private names used across modules in files another change owns this round (the store work, issue 16); each
# entry is "file: module.name" and must still occur, so the list only shrinks.
OWNED_ELSEWHERE: set[str] = set()

# Cycles that close only through imports inside functions: none may remain (the list must stay empty).
DEFERRED_CYCLES: list[list[str]] = []


def _without_line(use: str) -> str:
    path, _, rest = use.partition(":")
    name = rest.partition(": ")[2]
    return f"{path}: {name.replace('from ', '').replace(' import ', '.')}"


@lru_cache(maxsize=1)
def _project() -> Graph:
    """The project's graph, read once for the three checks below."""
    return read_graph()


def test_no_module_uses_another_modules_private_name() -> None:
    uses = {_without_line(u): u for u in _project().private_uses}
    assert sorted(v for k, v in uses.items() if k not in OWNED_ELSEWHERE) == []
    assert OWNED_ELSEWHERE <= set(uses), f"fixed, remove from OWNED_ELSEWHERE: {OWNED_ELSEWHERE - set(uses)}"


def test_no_import_cycle_at_load_time() -> None:
    assert find_cycles(_project().edges("load")) == []


def test_no_new_cycle_through_function_level_imports() -> None:
    assert find_cycles(_project().edges("load", "call")) == DEFERRED_CYCLES


def test_every_function_level_import_says_why() -> None:
    assert unexplained_function_imports(_project()) == []


# The layers of docs/architecture.md: a module of the left-hand layer never imports (at any level, type-checking
# imports aside) one of the right-hand packages above it.
LAYERS = [
    (("advisor.analysis",), ("advisor.conversation", "ui", "advisor.store")),
    (("advisor.recommend", "advisor.estimator", "advisor.workload"), ("advisor.analysis", "advisor.conversation", "ui",
                                                                       "advisor.store")),
    (("knowledge", "rules"), ("advisor", "ui")),
]


# advisor.observe is the event hook every layer may raise (it imports nothing of the project at load time)
ANY_LAYER = {"advisor.observe"}


def _in(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") or module.startswith(p + "_") for p in packages)


def test_lower_layers_never_import_upper_ones() -> None:
    wrong = sorted(f"{imp.source} -> {imp.target}" for imp in _project().imports
                   for lower, upper in LAYERS
                   if imp.when in ("load", "call") and _in(imp.source, lower) and _in(imp.target, upper)
                   and imp.target not in ANY_LAYER)
    assert wrong == []


if __name__ == "__main__":
    graph = read_graph()
    print(f"{len(graph.private_uses)} private uses:")
    print("\n".join(graph.private_uses))
    for kinds in (("load",), ("load", "call")):
        cycles = find_cycles(graph.edges(*kinds))
        print(f"{len(cycles)} cycles among {'+'.join(kinds)} imports:")
        for cycle in cycles:
            print("  " + " <-> ".join(cycle))
    unexplained = unexplained_function_imports(graph)
    print(f"{len(unexplained)} function-level imports without a reason:")
    print("\n".join(unexplained))
