"""What an export says of its currency without a currency column, for ``inspect``: a symbol or
code in its amounts or their columns' names ("£1,234.50", "Betrag (EUR)", "入出金(円)"), and
where it names none, what points to one: an IBAN's country, a UK sort code, a "NON-GBP" fee,
the signs of an Indian bank (lakh digit grouping, "Rs", "Narration"), column names in
simplified Chinese (a mainland bank's: the renminbi) or in Japanese kana (the yen), a New
Zealand account number, a Canadian bank's Interac transfers and province codes, a Nordic
column name for the amount ("Beløp": the Norwegian krone).
The load never guesses a currency; inspect writes what these find for the user to confirm."""

from __future__ import annotations

import re

from ml_assets.core.intake.amount_text import LAKH_GROUPED
from ml_assets.core.intake.column_names import normalized
from ml_assets.core.intake.csv_exports import CellRow


def unstated_currency(why: str = "none in the file", signs: list[str] | None = None) -> str:
    """What inspect says of an export that names no currency and points to none (a CSV, a
    JSON, JSONL or Parquet file, a QIF file): ``why`` it names none, that the load reads its
    rows as USD, the default, unless ``currency`` is set (said so that a franc or krone
    account is not read as dollars without a word), and the ``signs`` in it of an account in
    another currency."""
    said = (
        f"{why}: USD unless raw_transactions.currency says so: every row is read as USD; set "
        "currency (e.g. currency: EUR) for an account in another"
    )
    if signs:
        said += f"; {' and '.join(signs)} are not a US bank's: set currency to the account's"
    return said


# what an amount cell or an amount column's name may say of the currency ("£1,234.50",
# "12,50 CHF", "Betrag (EUR)", "Betrag (€)", "入出金(円)"); "$" and "元" name several
# currencies, so they say nothing, and "¥" only with the file's script (see _yen_or_yuan)
_SYMBOLS = {
    "£": "GBP", "€": "EUR", "₹": "INR", "₩": "KRW", "₽": "RUB", "₺": "TRY", "zł": "PLN",
    "円": "JPY", "Kč": "CZK", "₪": "ILS", "₱": "PHP", "₫": "VND", "฿": "THB",
}  # fmt: skip
_CODE_NAMES = (
    "EUR|GBP|CHF|USD|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|RON|JPY|CNY|INR|SGD|HKD|ZAR|MXN|BRL|UAH|"
    "RUB|TRY|KRW|THB|ILS|CLP|ARS|COP|PEN|IDR|MYR|PHP|VND|TWD|SAR|AED|BGN|ISK|KZT"
)
_CODES = re.compile(rf"(?<![A-Za-z])({_CODE_NAMES})(?![A-Za-z])", re.I)
# the account's currency under a label in the lines above the table ("Currency :INR",
# Raiffeisen Romania's "Valuta:" | "LEI", Krung Thai's "สกุลเงิน THB", Intesa Sanpaolo's
# "Controvalore in:" | "Euro"): its code, or its name (see _LABEL_NAMES)
_LABELLED = re.compile(
    r"(?<!\w)(?:currency|moneda|divisa|valuta|waehrung|währung|kontowaehrung|kontowährung|"
    r"devise|moeda|валюта|waluta|bewertet in|controvalore in|"
    r"měna|mena|สกุลเงิน)\s*[:：]?\s*([^\W\d_]+)",
    re.I,
)
# a currency's name, in the plural a column or a label writes it (Promerica's "Transacción
# Colones" beside "Transacción Dolares", Raiffeisen Romania's "Valuta: LEI"); "pesos" names
# several
_CURRENCY_NAMES = {
    "dolares": "USD", "dollars": "USD", "colones": "CRC", "soles": "PEN", "euros": "EUR",
    "reais": "BRL", "quetzales": "GTQ", "lempiras": "HNL", "cordobas": "NIO",
    "guaranies": "PYG", "bolivianos": "BOB", "lei": "RON",
}  # fmt: skip
_ONE_CURRENCY_NAMES = frozenset(_CURRENCY_NAMES) - {"dolares", "dollars"}
# a label's currency may be its name in the singular too ("Controvalore in: Euro"); only after
# a label, where a lone word is the account's currency ("Euro" in a column name may be one
# amount's of several)
_LABEL_NAMES = {**_CURRENCY_NAMES, "euro": "EUR"}
# a figure and the code of its currency, either way round ("17'173.76 CHF", "EUR 2.150,50")
_FIGURE = r"[-+]?\d{1,3}(?:[',. \u00a0]?\d{3})*(?:[.,]\d{2})"
_FIGURE_AND_CODE = re.compile(
    rf"(?<![\w.,'])(?:{_FIGURE}\s?({_CODE_NAMES})|({_CODE_NAMES})\s?{_FIGURE})(?![\w'])", re.I
)  # what a label's currency may be written as, not its code


