"""The connected parts of a small graph, as the dice reader and the occlusion test use them."""

from __future__ import annotations

import random

from tablier.vision.groups import components


def test_links_make_groups_and_a_lone_thing_stands_alone() -> None:
    # 0-1-2 a chain, 3 alone, 4-5 a pair linked twice
    assert components(6, [(1, 2), (0, 1), (5, 4), (4, 5)]) == [[0, 1, 2], [3], [4, 5]]


def test_nothing_to_group() -> None:
    assert components(0, []) == []
    assert components(3, []) == [[0], [1], [2]]


def test_every_thing_lies_in_one_group_with_what_it_is_linked_to() -> None:
    rng = random.Random(5)
    for _ in range(50):
        n = rng.randint(1, 30)
        edges = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, n))]
        groups = components(n, edges)
        where = {i: k for k, g in enumerate(groups) for i in g}
        assert sorted(where) == list(range(n))
        assert all(where[a] == where[b] for a, b in edges)
        # no group splits into two with no link between them
        for g in groups:
            reached, todo = {g[0]}, [g[0]]
            while todo:
                i = todo.pop()
                for a, b in edges:
                    for x, y in ((a, b), (b, a)):
                        if x == i and y not in reached:
                            reached.add(y)
                            todo.append(y)
            assert reached == set(g)
