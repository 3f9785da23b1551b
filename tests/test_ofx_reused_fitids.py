"""One FITID given to several transactions of a statement (Banco C6's batch payments, each
row its own day and amount): every row is kept, with an id made unique from the bank's and
its content, and a warning; an exact repeat is still a dropped duplicate, overlapping
downloads still meet their copies, and one id with other content in another file is still a
conflict. Rows in = kept + quarantined + duplicates throughout."""

from __future__ import annotations

import polars as pl

from ml_assets.core.intake.ingest import scan_transactions
from ml_assets.core.intake.partitions import split_by_day
from tests.ofx_statement_text import ofx_statement

BATCH = [
    ("20240403", "-180,25", "LOTE-9X7Y", "Pagamento de lote #7"),
    ("20240409", "-92,40", "LOTE-9X7Y", "Pagamento de lote #7"),
    ("20240417", "-310,00", "LOTE-9X7Y", "Pagamento de lote #7"),
]
PIX = ("20240418", "55,00", "B4", "Pix recebido de LUCIA PRADO")


def _accounted(result) -> bool:
    return result.rows_in == result.kept.height + result.quarantined.height + result.duplicates


def test_a_fitid_shared_by_different_rows_of_a_statement_keeps_every_row(tmp_path):
    path = ofx_statement(tmp_path / "c6.ofx", [*BATCH, PIX])
    result = scan_transactions(path)
    assert result.rows_in == 4 == result.kept.height and result.quarantined.height == 0
    assert result.kept["amount"].to_list() == [-180.25, -92.4, -310.0, 55.0]
    ids = result.kept["transaction_id"].to_list()
    assert ids[0] == "55554444:LOTE-9X7Y" and ids[3] == "55554444:B4"  # the bank's, as written
    assert ids[1].startswith("55554444:LOTE-9X7Y#2024-04-09/-92.4/")
    assert ids[2].startswith("55554444:LOTE-9X7Y#2024-04-17/-310.0/")
    (warning,) = [w for w in result.notes[0].warnings if "share their FITID" in w]
    assert "2 transaction(s)" in warning and "line 22" in warning and "first at line 15" in warning


def test_an_exact_repeat_of_a_row_is_still_a_dropped_duplicate(tmp_path):
    path = ofx_statement(tmp_path / "c6.ofx", [*BATCH, BATCH[1], PIX])
    result = scan_transactions(path)
    assert result.kept.height == 4 and result.duplicates == 1 and _accounted(result)
    assert result.quarantined.height == 0


def test_overlapping_downloads_of_a_batch_meet_their_copies(tmp_path):
    """Scanned together and split by day, the second download's rows are all duplicates:
    the ids made unique are the same in both; a download that holds only the batch's first
    row meets it too."""
    april = ofx_statement(tmp_path / "april.ofx", [*BATCH, PIX])
    again = ofx_statement(tmp_path / "april_again.ofx", [*BATCH, PIX])
    first_only = ofx_statement(tmp_path / "early_april.ofx", [BATCH[0]])
    files = [april, again, first_only]
    together = scan_transactions(tmp_path, files=files)
    assert together.kept.height == 4 and together.duplicates == 5 and _accounted(together)
    per_file = {f.name: scan_transactions(f, files=[f], with_origin=True) for f in files}
    days = sorted({d for r in per_file.values() for d in r.kept["posted_date"]})
    split = split_by_day(per_file, days)
    assert sum(r.kept.height for r in split.days.values()) == 4
    assert sum(r.duplicates for r in split.days.values()) == 5
    assert sum(r.quarantined.height for r in split.days.values()) == 0


def test_one_id_with_other_content_in_another_file_is_still_a_conflict(tmp_path):
    """Each file gives the id to one row only: a bank that changed a transaction between two
    downloads, quarantined naming both places, as before."""
    first = ofx_statement(tmp_path / "a.ofx", [BATCH[0]])
    second = ofx_statement(tmp_path / "b.ofx", [BATCH[1]])
    result = scan_transactions(tmp_path, files=[first, second])
    assert result.kept.height == 1 and _accounted(result)
    conflicts = result.quarantined.filter(pl.col("reason") == "conflicting_duplicate_id")
    assert conflicts.height == 1 and f"{first}:15" in conflicts["detail"][0]