# characters of simplified Chinese that Japanese and traditional Chinese write otherwise
# (额 for 額, 币 for 幣, 账 for 賬, 实 for 実 and 實 ...): a file of them is from mainland China
_SIMPLIFIED = frozenset("额币账单实订费类说对户务银记价间时")
_KANA = re.compile(r"[\u3040-\u30ff]")
# words of a Japanese bank's column names that Chinese writes otherwise (残高 for 余额, 出金 and
# 入金 for 支出 and 收入): Shinsei's header, in kanji alone
_JAPANESE_WORDS = re.compile(r"残高|出金|入金|預入|引出")
_SCRIPTS = {"JPY": "Japanese (kana)", "CNY": "simplified Chinese"}


def _yen_or_yuan(texts: list[str]) -> str | None:
    """The currency "¥" is in a file by its script: kana say the yen, simplified Chinese
    the renminbi; None where they say neither (or both)."""
    text = "".join(texts)
    kana, simplified = bool(_KANA.search(text)), bool(_SIMPLIFIED & set(text))
    return None if kana == simplified else "JPY" if kana else "CNY"


# a backslash before the figures ("\1,350") is the yen sign of Shift JIS (0x5C), the won
# sign of Korean code pages: which one, by the script of the file's names
_BACKSLASH_AMOUNT = re.compile(r"^[-+]?\\\s?\d")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _backslash_sign(texts: list[str], names: list[str]) -> tuple[str, str] | None:
    """(currency, where read) of amounts written after a backslash, by the names' script:
    kana the yen, hangul the won; None where there is none, or the script says neither."""
    example = next((t.strip() for t in texts if _BACKSLASH_AMOUNT.match(t.strip())), None)
    text = "".join(names)
    kana, hangul = bool(_KANA.search(text)), bool(_HANGUL.search(text))
    if example is None or kana == hangul:
        return None
    script = "Japanese (kana)" if kana else "Korean (hangul)"
    return ("JPY" if kana else "KRW"), f"'\\' in the amounts, e.g. '{example}', in {script}"


def currency_named(
    amounts: list, names: list[str], context: tuple[str, ...] = ()
) -> tuple[str, str] | None:
    """The one currency the amount cells or the amount columns' names write, and where it was
    read; None where they write none, or several. A "¥" is the yen or the renminbi by the
    script of the names and the ``context`` (the header's other names: see _yen_or_yuan)."""
    texts = [a for a in amounts if isinstance(a, str)]
    seen: dict[str, str] = {}
    yen = next((t.strip() for t in texts if "¥" in t or "￥" in t), None)
    if yen is not None and (code := _yen_or_yuan([*map(str, names), *context])) is not None:
        seen[code] = f"{yen[:1]!r} in the amounts, e.g. {yen!r}, in {_SCRIPTS[code]}"
    if (won_or_yen := _backslash_sign(texts, [*map(str, names), *context])) is not None:
        seen.setdefault(*won_or_yen)
    for text in texts:
        for symbol, code in _SYMBOLS.items():
            if symbol in text:
                seen.setdefault(code, f"{symbol!r} in the amounts, e.g. {text.strip()!r}")
        for code in _CODES.findall(text):
            seen.setdefault(code.upper(), f"in the amounts, e.g. {text.strip()!r}")
    for name in names:
        for code in _CODES.findall(str(name)):
            seen.setdefault(code.upper(), f"the column name {name!r}")
        for symbol, code in _SYMBOLS.items():
            if symbol in str(name):
                seen.setdefault(code, f"the column name {name!r}")
        if "元" in str(name) and "额" in str(name):  # yuan, in simplified script: renminbi
            seen.setdefault("CNY", f"the column name {name!r}")
        # a currency's name (La Banque Postale's "Montant(EUROS)", Crédit Agricole's "Débit
        # euros"); never "dollars", which a dozen countries write
        for word in set(re.findall(r"[a-z]+", str(name).lower())) & _ONE_CURRENCY_NAMES:
            seen.setdefault(_CURRENCY_NAMES[word], f"the column name {name!r}")
    return next(iter(seen.items())) if len(seen) == 1 else None


