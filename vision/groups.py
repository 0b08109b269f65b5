"""Groups of linked things: the connected parts of a small graph (union-find).

Used where a stage links a few dozen points (pips of one face, odd probes of one hand) and
wants the groups they make; OpenCV's connected components work on pixels, not on such graphs.
"""

from __future__ import annotations

from collections.abc import Iterable


def components(n: int, edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The groups that ``edges`` link ``0 .. n - 1`` into, each in increasing order, listed by
    their first member.

    Args:
        n: how many things there are.
        edges: pairs of linked things, indices below ``n``.

    Returns:
        Every thing in exactly one group; a thing linked to nothing is a group of its own.

    Raises:
        IndexError: if an edge names a thing at ``n`` or above (a negative index is not
            checked: it counts from the end, as a list's does).

    >>> components(5, [(0, 3), (4, 3)])
    [[0, 3, 4], [1], [2]]
    """
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())
