"""The import graph of python/mage runs one way (docs/ARCHITECTURE.md): no module imports another
that imports it back, at module level or inside a function, and none imports another's private names.

Imports are read with ``ast``, so nothing is imported to test it. The registry's loading of op
packages by name (importlib in registry.load) is not an import statement and is not an edge.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "mage"
# The Rust extension's conventional name (a compiled module, not a private name of a Python module).
EXTENSION = "mage._native"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str) -> list[tuple[str, str | None]]:
    """(imported module, imported name or None) of every import statement in ``module``, at any depth."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from its package upwards
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                # ``from mage import check`` imports the module mage.check; ``from mage.store import Store`` a name.
                found.append((submodule, None) if submodule in MODULES or submodule == EXTENSION
                             else (base, alias.name))
    return [(target, name) for target, name in found if target == "mage" or target.startswith("mage.")]


GRAPH = {module: {target for target, _ in _imports(module) if target in MODULES and target != module}
         for module in MODULES}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as the modules along it (first repeated last), or None if it is acyclic."""
    state: dict[str, str] = {}  # "open" while on the current path, "done" once every edge out is explored
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[module] = "done"
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_module_graph_is_read_whole():
    assert {"mage.cli", "mage.runner", "mage.plan", "mage.registry", "mage.store", "mage.measure.span"} <= set(MODULES)
    assert "mage.registry" in GRAPH["mage.runner"] and "mage.store" in GRAPH["mage.runner"]
    assert "mage.runner" in GRAPH["mage.cli"]  # a function-level import is an edge too


def test_no_module_imports_itself_back():
    cycle = _cycle(GRAPH)
    assert cycle is None, "import cycle: " + " → ".join(cycle)


def test_the_cycle_finder_finds_a_cycle_through_function_level_imports():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_private_names_of_another(module):
    private = [f"{target}.{name}" for target, name in _imports(module)
               if name is not None and name.startswith("_") and target != module]
    assert not private, f"{module} imports private names: {', '.join(private)}"


def test_the_registry_imports_no_backend_and_no_op():
    """Ops and backends register into the registry; it finds op packages under mage.ops and imports them
    by name, knowing none of them."""
    below = {target for target in GRAPH["mage.registry"] if target.startswith(("mage.backends", "mage.ops."))}
    assert not below, below


@pytest.mark.parametrize("lower", ["mage.store", "mage.spec", "mage.registry", "mage.plan", "mage.check"])
def test_lower_layers_import_nothing_that_runs_a_run(lower):
    """cli → runner/isolation → measure/check → registry/spec → store: never the other way."""
    upper = {"mage.cli", "mage.runner", "mage.isolation", "mage.worker", "mage.resume"}
    reached, frontier = set(), {lower}
    while frontier:  # every module ``lower`` imports, directly or through others
        frontier = {target for module in frontier for target in GRAPH[module]} - reached
        reached |= frontier
    assert not reached & upper, f"{lower} reaches {sorted(reached & upper)}"
