import json
import random

import polars as pl
import pytest

from ml_assets.core.intake.ingest import RAW_SCHEMA, SchemaError, read_transactions
from ml_assets.core.synthetic.demo import generate_transactions
from ml_assets.core.text.normalize import merchant_key_expr, normalize_expr, normalize_texts
from ml_assets.core.training_data.features import build_features, split_summary

SPLIT_ARGS = dict(
    max_description_chars=200,
    heldout_test_pct=20,
    heldout_valid_pct=10,
    seen_test_pct=5,
    seen_valid_pct=5,
    salt="s",
)


def raw_frame(n: int = 400) -> pl.DataFrame:
    merchants = [f"MERCHANT{chr(65 + i % 26)}{chr(65 + i // 26)} STORE" for i in range(40)]
    rows = [
        {
            "transaction_id": f"t{i}",
            "account_id": "a1",
            "posted_date": f"2026-03-{1 + i % 28:02d}",
            "amount": -float(i % 97) - 0.5,
            "currency": "USD",
            "description": f"POS DEBIT {merchants[i % 40]} #{1000 + i} AUSTIN TX",
            "category": "shopping" if i % 3 else None,
            "transaction_type": "card_purchase" if i % 3 else None,
        }
        for i in range(n)
    ]
    return pl.DataFrame(rows, schema=RAW_SCHEMA)


def test_normalize_is_shared_and_stable():
    assert normalize_texts(["  TST* Blue   BOTTLE #1234  ", "Ｃａｆé 12"]) == [
        "tst* blue bottle #0000",
        "café 00",
    ]


def test_typographic_apostrophes_are_one_merchant_with_the_ascii_one():
    texts = normalize_texts(["McDonald’s 1234", "MCDONALD'S 99", "Пʼяна Вишня", "P‘TITE"])
    assert texts == ["mcdonald's 0000", "mcdonald's 00", "п'яна вишня", "p'tite"]
    keys = pl.DataFrame({"t": texts}).select(merchant_key_expr(pl.col("t")))["t"].to_list()
    assert keys[0] == keys[1] == "mcdonald's"


def test_a_transfer_rails_words_are_no_merchant():
    texts = normalize_texts([
        "Transferência enviada pelo Pix - MARIANE DE OLIVEIRA - •••.897.207-•• - NU PAGAMENTOS",
        "Transferência recebida pelo Pix - JOAO SILVA - •••.123.456-••",
        "Pix recebido de PASTA A MANO",
        "PIX ENVIADO PARA MERCADO BOM PRECO",
        "PREAUTHORIZED DEBIT;HYDRO POWER AUTHORITY;0000",
    ])  # fmt: skip
    keys = pl.DataFrame({"t": texts}).select(merchant_key_expr(pl.col("t")))["t"].to_list()
    assert keys == ["mariane de", "joao silva", "pasta a", "mercado bom", "hydro power"]


def test_serving_normalization_is_byte_identical_to_the_feature_expression():
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(128)]  # every ASCII char, controls and \x1c-\x1f included
    texts = ["".join(rng.choices(alphabet, k=rng.randint(0, 40))) for _ in range(3000)]
    texts += [
        "  POS DEBIT\tSHELL\x0bOIL 57442\r\nHOUSTON\x1cTX  ",
        "\x1f\x1f",
        "Ｃａｆé 12\u00a0\u2003x",
        "İSTANBUL ΟΔΟΣ 12",
        "McDonald’s ʼ‘‛",
        "",
    ]
    texts += generate_transactions(2000, seed=3)["description"].to_list()
    mixed = normalize_texts(texts)
    one_by_one = [normalize_texts([t])[0] for t in texts[:200]]
    expected = (
        pl.DataFrame({"t": texts}, schema={"t": pl.Utf8})
        .select(normalize_expr(pl.col("t")))["t"]
        .to_list()
    )
    assert mixed == expected
    assert one_by_one == expected[:200]


def test_merchant_key_strips_processor_prefix_and_ids():
    texts = normalize_texts(
        ["TST* BLUE BOTTLE COFFEE OAKLAND CA", "POS DEBIT SHELL OIL 57442 HOUSTON TX", "12345"]
    )
    keys = pl.DataFrame({"t": texts}).select(merchant_key_expr(pl.col("t")))["t"].to_list()
    assert keys == ["blue bottle", "shell oil", "<none>"]


def test_features_keep_every_row_and_split_by_merchant():
    raw = raw_frame()
    features = build_features(raw, **SPLIT_ARGS)
    assert features.height == raw.height
    assert set(features["split"].unique()) == {"train", "valid", "test"}
    train_merchants = set(features.filter(pl.col("split") == "train")["merchant_key"])
    heldout = features.filter(pl.col("heldout_merchant"))
    assert heldout.height > 0
    assert not (set(heldout["merchant_key"]) & train_merchants)  # held-out merchants never in train
    assert features["amount_sign"].to_list()[0] == -1
    summary = split_summary(features)
    assert sum(s["rows"] for s in summary.values()) == raw.height


