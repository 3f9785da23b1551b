"""Transactions fetched from bank-data APIs and saved as the API returned them: GoCardless
(ex-Nordigen) booked and pending blocks, Plaid /transactions/get and /transactions/sync, a JSON
array of records; nested objects read by dotted names; pending and removed records counted,
never rows; and which .json files are documents and which JSONL, by their content. Every test
reads real files (fixtures written as each API writes them, in tests/fixtures/bank_exports/)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ml_assets.core.intake.ingest import SchemaError, scan_transactions
from ml_assets.core.intake.inspect_export import inspect_file
from ml_assets.core.intake.partitions import days_between
from ml_assets.core.intake.raw_days import files_split, scan_exports
from ml_assets.core.params import RawTransactionsParams
from tests.test_inspect_export import inspect

FIXTURES = Path(__file__).parent / "fixtures" / "bank_exports"
GOCARDLESS = FIXTURES / "gocardless_transactions_20261104.json"
GOCARDLESS_ARRAY = FIXTURES / "gocardless_array_20261105.json"
PLAID_GET = FIXTURES / "plaid_transactions_get_20261104.json"
PLAID_SYNC = FIXTURES / "plaid_transactions_sync_20261105.json"
ARRAY = FIXTURES / "transactions_array_20261106.json"

GOCARDLESS_MAP = {
    "transactionId": "transaction_id",
    "bookingDate": "posted_date",
    "transactionAmount.amount": "amount",
    "transactionAmount.currency": "currency",
    "creditorName": "description",
    "remittanceInformationUnstructured": "description",
    "debtorName": "description",
    "remittanceInformationUnstructuredArray": "description",  # the pending records' form
}
GOCARDLESS_ARRAY_MAP = {
    "internalTransactionId": "transaction_id",
    "bookingDate": "posted_date",
    "transactionAmount.amount": "amount",
    "transactionAmount.currency": "currency",
    "remittanceInformationUnstructuredArray": "description",
    "debtorName": "description",
}
PLAID_MAP = {
    "date": "posted_date",
    "iso_currency_code": "currency",
    "merchant_name": "merchant",
    "name": "description",
    "personal_finance_category.primary": "category",
    "payment_channel": "transaction_type",
}
ARRAY_MAP = {"id": "transaction_id", "date": "posted_date"}


def accounted(result) -> bool:
    return result.kept.height + result.quarantined.height + result.duplicates == result.rows_in


def test_gocardless_booked_transactions_are_rows_and_pending_ones_are_counted():
    """Planted: a booked record with a valueDate and no bookingDate (transactions.booked[4]),
    dated by its value date; the two pending records (not final) are counted, not rows."""
    result = scan_transactions(GOCARDLESS, column_map=GOCARDLESS_MAP)
    assert result.rows_in == 5 and result.kept.height == 5 and accounted(result)
    kept = result.kept
    assert kept["transaction_id"].to_list() == [
        "2026110401927905-1", "2026110301927811-1", "2026110301927790-1", "2026110201927702-1",
        "2026110201927655-1",
    ]  # fmt: skip
    assert kept["amount"].to_list() == [-12.4, 2474.74, -84.0, -15.99, -4.85]
    assert set(kept["currency"]) == {"EUR"}
    assert kept["description"].to_list() == [
        "REWE Markt GmbH REWE SAGT DANKE 43127",
        "ACME GmbH LOHN NOVEMBER 2026",
        "Stadtwerke München GmbH Strom Abschlag Nov 2026 Kd-Nr. 55555",
        "NETFLIX INTERNATIONAL B.V. NETFLIX.COM 4402",
        "DB Vertrieb GmbH Fahrkarte 0815",
    ]
    assert str(kept["posted_date"][4]) == "2026-11-02"
    assert result.quarantined.height == 0
    notes = result.notes[0]
    assert notes.statement_lines == [(6, "pending transaction"), (7, "pending transaction")]
    metadata = notes.metadata()
    assert metadata["format"] == "json" and metadata["statement_lines"] == 2
    assert metadata["not_transactions"] == {"pending transaction": 2}


def test_gocardless_internal_ids_and_a_remittance_array():
    """A bank that gives internalTransactionId and only remittanceInformationUnstructuredArray:
    the array's lines are the description, joined with a space."""
    result = scan_transactions(GOCARDLESS_ARRAY, column_map=GOCARDLESS_ARRAY_MAP)
    assert result.rows_in == 3 and result.kept.height == 3 and accounted(result)
    assert result.kept["transaction_id"].to_list() == [
        "a3f19c2e4b5d4e0f9a1b", "a3f19c2e4b5d4e0f9a1c", "a3f19c2e4b5d4e0f9a1d"
    ]  # fmt: skip
    assert result.kept["description"].to_list() == [
        "Kartenzahlung STARBUCKS BERLIN HBF",
        "Jansen Vastgoed Miete November Wohnung 3",
        "Lastschrift Vodafone GmbH Kundennr 123",
    ]
    assert result.kept["amount"].to_list() == [-4.85, 950.0, -59.9]
    assert result.notes[0].statement_lines == [(4, "pending transaction")]


