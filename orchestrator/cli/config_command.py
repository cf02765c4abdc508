"""`rlvr config show [CONFIG]` and `rlvr config explain KEY`: every setting a run takes, from the
config schema itself (orchestrator/config_schema.py), gates and policies included."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from orchestrator.cli.options import out
from orchestrator.terminal import plain

config_app = typer.Typer(
    help="Discover the settings: every key with its default, type and meaning.",
    no_args_is_help=True,
)


@config_app.command("show")
def show(
    config: Annotated[
        Path | None, typer.Argument(help="A TOML run config: show its values beside the defaults.")
    ] = None,
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides.")] = None,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="The README's reference tables (Markdown).")
    ] = False,
) -> None:
    """Every config key, section by section: its value (the default, or CONFIG's), type and doc."""
    from orchestrator.config_schema import markdown as reference
    from orchestrator.config_schema import schema_keys, value_text, values_of

    if markdown:
        typer.echo(reference(), nl=False)
        return
    values = values_of(str(config) if config else None, overrides or []) if config else {}
    section = None
    for key in schema_keys():
        if key.section != section:
            section = key.section
            out.print(f"\n[bold]\\[{plain(section)}][/]" if section else "[bold]top level[/]")
        shown = key.default
        if key.key in values:
            shown = value_text(values[key.key])
        changed = config is not None and key.key in values and shown != key.default
        note = f"  [yellow](default {plain(key.default)})[/]" if changed else ""
        bounds = f" ({key.bounds})" if key.bounds else ""
        out.print(
            f"  [bold]{plain(key.key)}[/] = {plain(shown)}{note}  [dim]{plain(key.type)}{plain(bounds)}[/]",
            highlight=False,
        )
        out.print(f"      {plain(key.doc)}", highlight=False, style="dim" if not key.doc else None)


@config_app.command("explain")
def explain(
    key: Annotated[str, typer.Argument(help="A config key: gates.max_kl, policies.kl.limit, ...")],
    config: Annotated[
        Path | None, typer.Argument(help="A TOML run config: show its value too.")
    ] = None,
) -> None:
    """One key in full: meaning, type, bounds, default, what reads it and how to change it."""
    from orchestrator.config_schema import find_key, value_text, values_of
    from orchestrator.driver.lifecycle import OPERATIONAL_SETTINGS
    from policies.settings import readers_of

    found = find_key(key)
    for doc in found:
        out.print(
            f"[bold]{plain(doc.key)}[/]"
            + (f"  [dim]\\[{plain(doc.section)}][/]" if doc.section else "")
        )
        out.print(plain(doc.doc or "(no description)"), highlight=False)
        out.print(plain(f"type: {doc.type}" + (f" ({doc.bounds})" if doc.bounds else "")))
        out.print(plain(f"default: {doc.default}"), highlight=False)
        if config is not None:
            values = values_of(str(config), [])
            out.print(plain(f"in {config}: {value_text(values.get(doc.key))}"), highlight=False)
        for reader in readers_of(doc.key):
            out.print(plain(f"read by: {reader}"))
    doc = found[0]
    table, _, leaf = doc.key.rpartition(".")
    example = "VALUE"
    out.print(
        plain(
            "set it: in a config file, "
            + (f"[{table}] {leaf} = {example}" if table else f"{leaf} = {example}")
            + f"; on the command line, rlvr run CONFIG {doc.key}={example}"
        ),
        highlight=False,
    )
    if doc.key in OPERATIONAL_SETTINGS:
        out.print(plain(f"on a run: rlvr resume RUN {doc.key}={example} (an operational setting)"))
    elif "[]" not in doc.key:
        out.print(
            plain(
                f"on a run: rlvr branch RUN --at-step N {doc.key}={example} (a new run from there)"
            )
        )
