"""`rlvr why` on a terminal: one tree per gate or decision, its answer first (in short), then the
setting behind the threshold, the evidence the rule read, the causes, and what followed."""

from __future__ import annotations

from rich.console import Console
from rich.tree import Tree

from orchestrator.audit.why_evidence import Explanation, Item, num
from orchestrator.terminal import plain

_DETAILS = 20  # lines of detail under one evidence event (the rest: --json)


def print_explanation(explanation: Explanation, console: Console, *, full: bool = False) -> None:
    """`full`: every metric of every step in the window, not only the one the rule read."""
    if not explanation.items:
        console.print(
            f"run {plain(explanation.run_id)}: no failed gate, policy decision or failure to explain"
        )
        return
    for first, last, rewind in explanation.abandoned:
        console.print(
            f"[yellow]seqs {first}..{last} were abandoned by the rewind at seq {rewind}[/]"
        )
    for item in explanation.items:
        console.print(_tree(item, full))
        # Commands on lines of their own, never wrapped by rich: they are pasted whole.
        if item.settings:
            console.print(
                plain(f"  more on the setting: rlvr config explain {item.settings[0]['key']}"),
                soft_wrap=True,
            )
        if item.branch_command:
            console.print(
                plain(f"  judge it again under another value: {item.branch_command}"),
                soft_wrap=True,
            )


def _tree(item: Item, full: bool) -> Tree:
    colour = "green" if item.passed else "red" if item.passed is False else "cyan"
    label = f"[bold {colour}]seq {item.seq}[/] {plain(item.headline)}"
    if item.abandoned_by is not None:
        label += f" [yellow](abandoned: rewound at seq {item.abandoned_by})[/]"
    tree = Tree(label)
    if item.story:
        tree.add(f"[bold]in short:[/] {plain(item.story)}")
    if item.detail:
        tree.add(plain(item.detail))
    if item.settings:
        first, *others = item.settings
        line = f"[bold]setting:[/] {plain(first['key'])} = {plain(num(first['value']))}"
        if others:
            line += (
                " (also read: "
                + ", ".join(f"{plain(s['key'])} = {plain(num(s['value']))}" for s in others)
                + ")"
            )
        tree.add(line)
    evidence = tree.add("[bold]evidence[/]")
    if item.window is not None:
        evidence.add(plain(item.window.line(item.comparator, item.threshold)))
    shown = [
        ev for ev in item.evidence if full or item.window is None or ev.type != "MetricsRecorded"
    ]
    if not shown and item.window is None:
        evidence.add("nothing recorded")
    for ev in shown:
        node = evidence.add(f"seq {ev.seq} [dim]{plain(ev.type)}[/]: {plain(ev.summary)}")
        for line in ev.details[:_DETAILS]:
            node.add(plain(line))
        if len(ev.details) > _DETAILS:
            node.add(f"... {len(ev.details) - _DETAILS} more (see --json)")
    if item.window is not None and not full:
        evidence.add("[dim](--full: every metric of those steps)[/]")
    if item.causes:
        causes = tree.add("[bold]caused by[/]")
        for ev in item.causes:
            causes.add(f"seq {ev.seq} [dim]{plain(ev.type)}[/]: {plain(ev.summary)}")
    then = tree.add("[bold]then[/]")
    if not item.then:
        then.add("nothing yet")
    for ev in item.then:
        then.add(f"seq {ev.seq} [dim]{plain(ev.type)}[/]: {plain(ev.summary)}")
    return tree
