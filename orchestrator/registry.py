"""The product's stage registry: the real stage implementations, by state name."""

from __future__ import annotations

from stages.types import Stage


def product_stages() -> dict[str, Stage]:
    """Every implemented stage; a run needs one for each of the seven states."""
    return {}