def test_split_is_deterministic_and_salted():
    a = build_features(raw_frame(), **SPLIT_ARGS)["split"]
    b = build_features(raw_frame(), **SPLIT_ARGS)["split"]
    c = build_features(raw_frame(), **{**SPLIT_ARGS, "salt": "other"})["split"]
    assert a.to_list() == b.to_list()
    assert a.to_list() != c.to_list()


def test_overlong_description_is_an_error_naming_the_row():
    raw = raw_frame(5).with_columns(pl.lit("X" * 300).alias("description"))
    with pytest.raises(SchemaError, match="exceed 200 characters.*'t0'"):
        build_features(raw, **SPLIT_ARGS)


def write_lines(path, lines):
    path.write_bytes(b"\n".join(lines) + b"\n")


GOOD = {
    "transaction_id": "1",
    "posted_date": "2026-01-02",
    "amount": -3.5,
    "description": "STARBUCKS",
}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            b'{"transaction_id": "2", "posted_date": "2026-01-02", "amount": -3.5',
            r"data\.jsonl:2: malformed JSON",
        ),
        (
            b'{"transaction_id": "2", "posted_date": "02/01/2026", "amount": 1, "description": "x"}',
            r":2: field 'posted_date'",
        ),
        (
            b'{"transaction_id": "2", "posted_date": "2026-01-02", "amount": "abc", "description": "x"}',
            r":2: field 'amount'",
        ),
        (
            b'{"transaction_id": "2", "posted_date": "2026-01-02", "amount": 1}',
            r":2: required field 'description'",
        ),
        (
            b'{"transaction_id": "1", "posted_date": "2026-01-02", "amount": 1, "description": "x"}',
            r":2: duplicate transaction_id '1'",
        ),
        (
            b'{"transaction_id": "2", "posted_date": "2026-01-02", "amount": 1, "description": "\xff"}',
            r":2: not valid UTF-8",
        ),
        (b"[1, 2]", r":2: expected a JSON object"),
    ],
)
def test_malformed_jsonl_names_file_line_and_field(tmp_path, line, message):
    path = tmp_path / "data.jsonl"
    write_lines(
        path,
        [json.dumps(GOOD).encode(), line, json.dumps({**GOOD, "transaction_id": "3"}).encode()],
    )
    with pytest.raises(SchemaError, match=message):
        read_transactions(path, "jsonl")


def test_csv_with_column_map_and_date_format(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(
        "Id,Booked,Amt,Memo,Label\n"
        'a1,03/15/2026,"$1,234.50",PAYROLL ACME,income\n'
        "a2,03/16/2026,(12.00),NETFLIX.COM,\n"
    )
    frame = read_transactions(
        path,
        column_map={
            "Id": "transaction_id",
            "Booked": "posted_date",
            "Amt": "amount",
            "Memo": "description",
            "Label": "category",
        },
        date_format="%m/%d/%Y",
    )
    assert frame["amount"].to_list() == [1234.5, -12.0]
    assert frame["posted_date"].to_list() == ["2026-03-15", "2026-03-16"]
    assert frame["category"].to_list() == ["income", None]
    assert frame["currency"].to_list() == ["USD", "USD"]


def test_csv_error_reports_file_line(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(
        "transaction_id,posted_date,amount,description\nx,2026-01-01,1,A\ny,2026-01-01,oops,B\n"
    )
    with pytest.raises(SchemaError, match=r"export\.csv:3: field 'amount'"):
        read_transactions(path)


def test_parquet_folder_is_read(tmp_path):
    raw_frame(10).write_parquet(tmp_path / "part1.parquet")
    raw_frame(20).with_columns(
        pl.concat_str(pl.lit("b"), pl.col("transaction_id")).alias("transaction_id")
    ).write_parquet(tmp_path / "part2.parquet")
    assert read_transactions(tmp_path).height == 30


def test_unknown_column_map_target_is_rejected(tmp_path):
    path = tmp_path / "d.jsonl"
    write_lines(path, [json.dumps(GOOD).encode()])
    with pytest.raises(SchemaError, match="unknown columns"):
        read_transactions(path, column_map={"x": "merchant_name"})


def test_supplied_merchant_wins_over_description():
    frame = pl.DataFrame(
        {
            "t": normalize_texts(
                ["STARBUCKS DUBLIN IE", "STARBUCKS SEATTLE WA", "STARBUCKS #123 X"]
            ),
            "m": ["Starbucks", "STARBUCKS", None],
        }
    )
    keys = frame.select(key=merchant_key_expr(pl.col("t"), pl.col("m")))["key"].to_list()
    assert keys == ["starbucks", "starbucks", "starbucks"]


def test_a_merchant_key_that_holds_the_rows_crowds_the_split():
    from ml_assets.core.training_data.merchant_spread import merchant_spread

    spread = pl.Series(["shop d", "shop b", "shop c", "shop a"] * 25)  # a tie: by name
    assert merchant_spread(spread) == (4, "shop a", 0.25, True)
    many = pl.Series([f"shop {i}" for i in range(100)])
    assert merchant_spread(many)[3] is False
    few = pl.Series(["achat carte"] * 9 + ["rent"])  # too few rows to judge
    assert merchant_spread(few) == (2, "achat carte", 0.9, False)
    assert merchant_spread(pl.Series([], dtype=pl.String)) == (0, "", 0.0, False)
