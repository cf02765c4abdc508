"""The house's dependency rules, read from the source with `ast` (imports inside functions count):

- no import cycles among the product modules;
- `store/` imports none of `orchestrator`, `stages`, `policies`;
- `stages/` and `policies/` import neither each other nor `orchestrator`;
- `policies/` imports no mlx;
- inside `orchestrator/`, the audit readers import neither the command line, nor the driver, nor
  `stages`; the driver imports neither the command line nor the audit readers; the command line
  does not import `stages.training` (what it needs of training, a stage module gives it);
- inside `stages/`, arrows point down the floors of `STAGE_FLOORS` (no upward arrow), the seven
  stage modules import no other stage module, `training` never imports `rl`, and `verifiers`
  never import `tasks` (TODO(issue 30 item 4): after the verifier rewrite).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("orchestrator", "stages", "store", "policies")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def imports_of(path: Path, known: set[str]) -> set[str]:
    """Every module `path` imports, anywhere in the file; `from a import b` names `a.b` when that
    is a module of its own."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                package = _module_name(path if path.name == "__init__.py" else path.parent / "x")
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {
        name: {m for m in imports_of(path, known) if m in known and m != name}
        for name, path in modules.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def _violations(graph: dict[str, set[str]], source: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if module == source or module.startswith(source + ".")
        for target in targets
        if any(target == f or target.startswith(f + ".") for f in forbidden)
    )


def test_the_product_packages_have_no_import_cycles() -> None:
    assert [sorted(c) for c in _cycles(_graph())] == []


def test_the_store_imports_nothing_above_it() -> None:
    assert _violations(_graph(), "store", ("orchestrator", "stages", "policies")) == []


def test_stages_and_policies_import_neither_each_other_nor_the_orchestrator() -> None:
    graph = _graph()
    assert _violations(graph, "stages", ("policies", "orchestrator")) == []
    assert _violations(graph, "policies", ("stages", "orchestrator")) == []


def test_policies_import_no_mlx() -> None:
    modules = _modules()
    imported = {
        (name, m)
        for name, path in modules.items()
        if name.startswith("policies")
        for m in imports_of(path, set(modules))
        if m == "mlx" or m.startswith(("mlx.", "mlx_lm"))
    }
    assert imported == set()


def test_the_audit_readers_and_the_driver_do_not_reach_up_to_the_command_line() -> None:
    graph = _graph()
    assert (
        _violations(graph, "orchestrator.audit", ("orchestrator.cli", "orchestrator.driver")) == []
    )
    assert _violations(graph, "orchestrator.driver", ("orchestrator.cli",)) == []


def test_the_walker_sees_imports_inside_functions_and_cycles_through_them(tmp_path: Path) -> None:
    # The rules above are only as good as the walker: it must see a call-time import.
    path = tmp_path / "late.py"
    path.write_text("def f():\n    from store.log import EventLog\n    import mlx.core\n")
    assert imports_of(path, {"store.log"}) == {"store.log", "mlx.core"}
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
    graph = {"store.log": {"policies.kl"}, "policies.kl": set()}
    assert _violations(graph, "store", ("policies",)) == ["store.log imports policies.kl"]


def _gate_names() -> set[str]:
    names = set()
    for node in ast.walk(ast.parse((ROOT / "policies" / "gates.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_verdict":
            first = node.args[0]
        elif isinstance(node, ast.keyword) and node.arg == "gate":
            first = node.value
        else:
            continue
        if isinstance(first, ast.Constant):
            names.add(first.value)
    return names


def test_the_store_names_no_gate_and_no_policy_action() -> None:
    # The projection learns what it needs from the events' own fields (`judges_checkpoint`,
    # `RolledBack`); upcasters describe stored history and may name what old rows meant.
    from typing import get_args

    from policies.types import Action

    above = _gate_names() | set(get_args(Action))
    assert {"capability_retention", "rollback", "false_positive_rate"} <= above
    named = sorted(
        f"{path.name}:{node.lineno} {node.value!r}"
        for path in (ROOT / "store").glob("*.py")
        if path.name != "upcasters.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in above
    )
    assert named == []


def test_the_store_reads_no_config_layout() -> None:
    # RunStarted carries the settings' start values (computed by the driver from the GRPO
    # config, stages/training/config.py); only upcasters may name where old configs kept them.
    from stages.training.config import SETTING_FIELDS

    layout = {"grpo", *(part for path in SETTING_FIELDS.values() for part in path[:-1])}
    assert layout == {"grpo", "sampling"}
    named = sorted(
        f"{path.name}:{node.lineno} {node.value!r}"
        for path in (ROOT / "store").glob("*.py")
        if path.name != "upcasters.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in layout
    )
    assert named == []


def test_the_driver_and_the_command_line_keep_to_their_floors() -> None:
    graph = _graph()
    assert _violations(graph, "orchestrator.driver", ("orchestrator.audit",)) == []
    assert _violations(graph, "orchestrator.cli", ("stages.training",)) == []
    # A reader of the log needs nothing of the stages (a command that runs verifiers or builds
    # configs, like a rescore, lives elsewhere): the report must not load OpenBLAS and mlx.
    assert _violations(graph, "orchestrator.audit", ("stages",)) == []
    # The metric sinks export a log's numbers: the command line hands them to the driver as
    # observers, and they read the log as the audit readers do.
    assert _violations(graph, "orchestrator.driver", ("orchestrator.sinks",)) == []
    sinks_above = ("stages", "orchestrator.cli", "orchestrator.driver", "orchestrator.audit")
    assert _violations(graph, "orchestrator.sinks", sinks_above) == []


# Inside `stages/`, bottom to top: a module imports from its own floor or one below, never above.
STAGE_FLOORS: tuple[tuple[str, ...], ...] = (
    ("stages.tasks", "stages.verifiers"),  # the domain: what a task is, what checks its answers
    ("stages.training",),  # the mlx engine: models, sampling, the GRPO update, checkpoints
    ("stages.errors", "stages.progress", "stages.config", "stages.distributed"),
    # the RL step on a world (its phases, sampler, split): a library the services and loop use
    ("stages.rl.types", "stages.rl.step", "stages.rl.figures", "stages.rl.refill",
     "stages.rl.rewards", "stages.rl.sampling", "stages.rl.throughput", "stages.rl.split",
     "stages.rl"),
    # what the stages share: the typed run services, the stage contract, the curriculum
    ("stages.services", "stages.types", "stages.common", "stages.curriculum"),
    # the RL loop the RL stages drive: the step with the run's log and services
    ("stages.rl.session", "stages.rl.loop", "stages.rl.resume", "stages.rl.checkpoints",
     "stages.rl.decisions", "stages.rl.chaos", "stages.rl.logged_step"),
    ("stages",),  # the package itself
)  # fmt: skip
STAGE_MODULES = (
    "stages.sft_preparation", "stages.task_design", "stages.verification",
    "stages.data_generation", "stages.rlvr_optimization", "stages.iterative_training",
    "stages.evaluation",
)  # fmt: skip


def _floor(module: str) -> int:
    """The floor of a module of `stages` (the seven stage modules are the top one)."""
    if module in STAGE_MODULES:
        return len(STAGE_FLOORS)
    best = max(
        ((i, name) for i, floor in enumerate(STAGE_FLOORS) for name in floor
         if module == name or module.startswith(name + ".")),
        key=lambda pair: len(pair[1]), default=None,
    )  # fmt: skip
    assert best is not None, f"{module} is on no floor of STAGE_FLOORS: place it"
    return best[0]


def test_no_arrow_inside_stages_points_up_a_floor() -> None:
    graph = _graph()
    up = sorted(
        f"{module} (floor {_floor(module)}) imports {target} (floor {_floor(target)})"
        for module, targets in graph.items()
        if module.startswith("stages")
        for target in targets
        if target.startswith("stages") and _floor(target) > _floor(module)
    )
    assert up == []


def test_a_stage_module_is_no_library_of_another() -> None:
    graph = _graph()
    assert (
        sorted(f"{m} imports {t}" for m in STAGE_MODULES for t in graph[m] if t in STAGE_MODULES)
        == []
    )


def test_training_never_imports_rl() -> None:
    assert _violations(_graph(), "stages.training", ("stages.rl",)) == []


def test_verifiers_never_import_tasks() -> None:
    assert _violations(_graph(), "stages.verifiers", ("stages.tasks",)) == []


def test_the_floors_catch_an_upward_arrow(tmp_path: Path) -> None:
    # The floors are only as good as their lookup: the longest name wins, stage modules on top.
    assert _floor("stages.rl.step") < _floor("stages.services") < _floor("stages.rl.loop")
    assert _floor("stages.training.grpo") < _floor("stages.rl.step")
    assert _floor("stages.evaluation") == len(STAGE_FLOORS)