def test_plaid_transactions_get_with_its_sign_flipped_and_a_pending_record_counted():
    """Plaid's amount is positive for money out: spending: positive makes purchases negative
    and the payroll and interest credits positive; the raw name is the description, the
    merchant name the merchant, personal_finance_category.primary the category (not the
    deprecated category list); the accounts block is no record."""
    result = scan_transactions(PLAID_GET, column_map=PLAID_MAP, spending="positive")
    assert result.rows_in == 4 and result.kept.height == 4 and accounted(result)
    kept = result.kept
    assert kept["transaction_id"].to_list() == [
        "lPNjeW1nR6CDn5okmGQ6hEpMo4lLNoSrzqDje",
        "DkbmlP8BZxibzADqNplKTeL8aZJVQ1c3WR95z",
        "x9wrlBL7rgfKBvjMx8y3cjx4nM6Vdzf8wEjqJ",
        "Eg3pm7ZB46hLdBG4K7QVUyM8qEZm7aHDNmDwk",
    ]
    assert kept["amount"].to_list() == [-12.4, 2474.74, -78.5, 4.22]
    assert kept["description"].to_list() == [
        "UBER 063015 SF**POOL**",
        "ACME CORP PAYROLL PPD ID: 1234567890",
        "Touchstone Climbing",
        "INTRST PYMNT",
    ]
    assert kept["merchant"].to_list() == ["Uber", None, "Touchstone", None]
    assert kept["category"].to_list() == ["TRANSPORTATION", "INCOME", "PERSONAL_CARE", "INCOME"]
    # payment_channel, not Plaid's deprecated transaction_type (special, place)
    assert kept["transaction_type"].to_list() == ["online", "other", "in store", "other"]
    assert kept["posted_date"].to_list() == ["2026-11-04", "2026-11-03", "2026-11-02", "2026-11-01"]
    assert kept["account_id"][0] == "dVzbVMLjrxTnLjX4G66XUp5GLklm4oiZy88yK"
    assert result.notes[0].statement_lines == [(3, "pending transaction")]
    unflipped = scan_transactions(PLAID_GET, column_map=PLAID_MAP)
    assert unflipped.kept["amount"].to_list() == [12.4, -2474.74, 78.5, -4.22]


def test_plaid_transactions_sync_reads_added_and_modified_and_counts_removed():
    result = scan_transactions(PLAID_SYNC, column_map=PLAID_MAP, spending="positive")
    assert result.rows_in == 3 and result.kept.height == 3 and accounted(result)
    assert result.kept["description"].to_list() == [
        "SparkFun", "CD DEPOSIT .INITIAL.", "Touchstone Climbing"
    ]  # fmt: skip
    assert result.kept["amount"].to_list() == [-89.4, 1000.0, -78.5]
    assert result.kept["category"][2] == "ENTERTAINMENT"  # the modified record as it is now
    notes = result.notes[0]
    assert notes.statement_lines == [(2, "pending transaction"), (5, "removed transaction")]
    assert notes.metadata()["not_transactions"] == {
        "pending transaction": 1, "removed transaction": 1
    }  # fmt: skip


