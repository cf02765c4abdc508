"""Labelled answers: "x = 3, y = 5" and "(x, y) = (3, 5)" name each component. Components match by
label, so "x = 3, y = 5" does not answer "(x, y) = (5, 3)" and "y = 5, x = 3" does answer
"(x, y) = (3, 5)"; against an unlabelled tuple the labels' written order is the order."""

from __future__ import annotations

from stages.verifiers.math_parse import COLLECTIONS, Node

Labelled = list[tuple[str, Node]]


def labelled(node: Node) -> Labelled | None:
    """(label, value) pairs in written order, or None when `node` is not a labelled answer."""
    pairs: Labelled = []
    if node[0] == "eq" and len(node[1]) == 2:
        lhs, rhs = node[1]
        shaped = lhs[0] == "tuple" and rhs[0] in ("tuple", "list") and len(lhs[1]) == len(rhs[1])
        if shaped and len(lhs[1]) > 1 and all(x[0] == "sym" for x in lhs[1]):
            pairs = [(x[1], v) for x, v in zip(lhs[1], rhs[1], strict=True)]
    elif node[0] in ("list", "tuple") and len(node[1]) > 1:
        for item in node[1]:
            if item[0] != "eq" or len(item[1]) != 2 or item[1][0][0] != "sym":
                return None
            pairs.append((item[1][0][1], item[1][1]))
    names = [name for name, _ in pairs]
    return pairs if pairs and len(set(names)) == len(names) else None


def align_labels(answer: Node, ref: Node) -> tuple[Node, Node] | str:
    """Both sides as plain tuples in one order, or why they cannot match; unchanged when neither
    side is labelled."""
    la, lr = labelled(answer), labelled(ref)
    if (lr is not None or ref[0] == "tuple") and _repeated_label(answer):
        return "one label is given several values (x = 3, x = 5): no ordered answer"
    if lr is not None and answer[0] == "set":
        return "a set does not answer a labelled tuple"
    if la is None and lr is None:
        return answer, ref
    if la is not None and lr is not None:
        by_name = dict(la)
        if set(by_name) != {name for name, _ in lr}:
            return "the answer labels other components than the reference"
        return ("tuple", [by_name[name] for name, _ in lr]), ("tuple", [v for _, v in lr])
    if lr is not None:
        if answer[0] not in COLLECTIONS:
            return "reference is a labelled tuple, answer is a single value"
        return ("tuple", list(answer[1])), ("tuple", [v for _, v in lr])
    assert la is not None
    if ref[0] not in COLLECTIONS:
        return "answer is a labelled tuple, reference is a single value"
    restated = answer[0] == "eq"  # "(t, s) = (1, 2)" restates the asked pair in its own order
    if ref[0] == "tuple" and not restated and [n for n, _ in la] != sorted(n for n, _ in la):
        # "y = 3, x = -2" against (3, -2): the pair means (x, y), so the labels must say so
        return "the answer's labels are not in the reference's order"
    return ("tuple", [v for _, v in la]), ref


def _repeated_label(node: Node) -> bool:
    """ "x = 3, x = 5": one variable given several values, which states no ordered tuple."""
    if node[0] not in ("list", "tuple") or len(node[1]) < 2:
        return False
    names = [
        item[1][0][1]
        for item in node[1]
        if item[0] == "eq" and len(item[1]) == 2 and item[1][0][0] == "sym"
    ]
    return len(set(names)) < len(names)
