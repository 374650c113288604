"""The host's layers: the typed views of the records (model) at the bottom,
a run read once (run) above them, analysis is pure computation, report renders
it (each output format on its own in report/formats/), the store keeps bundles
and their index without analysing them, cli and targets drive both. No
subpackage imports one that imports it back."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import rtgauge

PACKAGE = Path(rtgauge.__file__).parent


def _unit(module: str) -> str:
    """The layer a module belongs to: its subpackage, or itself at the top."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _modules() -> dict[str, Path]:
    """Every module of the package but the store's migrations (Alembic runs
    those scripts; importing env.py outside a migration fails by design)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.relative_to(PACKAGE).parts:
            continue
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in found if m.startswith("rtgauge.")}


def graph() -> dict[str, set[str]]:
    """Layer → the layers it imports (lazy imports inside functions count too)."""
    modules = _modules()
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {_unit(m) for m in _imports(path) if m in modules}
        edges.setdefault(_unit(name), set()).update(targets - {_unit(name)})
    return edges


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path, or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_every_module_imports() -> None:
    for name in _modules():
        importlib.import_module(name)


# Layers a layer must never import, even without a cycle: the store keeps and
# indexes what the records say (a server or `rtgauge runs` loads no analysis).
FORBIDDEN = {"analysis": {"report"}, "store": {"analysis", "report", "audit", "run"}}


def forbidden(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every import of a layer it must not import, as (importer, imported)."""
    return sorted((a, b) for a, banned in FORBIDDEN.items() for b in edges.get(a, set()) & banned)


def test_no_layer_imports_what_it_must_not() -> None:
    assert forbidden(graph()) == []


def test_the_forbidden_check_finds_the_store_importing_analysis() -> None:
    """The check itself must fail on what it is meant to catch."""
    edges = graph()
    edges["store"] = edges["store"] | {"analysis"}
    assert ("store", "analysis") in forbidden(edges)


def test_no_cycle_between_subpackages() -> None:
    edges = graph()
    assert "report" not in edges["analysis"], "analysis must not import report"
    assert cycle(edges) is None, f"import cycle: {' → '.join(cycle(edges) or [])}"


def test_the_views_are_the_bottom_layer() -> None:
    """Everything reads records through model; model reads nothing above it."""
    assert graph()["model"] <= {
        "validate",
        "errors",
        "legacy_catalogue",
        "legacy_system",
        "audit_facts",
        "standards",  # the table of documented differences a verdict is read against
    }
    assert graph()["audit_facts"] <= {"validate"}
    assert graph()["standards"] <= {"errors"}


def test_a_format_stands_on_its_own() -> None:
    """A format turns a Report into its text: it uses the exporter interface,
    never another format (so one can be added or removed alone)."""
    modules = _modules()
    formats = {m for m in modules if m.startswith("rtgauge.report.formats.")}
    assert "rtgauge.report.formats.exporter" in formats and len(formats) >= 8
    for name in formats - {"rtgauge.report.formats.exporter"}:
        others = {m for m in _imports(modules[name]) if m in formats}
        assert others <= {"rtgauge.report.formats.exporter"}, (name, others)


def test_the_cycle_check_finds_a_cycle() -> None:
    """The check itself must fail on what it is meant to catch."""
    edges = graph()
    edges["analysis"] = edges["analysis"] | {"report"}
    found = cycle(edges)
    assert found is not None and "analysis" in found and "report" in found