def test_a_json_array_of_records_names_the_record_in_errors():
    """Planted: a record whose amount is null ([2])."""
    result = scan_transactions(ARRAY, column_map=ARRAY_MAP)
    assert result.rows_in == 4 and result.kept.height == 3 and accounted(result)
    assert result.kept["transaction_id"].to_list() == ["tx-0001", "tx-0002", "tx-0004"]
    assert result.kept["amount"].to_list() == [-4.85, 2474.74, -59.9]
    assert result.quarantined["detail"][0].startswith(f"{ARRAY}: [2]: required field 'amount'")
    assert result.quarantined["line"].to_list() == [3]  # the record's position, 1-based


@pytest.mark.parametrize(
    ("fixture", "mapping", "spending", "kept", "not_transactions"),
    [
        (GOCARDLESS, GOCARDLESS_MAP, None, 5, 2),
        (GOCARDLESS_ARRAY, GOCARDLESS_ARRAY_MAP, None, 3, 1),
        (PLAID_GET, PLAID_MAP, "positive", 4, 1),
        (PLAID_SYNC, PLAID_MAP, "positive", 3, 2),
        (ARRAY, ARRAY_MAP, None, 3, 0),
    ],
)
def test_inspect_gives_the_settings_that_read_an_api_document(
    fixture, mapping, spending, kept, not_transactions, capsys
):
    """inspect's output, as a params file, reads the document as the load does: the column_map
    names the flattened fields, Plaid's records get spending: positive, and what is not a
    transaction is said."""
    code, out, params = inspect(fixture, capsys)
    assert code == 0 and "(by its content)" in out
    section = params["raw_transactions"]
    assert section["column_map"] == mapping and section.get("spending") == spending
    found = inspect_file(fixture)
    assert found.result.kept.height == kept
    settings = RawTransactionsParams(**section)
    assert scan_exports(fixture, settings).kept.equals(found.result.kept)
    said = dict(found.facts).get("not transactions", "0:")
    assert said.startswith(f"{not_transactions}:")


