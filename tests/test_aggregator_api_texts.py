"""Aggregator and bank APIs whose records name the other party and the purpose apart, or name
no currency: finAPI's ``counterpartName`` and ``purpose`` (its amounts in the account's
currency, which the records do not name), and PrivatBank's Autoclient statement
(``AUT_CNTR_NAM``, ``OSND``, unsigned ``SUM`` beside ``TRANTYPE`` D or C, dotted dates,
``FL_REAL``). Each is written here in its API's layout (invented parties and amounts)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_issuer_csv_layouts import loaded


def _write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False))
    return path


def _rows(result) -> list[tuple]:
    return result.kept.select("posted_date", "amount", "currency", "description").rows()


def _finapi(
    ref: int, value_day: str, booked: str, amount: float, purpose: str, party: str, iban: str | None
) -> dict:
    return {
        "id": ref, "parentId": None, "accountId": 901, "valueDate": f"{value_day} 00:00:00.000",
        "bankBookingDate": f"{booked} 00:00:00.000", "finapiBookingDate": f"{booked} 00:00:00.000",
        "amount": amount, "purpose": purpose, "counterpartName": party, "counterpartIban": iban,
        "counterpartBic": None, "type": "Lastschrift", "category": None, "labels": [],
        "isPotentialDuplicate": False, "isNew": True, "children": None,
    }  # fmt: skip


def test_finapi_descriptions_name_the_counterpart_and_the_currency_is_said(tmp_path, capsys):
    """The other party leads the text, the bank's booking day dates the row, and the
    account's currency, which no record names, is the one the IBANs point to, to confirm."""
    document = {
        "transactions": [
            _finapi(1, "2023-05-02", "2023-05-03", -54.9, "RECHNUNG 2023-0417",
                    "Elektro Sonnenschein GmbH", "DE89370400440532013000"),
            _finapi(2, "2023-05-05", "2023-05-05", 12.0, "Danke", "Jonas Muster",
                    "DE02120300000000202051"),
        ],
        "paging": {"page": 1, "perPage": 20, "pageCount": 1, "totalCount": 2},
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "finapi.json", document), capsys)
    assert section["column_map"]["bankBookingDate"] == "posted_date"
    assert section["currency"] == "EUR" and "confirm it" in out
    assert _rows(result) == [
        ("2023-05-03", -54.9, "EUR", "Elektro Sonnenschein GmbH RECHNUNG 2023-0417"),
        ("2023-05-05", 12.0, "EUR", "Jonas Muster Danke"),
    ]


def test_records_without_a_currency_or_a_clue_say_they_are_read_as_usd(tmp_path, capsys):
    document = {
        "transactions": [
            _finapi(1, "2023-05-02", "2023-05-03", -54.9, "RECHNUNG 17", "Elektro GmbH", None),
        ]
    }
    out, section, result, _ = loaded(_write(tmp_path / "finapi.json", document), capsys)
    assert "currency" not in section
    assert "none in the file: USD unless raw_transactions.currency says so" in out
    assert result.kept["currency"].to_list() == ["USD"]


def _privatbank(
    ref: str, day: str, party: str, purpose: str, amount: str, way: str, real: str = "r"
) -> dict:
    return {
        "AUT_MY_ACC": "UA213223130000026007233566001", "AUT_MY_NAM": "ТОВ ПРИКЛАД",
        "AUT_CNTR_ACC": "UA903052992990004149123456789", "AUT_CNTR_NAM": party,
        "CCY": "UAH", "FL_REAL": real, "PR_PR": "r", "DOC_TYP": "p", "DAT_OD": day,
        "OSND": purpose, "SUM": amount, "SUM_E": amount, "REF": f"R{ref}", "TIM_P": "10:15",
        "DATE_TIME_DAT_OD_TIM_P": f"{day} 10:15:00", "ID": ref, "TRANTYPE": way,
        "TECHNICAL_TRANSACTION_ID": f"{ref}_online",
    }  # fmt: skip


def test_privatbank_autoclient_rows_name_the_party_and_purpose_and_are_signed(tmp_path, capsys):
    document = {
        "status": "SUCCESS", "type": "transactions", "exist_next_page": False,
        "transactions": [
            _privatbank("900001", "04.03.2024", "ТОВ КАВОВИЙ ДІМ", "Оплата за каву згідно рахунку 17",
                        "1250.00", "D"),
            _privatbank("900002", "05.03.2024", "ФОП ОЛЕНА ЛІС", "Оплата за послуги дизайну",
                        "8400.00", "C"),
            _privatbank("900003", "05.03.2024", "ТОВ КАВОВИЙ ДІМ", "Інформаційний запис",
                        "10.00", "D", real="i"),
        ],
    }  # fmt: skip
    out, section, result, _ = loaded(_write(tmp_path / "privat.json", document), capsys)
    assert section["column_map"]["TRANTYPE"] == "direction"
    assert section["date_format"] == "%d.%m.%Y %H:%M:%S"
    assert _rows(result) == [
        ("2024-03-04", -1250.0, "UAH", "ТОВ КАВОВИЙ ДІМ Оплата за каву згідно рахунку 17"),
        ("2024-03-05", 8400.0, "UAH", "ФОП ОЛЕНА ЛІС Оплата за послуги дизайну"),
    ]
    assert "entry not real (FL_REAL 'i')" in out


def test_a_page_of_privatbank_debits_only_is_still_signed_by_trantype(tmp_path, capsys):
    """TRANTYPE names the way whatever letters a page holds: "D" on every row is money out
    (a one-letter column of another name, a status "C" for cleared, stays no direction)."""
    document = {
        "transactions": [
            _privatbank("1", "03.03.2025", "ТОВ МАГАЗИН", "Цифрові товари", "100.00", "D"),
            _privatbank("2", "03.03.2025", "ТОВ АПТЕКА", "Ліки", "42.50", "D"),
        ]
    }
    _, section, result, _ = loaded(_write(tmp_path / "debits.json", document), capsys)
    assert section["column_map"]["TRANTYPE"] == "direction"
    assert result.kept["amount"].to_list() == [-100.0, -42.5]
