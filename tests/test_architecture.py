"""The house rules of the architecture (README, *Architecture*), read from the source: which package may import
which, ``rules`` free of I/O, and no module of a domain package importing one that imports it
back. Every import counts, a function's too (a lazy import is still a dependency), but those
under ``if TYPE_CHECKING:``, which never run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOMAIN = ("rules", "vision", "calibration", "firmware_bridge")
PROJECT = (*DOMAIN, "web", "pitwatch")
NOT_IMPORTED_BY = {  # package -> the project's packages it must never import
    "rules": set(PROJECT) - {"rules"},
    "vision": {"web", "pitwatch"},
    "calibration": {"web", "pitwatch"},
    "firmware_bridge": {"web", "pitwatch"},
}
NO_IO_IN_RULES = {"os", "io", "sys", "pathlib", "shutil", "tempfile", "glob", "sqlite3", "socket", "subprocess",
                  "threading", "multiprocessing", "asyncio", "logging", "time", "serial", "cv2", "flask", "numpy"}
IO_CALLS = {"open", "print", "input"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for package in PROJECT for path in sorted((ROOT / package).rglob("*.py"))}


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (child for orelse in node.orelse for child in [orelse, *_runtime_nodes(orelse)])
            continue
        yield node
        yield from _runtime_nodes(node)


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, a ``from package import module`` read as
    that module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names} & known
            found.update(submodules or {base})
    return {module for module in found if module in known and module != name}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imported(name, path, set(found)) for name, path in found.items()}


def test_the_map_s_arrows_point_one_way(graph):
    wrong = sorted(f"{module} imports {target}" for module, targets in graph.items() for target in targets
                   if target.partition(".")[0] in NOT_IMPORTED_BY.get(module.partition(".")[0], ()))
    assert wrong == []


def test_rules_does_no_io():
    faults = []
    for path in sorted((ROOT / "rules").rglob("*.py")):
        for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            faults += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names
                       if n.partition(".")[0] in NO_IO_IN_RULES]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in IO_CALLS:
                faults.append(f"{path.relative_to(ROOT)}:{node.lineno} calls {node.func.id}()")
    assert faults == []


def test_no_domain_module_imports_one_that_imports_it_back(graph):
    """A package's ``__init__`` is left out: it only gathers what its modules define, and Python
    runs it before any of them."""
    domain = {name: {t for t in targets if t in graph and not _is_package(t)}
              for name, targets in graph.items() if name.partition(".")[0] in DOMAIN and not _is_package(name)}
    assert _cycles(domain) == []


def _is_package(name: str) -> bool:
    return (ROOT / name.replace(".", "/") / "__init__.py").exists()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: each strongly connected set of two modules or more (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while (member := stack.pop()) != module:
                component.append(member)
            if component:
                found.append(sorted([module, *component]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found
