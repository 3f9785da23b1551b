"""The map between a pruned vocabulary's ids and the original's."""

from collections.abc import Sequence


def old_to_new_ids(new_to_old: Sequence[int]) -> dict[int, int]:
    """Original id -> new id. Added pieces map to [UNK]'s row: [UNK] keeps its own new id."""
    old_to_new: dict[int, int] = {}
    for new, old in enumerate(new_to_old):
        old_to_new.setdefault(old, new)
    return old_to_new


def added_piece_ids(new_to_old: Sequence[int], unk_id: int) -> list[int]:
    """The new ids of pieces the pruning added (characters the original lacks): every id after
    [UNK]'s own that maps to the original's [UNK]."""
    first = old_to_new_ids(new_to_old).get(unk_id)
    return [new for new, old in enumerate(new_to_old) if old == unk_id and new != first]