# the currency of the accounts of a country, by the two letters an IBAN starts with; and an
# IBAN's length there (with the mod-97 check it tells an IBAN from an ISIN or a reference)
_IBAN_COUNTRIES = {
    "CH": ("CHF", 21), "LI": ("CHF", 21), "GB": ("GBP", 22), "NO": ("NOK", 15),
    "SE": ("SEK", 24), "DK": ("DKK", 18), "PL": ("PLN", 28), "CZ": ("CZK", 24),
    "HU": ("HUF", 28), "AT": ("EUR", 20), "BE": ("EUR", 16), "HR": ("EUR", 21),
    "CY": ("EUR", 28), "EE": ("EUR", 20), "FI": ("EUR", 18), "FR": ("EUR", 27),
    "DE": ("EUR", 22), "GR": ("EUR", 27), "IE": ("EUR", 22), "IT": ("EUR", 27),
    "LV": ("EUR", 21), "LT": ("EUR", 20), "LU": ("EUR", 20), "MT": ("EUR", 31),
    "NL": ("EUR", 18), "PT": ("EUR", 25), "SK": ("EUR", 24), "SI": ("EUR", 19),
    "ES": ("EUR", 24), "RO": ("RON", 24), "BG": ("BGN", 22), "IS": ("ISK", 26),
    "TR": ("TRY", 26), "IL": ("ILS", 23), "SA": ("SAR", 24), "AE": ("AED", 23),
    "UA": ("UAH", 29), "BR": ("BRL", 29), "RS": ("RSD", 22), "GE": ("GEL", 22),
    "KZ": ("KZT", 20), "PK": ("PKR", 24), "CR": ("CRC", 22),
}  # fmt: skip
_IBAN = re.compile(r"(?<![A-Z0-9])([A-Z]{2})(\d{2})((?: ?[A-Z0-9]){11,30})")
# a UK sort code ("'99-88-74": the quote keeps a spreadsheet from reading it as a date); as
# dd-mm-yy dates look the same, only in a column or beside a label that names it
_SORT_CODE = re.compile(r"'?(\d{2}-\d{2}-\d{2})")
# a card fee for a payment in another currency names the account's: "NON-GBP TRANS FEE"
_NON_CURRENCY = re.compile(r"\bNON-(GBP|EUR|CHF|SEK|NOK|DKK|PLN|CZK|HUF)\b")
# what an Indian bank's export writes: an amount in lakh grouping ("1,25,000.00"), and in its
# column names the rupee as "Rs", "INR" or "₹" ("Amount(in Rs)") and "Narration" for the text
# (a description's "INR" is a purchase abroad's currency, not the account's)
_LAKH_AMOUNT = re.compile(rf"(?<![\d,.])(?:{LAKH_GROUPED.pattern})(?:\.\d+)?(?![\d,])")
_RUPEE = re.compile(r"(?<![A-Za-z])(Rs\.?|INR|₹)(?![A-Za-z])")
_INDIAN_TEXT_NAMES = ("narration",)
# a New Zealand account number: bank, branch, account and suffix, "38-8106-0601663-00" (as
# ASB's preamble writes it: "Bank 12; Branch 3405; Account 0123456-50"), and an amount
# in "NZ$" (ASB's card: "862.00 YEN at a Conversion Rate of 81.0913 (NZ$10.63)")
_NZ_ACCOUNT = re.compile(
    r"(?<![\d-])\d{2}-\d{4}-\d{7}-\d{2,3}(?![\d-])"
    r"|\bBank \d{2}; Branch \d{4}; Account \d{7}-\d{2,3}\b"
)
_NZ_DOLLARS = re.compile(r"(?<![A-Za-z])NZ\$\s?\d")
# Canada's own transfers (TD's "SEND E-TFR ***Y4h", "INTERAC e-Transfer"), and the province a
# card purchase's text ends with ("COSTCO WHOLESALE W54 SURREY BC"): on half the rows, as a
# code alone is a word elsewhere (AB, NL and SK are left out: a Swedish company, the
# Netherlands, Slovakia; NT and PE too: Australia's Northern Territory, Brazil's Pernambuco)
_INTERAC = re.compile(r"(?i)\binterac\b|\bE-TFR\b")
_PROVINCE = re.compile(r"[A-Z]{2,}\s+(BC|MB|ON|QC|NB|NS|YT|NU)\s*$")
# the amount column's name in a Nordic language: Norwegian "Beløp", Danish "Beløb"; a weaker
# clue than an account's, taken only where the cells point nowhere. Swedish "Belopp" points
# nowhere: Finland's banks write Swedish too
_NORDIC_AMOUNT_NAMES = {"beløp": "NOK", "beløb": "DKK"}


