"""The account's owner in an export that names both sides of each payment (Venmo's From and
To): the name on nearly every row is the owner, on whichever side a row puts it, and the other
side is the row's party. Venmo's "Charge" rows put the one charged in To though the money went
out of their account. A file written by the test in Venmo's layout, invented people."""

from __future__ import annotations

from ml_assets.core.intake.account_owner import owner_name
from ml_assets.core.intake.ingest import scan_transactions
from tests.test_inspect_export import inspect

VENMO = (
    '" ID","Datetime","Type","Status","Note","From","To","Amount (total)","Amount (fee)"\n'
    '"1111","2024-03-02T18:04:11","Payment","Complete","Pizza night","Jordan Vale",'
    '"Priya Nair","- $18.00",""\n'
    '"2222","2024-03-05T09:30:00","Charge","Complete","March internet","Omar Haddad",'
    '"Jordan Vale","- $35.00",""\n'
    '"3333","2024-03-09T12:15:45","Charge","Complete","Concert tickets","Jordan Vale",'
    '"Lena Brandt","+ $60.00",""\n'
    '"4444","2024-03-11T20:01:02","Payment","Complete","Groceries","Lena Brandt",'
    '"Jordan Vale","+ $22.40",""\n'
)


def test_venmo_charges_name_the_other_person_not_the_owner(tmp_path, capsys):
    export = tmp_path / "venmo_statement.csv"
    export.write_text(VENMO, encoding="utf-8")
    code, out, params = inspect(export, capsys)
    assert code == 0, out
    settings = params["raw_transactions"]
    result = scan_transactions(
        export, column_map=settings["column_map"], date_format=settings.get("date_format")
    )
    assert result.kept["amount"].to_list() == [-18.0, -35.0, 60.0, 22.4]
    assert result.kept["merchant"].to_list() == [
        "Priya Nair", "Omar Haddad", "Lena Brandt", "Lena Brandt",
    ]  # fmt: skip
    assert not any("Jordan Vale" in text for text in result.kept["description"].to_list())


def test_the_owner_is_the_name_on_nearly_every_row():
    rows = [
        {"From": "Jordan Vale", "To": "Priya Nair"},
        {"From": "Omar Haddad", "To": "jordan  vale"},
        {"From": "Jordan Vale", "To": "Lena Brandt"},
        {"From": "", "To": ""},  # a transfer to the bank names neither
    ]
    assert owner_name(rows, "From", "To") == "jordan vale"
    assert owner_name(rows[:2], "From", "To") is None  # too few rows to tell
    strangers = [{"From": f"Payer {i}", "To": f"Payee {i}"} for i in range(5)]
    assert owner_name(strangers, "From", "To") is None
