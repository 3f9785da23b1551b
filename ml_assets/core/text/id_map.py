"""The map between a pruned vocabulary's ids and the original's."""

from collections.abc import Sequence


def old_to_new_ids(new_to_old: Sequence[int]) -> dict[int, int]:
    """Original id -> new id. Added pieces map to [UNK]'s row: [UNK] keeps its own new id."""
    old_to_new: dict[int, int] = {}
    for new, old in enumerate(new_to_old):
        old_to_new.setdefault(old, new)
    return old_to_new