def currency_pointed_to(
    rows: list[CellRow], header: list[str], header_line: int = 0
) -> tuple[str, str] | None:
    """(currency, what points to it) where the file's cells point to one currency and no
    other: an IBAN's country (CH -> CHF, a euro-area country -> EUR), a UK sort code, a
    "NON-GBP" fee, an Indian bank's lakh grouping, "Rs" or "Narration", a column name in
    simplified Chinese or in kana, a New Zealand account number or "NZ$", Canada's Interac
    or province codes, a figure written with its currency above the table (rows before
    ``header_line``: Credit Suisse's balance ``17'173.76 CHF``; not below it, where a purchase
    abroad names its own); where none of them points, a Nordic amount column's name. None where
    they point nowhere or to several (a Swiss account paying into German ones). A hint for
    inspect to write out and the user to confirm: the load never guesses a currency."""
    sort_columns = {i for i, name in enumerate(header) if "sort code" in str(name).lower()}
    pointed: dict[str, str] = {}
    for name in map(str, header):
        if name.strip().lower() in _INDIAN_TEXT_NAMES or _RUPEE.search(name):
            pointed.setdefault("INR", f"the column name {name.strip()!r}, as Indian banks write")
        if _SIMPLIFIED & set(name):
            pointed.setdefault("CNY", f"the column name {name.strip()!r}, in simplified Chinese")
        if _KANA.search(name):
            pointed.setdefault("JPY", f"the column name {name.strip()!r}, in Japanese kana")
        if _JAPANESE_WORDS.search(name) and not _SIMPLIFIED & set(name):  # (取出金额: Chinese)
            pointed.setdefault("JPY", f"the column name {name.strip()!r}, in Japanese")
    for row in rows:
        line = " ".join(str(c).strip() for c in row.cells if str(c).strip())
        if row.line < header_line and (figure := _FIGURE_AND_CODE.search(line)) is not None:
            code = (figure.group(1) or figure.group(2)).upper()
            pointed.setdefault(code, f"{figure.group().strip()!r} above the table")
        if (ifsc := _IFSC.search(line)) is not None:
            pointed.setdefault("INR", f"the Indian branch code {ifsc.group(1)} (IFSC)")
        if (labelled := _labelled_currency(line)) is not None:
            pointed.setdefault(labelled[0], f"{labelled[1]!r} above the table")
        for position, cell in enumerate(row.cells):
            if not isinstance(cell, str):
                continue
            for code, said in _currency_clues(cell, position in sort_columns):
                pointed.setdefault(code, said)
    if (province := _provinces(rows)) is not None:
        pointed.setdefault("CAD", province)
    if not pointed:
        pointed.update(_nordic_amount_name(header))
    return next(iter(pointed.items())) if len(pointed) == 1 else None