def test_a_document_of_another_shape_is_an_error_that_says_what_to_do(tmp_path, capsys):
    path = tmp_path / "export.json"
    page = {"data": [{"id": "t1", "amount": "-4.85"}], "links": {"next": None}}
    path.write_text(json.dumps(page, indent=2) + "\n")
    with pytest.raises(SchemaError) as caught:
        scan_transactions(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: a JSON document of a shape not read")
    assert "top-level keys ['data', 'links']" in message
    assert "export the records as JSONL (one object per line) or as a JSON array" in message
    code, out, _ = inspect(path, capsys)
    assert code == 1 and "top-level keys ['data', 'links']" in out


def test_a_json_file_is_a_document_or_jsonl_by_its_content(tmp_path):
    """curl's output (the whole response on one line) is a document; one record per line is
    JSONL, whose nested objects column_map names by dotted names, whose bad line hides no
    other, and whose pending records are counted by line."""
    compact = tmp_path / "curl.json"
    compact.write_text(json.dumps(json.loads(GOCARDLESS.read_text())))
    result = scan_transactions(compact, column_map=GOCARDLESS_MAP)
    assert result.kept.height == 5 and len(result.notes[0].statement_lines) == 2
    records = tmp_path / "records.json"
    rows = [
        {"id": "1", "bookingDate": "2026-11-04", "value": {"amount": "-12.40", "currency": "EUR"},
         "text": ["REWE", "SAGT DANKE"]},
        {"id": "2", "bookingDate": "2026-11-04", "value": {"amount": "-6.50", "currency": "EUR"},
         "text": ["BACKWERK"], "pending": True},
    ]  # fmt: skip
    lines = [json.dumps(r) for r in rows]
    records.write_text(f"{lines[0]}\n{{not json\n{lines[1]}\n")
    mapping = {"value.amount": "amount", "value.currency": "currency", "text": "description"}
    mapping |= {"id": "transaction_id", "bookingDate": "posted_date"}
    result = scan_transactions(records, column_map=mapping)
    assert result.rows_in == 2 and accounted(result)
    assert result.kept["description"].to_list() == ["REWE SAGT DANKE"]
    assert result.kept["amount"].to_list() == [-12.4] and result.kept["currency"][0] == "EUR"
    assert result.quarantined["detail"][0].startswith(f"{records}:2: malformed JSON")
    assert result.notes[0].statement_lines == [(3, "pending transaction")]
    windows = tmp_path / "bom.json"  # a byte-order mark before the first record
    windows.write_bytes(b"\xef\xbb\xbf" + lines[0].encode() + b"\n")
    assert scan_transactions(windows, column_map=mapping).kept.height == 1


def test_a_document_cut_short_is_one_unreadable_row_naming_its_line(tmp_path):
    cut = tmp_path / "transactions.json"
    cut.write_text(GOCARDLESS.read_text()[:700])
    result = scan_transactions(cut, column_map=GOCARDLESS_MAP)
    assert result.rows_in == 1 and dict(result.reasons) == {"unreadable_file": 1}
    detail = result.quarantined["detail"][0]
    assert detail.startswith(f"{cut}:") and "ends mid-document" in detail


def test_a_folder_of_api_documents_read_per_pattern_reports_what_is_not_a_row(tmp_path):
    """Each API's settings by file-name pattern; the exports metadata the load reports counts
    the pending and removed records of each file beside its rows."""
    for fixture in (GOCARDLESS, PLAID_GET, PLAID_SYNC):
        shutil.copy(fixture, tmp_path / fixture.name)
    settings = RawTransactionsParams(
        source="files",
        path=str(tmp_path),
        exports={
            "gocardless_*.json": {"column_map": GOCARDLESS_MAP},
            "plaid_*.json": {"column_map": PLAID_MAP, "spending": "positive"},
        },
    )
    files = {p.name: p for p in sorted(tmp_path.iterdir())}
    split = files_split(files, settings, days_between("2026-11-01", "2026-11-05"))
    days = split.days.values()
    assert sum(r.rows_in for r in days) == 5 + 4 + 3
    assert sum(r.kept.height for r in days) == 5 + 4 + 3
    assert sum(r.quarantined.height for r in days) == 0
    exports = {name: notes.metadata() for name, notes in split.notes.items()}
    assert exports[GOCARDLESS.name]["not_transactions"] == {"pending transaction": 2}
    assert exports[PLAID_GET.name]["not_transactions"] == {"pending transaction": 1}
    assert exports[PLAID_SYNC.name]["not_transactions"] == {
        "pending transaction": 1, "removed transaction": 1
    }  # fmt: skip


def _monzo_document(path: Path, amounts: list) -> Path:
    """A /transactions document shaped as Monzo's, without the names only Monzo's records
    have (its amounts would then be pennies however they read): a timestamp named
    ``created``, amounts as given."""
    records = [
        {
            "id": f"tx_{i:04d}",
            "created": f"2026-11-{1 + i % 28:02d}T10:15:00.000Z",
            "amount": amount,
            "currency": "GBP",
            "description": "PRET A MANGER LONDON GBR",
            "category": "eating_out",
        }
        for i, amount in enumerate(amounts)
    ]
    path.write_text(json.dumps({"transactions": records}, indent=2) + "\n")
    return path


def test_inspect_reads_amounts_stored_as_whole_minor_units(tmp_path, capsys):
    """Monzo writes -399 for -£3.99: read as given, every amount would be 100 times too big."""
    path = _monzo_document(tmp_path / "monzo.json", [-399, -1250, 250000] * 10)
    code, out, params = inspect(path, capsys)
    assert code == 0
    assert "every one of the 30 amounts read is stored as a whole number" in out
    section = params["raw_transactions"]
    assert section["amount_unit"] == "minor"
    assert section["column_map"] == {"id": "transaction_id", "created": "posted_date"}
    kept = scan_exports(path, RawTransactionsParams(**section)).kept
    assert kept["amount"].to_list()[:3] == [-3.99, -12.5, 2500.0]
    assert str(kept["posted_date"][0]) == "2026-11-01"


@pytest.mark.parametrize(
    ("amounts", "unit"),
    [
        ([-3.99, -12.5, 2500.0] * 10, None),  # decimals: the major unit
        ([-4, -12, 25] * 10, None),  # whole and small: whole pounds as likely as pence
        ([-399, -1250] * 3, None),  # too few to say
    ],
    ids=["decimals", "small whole numbers", "six records"],
)
def test_inspect_leaves_amounts_in_the_major_unit_unless_every_one_says_otherwise(
    amounts, unit, tmp_path, capsys
):
    path = _monzo_document(tmp_path / "export.json", amounts)
    _, _, params = inspect(path, capsys)
    assert params["raw_transactions"].get("amount_unit") == unit


def test_inspect_reads_a_column_that_names_the_minor_unit(tmp_path, capsys):
    path = tmp_path / "ledger.jsonl"
    rows = [{"id": "a1", "date": "2026-11-02", "amount_cents": -425, "name": "BLUE BOTTLE"}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    _, out, params = inspect(path, capsys)
    assert "column 'amount_cents' names the minor unit" in out
    assert params["raw_transactions"]["amount_unit"] == "minor"


STARLING = Path(__file__).parent / "fixtures" / "banks" / "starling_feed.json"


def test_a_starling_feed_reads_booked_items_signed_by_their_direction(capsys):
    """Unsigned minorUnits signed by IN/OUT; declined, pending and reversed items counted,
    not rows; the payment's reference read after the other party's name."""
    code, out, params = inspect(STARLING, capsys)
    assert code == 0 and "a Starling feed document" in out
    section = params["raw_transactions"]
    assert section["amount_unit"] == "minor"
    assert section["column_map"]["feedItemUid"] == "transaction_id"
    assert "categoryUid" not in section["column_map"]
    result = scan_exports(STARLING, RawTransactionsParams(**section))
    assert result.rows_in == 5 and accounted(result)
    kept = result.kept
    assert kept["amount"].to_list() == [-4.5, -23.99, 2500.0, -31.0, 31.0]
    assert kept["description"][0] == "Pret A Manger PRET A MANGER LONDON"
    assert kept["category"][0] == "EATING_OUT"
    said = dict(inspect_file(STARLING).facts)["not transactions"]
    assert said.startswith("3: declined transaction record 4, pending transaction record 5")


def test_a_reference_column_that_is_no_id_is_read_into_the_description(tmp_path, capsys):
    """Starling's CSV: "Reference" repeats (PRET A MANGER LONDON twice), so it is the
    payment's text beside "Counter Party", not an id."""
    path = tmp_path / "starling.csv"
    path.write_text(
        "Date,Counter Party,Reference,Type,Amount (GBP),Balance (GBP),Spending Category\n"
        "01/11/2026,Pret A Manger,PRET A MANGER LONDON,CARD PAYMENT,-4.50,1995.50,EATING_OUT\n"
        "02/11/2026,ACME LTD,SALARY NOV,FASTER PAYMENT,2500.00,4495.50,INCOME\n"
        "04/11/2026,Pret A Manger,PRET A MANGER LONDON,CARD PAYMENT,-4.50,4491.00,EATING_OUT\n"
    )
    _, _, params = inspect(path, capsys)
    section = params["raw_transactions"]
    assert section["column_map"]["Reference"] == "description"
    kept = scan_exports(path, RawTransactionsParams(**section)).kept
    assert kept["description"].to_list()[:2] == [
        "Pret A Manger PRET A MANGER LONDON",
        "ACME LTD SALARY NOV",
    ]


def test_monzo_transactions_are_in_pennies_however_few(tmp_path, capsys):
    """Monzo's /transactions document ({"transactions": [...]}, each with account_balance,
    settled and is_load) counts amounts in pennies: two records are enough to say so, and
    -510 is £5.10, not £510."""
    export = tmp_path / "transactions.json"
    records = [
        {"account_balance": 13013, "amount": -510, "created": "2026-08-22T12:20:18Z",
         "currency": "GBP", "description": "THE DE BEAUVOIR DELI C LONDON        GBR",
         "id": "tx_00008zIcpb1TB4yeIFXMzx", "merchant": "merch_00008zIcpbAKe8shBxXUtl",
         "metadata": {}, "notes": "", "is_load": False, "settled": "2026-08-23T12:20:18Z"},
        {"account_balance": 12334, "amount": -679, "created": "2026-08-23T16:15:03Z",
         "currency": "GBP", "description": "VUE BSL LTD            ISLINGTON     GBR",
         "id": "tx_00008zL2INM3xZ41THuRF3", "merchant": "merch_00008z6uFVhVBcaZzSQwCX",
         "metadata": {}, "notes": "", "is_load": False, "settled": "2026-08-24T16:15:03Z"},
    ]  # fmt: skip
    export.write_text(json.dumps({"transactions": records}, indent=2))
    code, out, params = inspect(export, capsys)
    assert code == 0 and "Monzo" in out and params["raw_transactions"]["amount_unit"] == "minor"
    kept = scan_exports(export, RawTransactionsParams(**params["raw_transactions"])).kept
    assert kept["amount"].to_list() == [-5.1, -6.79]


def test_a_json_array_of_positive_purchases_is_signed_as_a_csv_would_be(tmp_path, capsys):
    """A JSON array of records, one row each, is a table: its amounts say its sign as a CSV's
    do. Every amount positive, no income row: purchases positive, flipped."""
    export = tmp_path / "transactions.json"
    rows = [
        {"date": "2026-01-15", "description": "Tesco Express - Groceries", "amount": 45.2},
        {"date": "2026-01-15", "description": "Uber Trip - Home to Office", "amount": 12.5},
        {"date": "2026-01-16", "description": "Netflix Monthly Subscription", "amount": 15.99},
    ]
    export.write_text(json.dumps(rows, indent=2))
    code, out, params = inspect(export, capsys)
    assert code == 0 and params["raw_transactions"]["spending"] == "positive"
    kept = scan_exports(export, RawTransactionsParams(**params["raw_transactions"])).kept
    assert kept["amount"].to_list() == [-45.2, -12.5, -15.99]


def test_a_fio_banka_statement_reads_its_named_columns(tmp_path, capsys):
    """Fio banka's API writes each record as {"column1": {"value", "name", "id"}, ...} under
    accountStatement.transactionList.transaction: read by the columns' names, the party and
    the message as the text (the type where there is none: credited interest), dated by the
    day without its zone; a period without transactions (a null list) holds no row."""

    def cell(column: int, name: str, value):
        return {f"column{column}": {"value": value, "name": name, "id": column}}

    def record(number, day, amount, kind, **texts):
        out = {**cell(22, "ID pohybu", number), **cell(0, "Datum", day),
               **cell(1, "Objem", amount), **cell(14, "Měna", "CZK"), **cell(8, "Typ", kind),
               "column5": None}  # fmt: skip
        for column, (name, value) in enumerate(texts.items(), start=10):
            out.update(cell(column, name.replace("_", " "), value))
        return out

    records = [
        record(7139752765, "2026-01-31+0100", 1.39, "Připsaný úrok"),
        record(7142478437, "2026-02-06+0100", -1280.0, "Platba převodem uvnitř banky",
               Název_protiúčtu="Matějček, Milan", Zpráva_pro_příjemce="boty + čepice"),
    ]  # fmt: skip
    statement = {"info": {"currency": "CZK"}, "transactionList": {"transaction": records}}
    export = tmp_path / "fio.json"
    export.write_text(json.dumps({"accountStatement": statement}, ensure_ascii=False, indent=1))
    code, out, params = inspect(export, capsys)
    assert code == 0 and "Fio banka" in out
    kept = scan_exports(export, RawTransactionsParams(**params["raw_transactions"])).kept
    assert kept["description"].to_list() == ["Připsaný úrok", "Matějček, Milan boty + čepice"]
    assert kept["posted_date"].to_list() == ["2026-01-31", "2026-02-06"]
    assert kept["amount"].to_list() == [1.39, -1280.0] and set(kept["currency"]) == {"CZK"}
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"accountStatement": {"info": {}, "transactionList": None}}))
    assert scan_transactions(empty).rows_in == 0