def _labelled_currency(line: str) -> tuple[str, str] | None:
    """(currency, the label and its word) of the first currency label in ``line`` whose word
    is a currency's code or name ("Valuta: LEI" -> RON, "Controvalore in: Euro" -> EUR); a
    label's word that is none ("Valuta" the value date, beside "Descrizione") is passed by."""
    for labelled in _LABELLED.finditer(line):
        written = labelled.group(1)
        code = _LABEL_NAMES.get(written.lower())
        code = code or (written.upper() if _CODES.fullmatch(written) else None)
        if code is not None:
            return code, labelled.group()
    return None


def _provinces(rows: list[CellRow]) -> str | None:
    """What points to a Canadian card: half the rows or more (two at least) with a cell that
    ends with a province's code, as its purchases' texts do ("... SURREY BC"); else None."""
    ending = [
        found
        for row in rows
        if (found := next((m for c in row.cells if (m := _PROVINCE.search(str(c)))), None))
    ]
    if len(ending) < 2 or len(ending) * 2 < len(rows):
        return None
    return f"the Canadian province codes the texts end with, e.g. {ending[0].group().strip()!r}"


def _nordic_amount_name(header: list[str]) -> dict[str, str]:
    """{currency: the Nordic amount column name that points to it} (see _NORDIC_AMOUNT_NAMES)."""
    for name in map(str, header):
        if (code := _NORDIC_AMOUNT_NAMES.get(name.strip().lower())) is not None:
            return {code: f"the column name {name.strip()!r}, as its country's banks write"}
    return {}


def _currency_clues(text: str, sort_code_column: bool) -> list[tuple[str, str]]:
    clues = [(currency, f"the IBAN {iban}") for iban, currency in _ibans(text)]
    labelled = sort_code_column or "sort code" in text.lower()
    if labelled and (code := _SORT_CODE.search(text)):
        clues.append(("GBP", f"the UK sort code {code.group(1)}"))
    clues += [
        (m.group(1), f"{m.group()!r} in {text.strip()!r}") for m in _NON_CURRENCY.finditer(text)
    ]
    if lakh := _LAKH_AMOUNT.search(text):
        clues.append(("INR", f"the Indian digit grouping of {lakh.group()!r}"))
    if nz := _NZ_ACCOUNT.search(text):
        clues.append(("NZD", f"the New Zealand account number in {nz.group()!r}"))
    if _NZ_DOLLARS.search(text):
        clues.append(("NZD", f"'NZ$' in {text.strip()!r}"))
    if interac := _INTERAC.search(text):
        clues.append(("CAD", f"{interac.group()!r}, a Canadian transfer, in {text.strip()!r}"))
    return clues


# an Indian branch's code under its label (SBI's "IFS Code : SBIN0000001"): four letters, a
# zero, six letters or digits
_IFSC = re.compile(r"(?i)\bIFS(?:C| Code)\b[\s:.-]*([A-Z]{4}0[A-Z0-9]{6})\b")


def _ibans(text: str) -> list[tuple[str, str]]:
    """(IBAN, its country's currency) of each valid IBAN in ``text`` (spaces allowed)."""
    found = []
    for match in _IBAN.finditer(text):
        country = _IBAN_COUNTRIES.get(match.group(1))
        if country is None:
            continue
        currency, length = country
        iban = match.group().replace(" ", "")[:length]
        if len(iban) == length and _iban_checks(iban):
            found.append((iban, currency))
    return found


def _iban_checks(iban: str) -> bool:
    """The IBAN's mod-97 check (ISO 13616): its check digits, moved behind, make it 1."""
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def currency_of_column(name: object) -> str | None:
    """The currency an amount column's name says its figures are in ("Betrag (EUR)",
    "Transacción Dolares"), or None."""
    named = currency_named([], [str(name)])
    if named is not None:
        return named[0]
    words = set(normalized(name).split())
    found = {code for word, code in _CURRENCY_NAMES.items() if word in words}
    return found.pop() if len(found) == 1 else None
