"""What banks call their columns, by our field: the names US, UK, German, French, Dutch,
Spanish, Italian, Japanese, Chinese, Korean and Russian downloads use, and bank-data APIs'
record keys (flattened: ``transactionAmount.amount``). ``inspect`` guesses a column_map from
them; the load uses them only to find a running-balance column nobody mapped (a balance is
never a transaction field, so guessing it cannot change a row)."""

from __future__ import annotations

import re
import unicodedata

# Beside our raw fields, columns a reader uses without storing them: a running balance, two
# unsigned amount columns, and a column that says which way an unsigned amount went.
INTAKE_FIELDS = ("balance", "debit", "credit", "direction", "fee")
# the values of a direction column ("Af Bij", "Debit/Credit", "S/H"), lower case
# a direction column's words (Swedbank's D/K: debetas, kreditas; WeChat Pay's 支出, 收入;
# Chinese banks' 借 (debit) and 贷 (credit); Starling's OUTBOUND, INBOUND; ISO 20022's
# DBIT and CRDT, which PSD2 APIs (STET's, Enable Banking's) send beside unsigned amounts; Open
# Finance Brasil's DEBITO and CREDITO, and the accented forms of French and Portuguese;
# Japanese 支払 (payment) and 出金 out, チャージ (a top-up) and 入金 in: WAON's 利用区分;
# budgeting apps' "Expenses" and "Income": Wallet by BudgetBakers' type)
MONEY_OUT = frozenset(
    {"af", "debit", "dr", "d", "s", "soll", "out", "-", "debet", "withdrawal", "支出", "借",
     "дебет", "outbound", "dbit", "debito", "débito", "débit", "支払", "支払い", "出金",
     "expense", "expenses"}
)  # fmt: skip
MONEY_IN = frozenset(
    {"bij", "credit", "cr", "c", "h", "haben", "in", "+", "deposit", "k", "收入", "贷",
     "кредит", "inbound", "crdt", "credito", "crédito", "crédit", "チャージ", "入金", "income"}
)  # fmt: skip


def money_way(value: object) -> int | None:
    """-1 for a direction cell of money out ("Af", "Debit", "D"), +1 for money in, else None.
    A cell of several words that all say one way is read too: BOCOM's "借 Dr" (debit, in
    Chinese and English) and "贷 Cr"."""
    word = str(value if value is not None else "").strip().lower()
    if word in MONEY_OUT or word in MONEY_IN:
        return -1 if word in MONEY_OUT else 1
    tokens = re.findall(r"[^\s/()（）]+", word)
    ways = {-1 if t in MONEY_OUT else 1 if t in MONEY_IN else None for t in tokens}
    return ways.pop() if len(tokens) > 1 and len(ways) == 1 and None not in ways else None


# German spells its umlauts out in ASCII names ("Waehrung"); other accents are dropped (_plain)
_FOLD = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def _names(text: str) -> tuple[str, ...]:
    return tuple(_plain(name) for name in text.split("|"))


def _plain(text: str) -> str:
    """Lower case, umlauts spelled out, other accents, kana voicing marks and full-width forms
    dropped (NFKD): how names are compared."""
    text = unicodedata.normalize("NFKD", text.strip().lower().translate(_FOLD))
    return "".join(c for c in text if not unicodedata.combining(c))


# our field -> header names, normalized (see normalized), the likeliest first: of a header with
# "Transaction Date" and "Post Date", the posting date is the day a row belongs to
SYNONYMS: dict[str, tuple[str, ...]] = {
    "posted_date": _names(
        "posted date|post date|posting date|booking date|date posted|buchungstag|"
        # (Fintro's execution date before its value date; OTP's booking date before its
        # transaction date, which the list names further down)
        "uitvoeringsdatum|date d execution|koenyveles datuma|konyveles datuma|kuupaeev|"
        "buchungsdatum|reskontradatum|date de comptabilisation|"
        # (finAPI's day the bank booked it, before its own import day and the value date)
        "bank booking date|boekdatum|fecha contable|date|"
        "transaction date|trans date|transaktionsdatum|datum|fecha|data|date operation|"
        "value date|valuta|valutadatum|wertstellung|date de valeur|booked at|posted at|booking time|"
        "transaction time|transaction timestamp|created|created at|"
        # (China Merchants Bank card's posting day, filled where its 交易日 is blank)
        "日付|取引日|お取引日|取扱日|取扱日付|取引日付|ご利用日|利用日|交易日期|记账日期|记账日|交易日|"
        "日期|"
        # (Alipay's payment time before its order's creation time)
        "交易时间|付款时间|交易创建时间|datetime|"
        "거래일|거래일자|거래일시|дата|дата операции|дата проводки|дата совершения операции|"
        "dato|buchung|bokfoeringsdag|bokfoeringsdatum|bokføringsdato|bokføringsdag|transaktionsdag|"
        "kirjauspaeivae|tranzakcio datuma|datum zauctovani|datum provedeni|"
        "дата проведення|дата операції|дата і час операції|дата i час операції|дата і час|"
        "こ利用年月日|利用年月日|取引年月日|利用日 キャンセル日|"
        "tranzakcio idopontja"
    ),
    "description": _names(
        "description|transaction description|booking text|details|narrative|memo|name|"
        "verwendungszweck|beschreibung|buchungsdetails|transaktionsbeschreibung|libelle|"
        "libelle operation|omschrijving|mededelingen|concepto|descrizione completa|descrizione|"
        "descripcion|descricao|beschreibung1|"
        "descrizione operazioni|text|reference text|particulars|desc|"
        "remittance information unstructured|remittance information|"
        "remittance information unstructured array|"
        # (HDFC's and other Indian banks' text: ICICI's "Transaction Remarks"; Paytm's "Paid
        # for order"; BCA's "Keterangan")
        "narration|activity|transaction remarks|remarks|keterangan|"
        "摘要|お取引内容|取引内容|ご利用店名|利用店名|ご利用先|内容|交易摘要|商户名称|"
        "利用店名 商品名|ご利用店名 商品名|入出金内容|订单标题|"
        "적요|거래내용|내용|가맹점명|описание|описание операции|назначение платежа|основание|"
        "beskrivelse|beskrivning|tekst|selite|label|libelle operation bancaire|umsatztext|"
        "koezlemeny|kozlemeny|paaiskinimai|призначення платежу|деталі операції|опис операції|"
        "деталі|popis|poznamka|"
        # (Open Finance Brasil's transactionName; the Berlin Group's card transactionDetails)
        "transaction name|transaction details|"
        # (View Card's and WAON's shop; Swedbank Estonia's text; BOC's booking name; Suica's
        # entry station or shop)
        "こ利用箇所|利用店舗|selgitus|交易名称|入場駅 事業者名|"
        # (the bank's own text of a row where an app cleaned the merchant's name beside it:
        # Monarch's "Original Statement" beside its "Merchant"; the bank's words are what a
        # bank's file holds)
        "original statement|"
        # a reference the payer writes (N26's "Payment Reference"): the text where no other
        # column is one, after the other party (found by its name's words: "Partner Name")
        "payment reference|"
        # last: the text only where no other column is (Commerzbank's, Comdirect's); beside a
        # purpose text it is the booking type (see transaction_type)
        "buchungstext"
    ),
    "amount": _names(
        # an amount in the account's (or booking) currency goes before the transaction's own
        # (VTB's "Сумма операции" in euros beside its roubles for the account)
        "amount in account currency|сумма пересчитанная в валюту счета|сумма в валюте счета|"
        # (BOCOM's card: "入账币种/金额", the booked "CNY 49.85" beside the purchase's "JPY
        # 1000.00"; CMB's "人民币金额" beside the amount where it was spent; CGB's booked
        # "入账金额" beside its "交易金额")
        "入账币种 金额|人民币金额|记账金额|入账金额|"
        # (Meituan's paid "实付金额" before its order's list price "订单金额")
        "实付金额|实收金额|"
        # (PayPal's "Gross", "Brutto", "Brut", "Bruto", "Lordo": the payment, before its fee;
        # never a shipping or tax sub-amount beside it)
        "amount|amt|gross|brutto|brut|bruto|lordo|transaction amount|transaction amount amount|betrag|umsatz|montant|bedrag|"
        "importe|importo|value|sum|buchungsbetrag|castka|zauctovana castka|kwota|"
        "tranzakcio oesszege|oesszeg|belopp|beløp|beløb|summa|maeaerae|сума|сума в валюті картки|"
        "objem|cash flow|monto|valor|"
        "金額|取引金額|ご利用金額|利用金額|入出金|金额|交易金额|交易币种 金额|发生额|금액|거래금액|"
        "こ利用額|利用金額 税込|利用額|"
        "сумма|сумма операции"
    ),
    "debit": _names(
        "debit|debits|withdrawal|withdrawals|money out|paid out|debit amount|outflow|soll|ausgang|"
        "ut|uttak|uscite|addebiti|withdrawal amt|withdrawal amount|cargos|cargo|"
        # (Swiss banks' Belastung; Costa Rica's BCR, BNCR and BAC)
        "belastung|belastungen|debito|debitos|monto debito|importe debito|retiros|egresos|"
        "支払い金額|"
        "お支払金額|お引出金額|出金|出金額|出金金額|引出額|支払金額|"
        # (ICBC's booked pair before its transaction pair: the account's currency)
        "记账金额 支出|交易金额 支出|支出|支出金额|支取|支取金额|取出|取出金额|借方金额|借方发生额|借方|"
        "출금|출금액|찾으신금액|расход|списание|дебет|сума списання|cума списання"
    ),
    "credit": _names(
        "credit|credits|deposit|deposits|money in|paid in|credit amount|inflow|haben|eingang|"
        "inn|innskudd|entrate|accrediti|deposit amt|deposit amount|abonos|abono|"
        "gutschrift|gutschriften|credito|creditos|monto credito|importe credito|depositos|"
        "ingresos|"
        "預かり金額|"
        "お預り金額|お預入金額|入金|入金額|入金金額|預入額|"
        "记账金额 收入|交易金额 收入|收入|收入金额|存入|存入金额|贷方金额|贷方发生额|贷方|"
        "입금|입금액|맡기신금액|приход|поступление|зачисление|кредит|сума зарахування|"
        "cума зарахування"
    ),
    "balance": _names(
        # (not "available balance": it does not run with the rows)
        "balance|running balance|running bal|saldo|kontostand|solde|"
        # (Suica's and PASMO's card balance)
        "残額|"
        "差引残高|残高|余额|账户余额|잔액|거래후잔액|остаток|баланс"
    ),
    # a fee charged beside the amount (Revolut's): the running balance moves by both
    "fee": _names(
        "fee|fees|gebuehr|gebuehren|frais|poplatek|服务费|tarifa|commissione|commissioni|taxa"
    ),
    "transaction_id": _names(
        # (GoCardless' internalTransactionId before the bank's entryReference beside it, the
        # id of STET's and Enable Banking's entries, before a "reference number" that is a
        # creditor's reference, empty on most entries; the Berlin Group's cardTransactionId)
        "transaction id|transaction reference|internal transaction id|entry reference|"
        "transaktions nr|"
        "card transaction id|reference number|ref number|fitid|id|txn id|"
        "reference|referenz|kundenreferenz|reference id|id pohybu"
    ),
    "currency": _names(
        # the booked currency first: the account's, where another column holds the
        # transaction's own (DKB's "Originalwährung", VTB's "Валюта операции")
        "buchungswaehrung|валюта счета|mena uctu|记账币种|入账币种|入账货币|"
        "currency|waehrung|wahrung|devise|valuta code|ccy|transaction amount currency|"
        "iso currency code|amount currency|munt|moneda|divisa|waluta|mena|valuuta|valutacode|"
        "muntsoort|penznem|valiuta|měna|tranzakcio devizaneme|devizanem|валюта картки|валюта|"
        "valuta rekening|valyuta|monn|monnaie|moeda|currency code|waehrungscode|billing currency|"
        "通貨|币种|币别|货币|交易币种|交易货币|통화"
    ),
    "account_id": _names(
        # (not IBAN or Kontonummer: in many exports that is the other party's account)
        "account|account number|account no|card no|card number|auftragskonto"
    ),
    "merchant": _names("merchant name|merchant|clean merchant name"),
    # the purpose of a payment written beside the description or the other party (Outbank's
    # "Reason" beside "Name", Neon's "Subject" beside "Description"): joined to it, after it
    # (Venmo's "Note", Paytm's "Comment", PayPal's "Item Title", Air Bank's message to the
    # payee, Alipay's item)
    "purpose": _names(
        "reason|subject|purpose|payment purpose|note|comment|item title|zprava pro prijemce|zprava|"
        # (UBS's three text columns: the payee's name first, then its details)
        "beschreibung2|beschreibung3|"
        # (mBank's "#Tytuł": the card purchase's shop and town)
        "tytuł|tytuł operacji|"
        # (JD's item, BOCOM's card's "消费 美团")
        # (Alipay's item, BOC's message, CMB's own note; Suica's exit station, a memo)
        "商品说明|附言|客户摘要|出場駅 降車場所|メモ|"
        "商品名称|商品|交易附言|交易说明|"
        # (PrivatBank Autoclient's OSND, the payment's purpose; a budgeting app's notes, which
        # Goodbudget writes beside the payee's "Name")
        "osnd|notes|"
        # (Intesa Sanpaolo's shop or payer, "Descrizione Estesa", beside its booking type
        # "Descrizione"; BBVA's "Movimiento", a Bizum's or a transfer's purpose, beside its
        # "Concepto")
        "descrizione estesa|movimiento"
    ),
    # the other party of a transfer or debit, beside a purpose text ("Auftraggeber /
    # Begünstigter" + "Verwendungszweck"): both are the description, joined (as CAMT.053's are)
    "counterparty": _names(
        "counterparty|payee|beguenstigter zahlungspflichtiger|auftraggeber beguenstigter|"
        "beguenstigter|auftraggeber empfaenger|name zahlungsbeteiligter|zahlungsbeteiligter|"
        # (DKB names the payee and the payer apart, one of them the account's owner: the
        # payee, who is the merchant of a purchase, first)
        "zahlungsempfaenger|empfaenger|empfaengername|auftraggebername|zahlungspflichtiger|"
        "auftraggeber|"
        "tegenrekening naam|naam|nom|payee name|name of other party|creditor name|debtor name|"
        "beneficiaire donneur d ordre|donneur d ordre beneficiaire|beneficiaire|donneur d ordre|"
        "contrepartie|counter party name|counter party|tegenrekeninghouder|naam tegenpartij|"
        "ellenoldali nev|partner neve|gavejas|moketojas|найменування контрагента|кореспондент|"
        # (ICBC's "交易场所", where a card was used: the merchant, before its mostly blank
        # "对方户名"; ABC's "对手信息")
        "nazev protiuctu|交易场所|对手户名|对方户名|对手信息|交易对方|交易对手名称|交易对手|"
        "nadawca odbiorca|nadawca|odbiorca|"
        # (finAPI's counterpartName; PrivatBank Autoclient's AUT_CNTR_NAM)
        "counterpart name|aut cntr nam|"
        # (MUFG's payer or payee, BOC's, SEB's and Swedbank Estonia's party)
        "摘要内容|对方账户名|beneficiary s name|saaja maksja|"
        # a payment app's two parties (Venmo's), one of them the account's owner (see
        # party_role); Firefly III's source and destination accounts, one of them the user's
        "from|to|source name|destination name"
    ),
    "direction": _names(
        "af bij|debit credit|credit debit|dr cr|cr dr|soll haben|s h|direction|d k|收 支|收支|"
        "借贷|借 贷|借贷标志|借贷方向|операція|"
        "deebet kreedit|"
        "credit debit indicator|debit credit indicator|cdt dbt ind|"
        # (Open Finance Brasil's creditDebitType; PrivatBank Autoclient's TRANTYPE, D or C)
        "credit debit type|trantype|"
        # (ICICI's card: "CR" on money in, blank on purchases)
        "billing amount sign|amount sign|cr dr sign"
    ),
    # (Plaid's current taxonomy first: its `category` list is the deprecated one)
    # (Finanzguru's main category, "Hauptkategorie", beside its finer "Unterkategorie": the
    # main one is the label, as Outbank's "Category" beside its "Subcategory" is; Goodbudget's
    # "Envelope", the budget a row was paid from)
    "category": _names(
        "personal finance category primary|category|kategorie|categorie|categoria|kategori|"
        "kategoria|категория|hauptkategorie|analyse hauptkategorie|envelope"
    ),
    # (a booking type column "Umsatzart" or "Vorgang" before "Buchungstext", which is then the
    # text: Commerzbank's and Comdirect's)
    "transaction_type": _names(
        "type|transaction type|umsatzart|vorgang|buchungsart|buchungstext|type operation|"
        "typ transakce|交易类型|"
        # (Fio's "Typ": Bezhotovostní platba)
        "typ|typ operace|typ pohybu"
    ),
}


# words that make a column the other party when no name matches whole ("Nom du bénéficiaire",
# "Tegenpartij", N26's "Partner Name"); not "name": an "Account Name" column is no counterparty
COUNTERPARTY_WORDS = (
    "naam",
    "partner",
    "beguenstigter",
    "empfaenger",
    "counterparty",
    "tegenpartij",
    "beneficiaire",
    "contrepartie",
)


# words that keep a column with a counterparty word from being the party: the other party's
# account (Oberbank's "Empfänger IBAN/Kto.Nr.") or address (PayPal's "Empfänger
# E-Mail-Adresse", whose values are no name to group a merchant's rows by)
NOT_COUNTERPARTY_WORDS = (
    "iban",
    "bic",
    "blz",
    "kto",
    "konto",
    "swift",
    "account",
    "rekening",
    "mail",
    "email",
    "adresse",
    "address",
)


# a column named just "Name" in a list of transactions is the other party's (PayPal's,
# Outbank's, Monzo's), as a merchant's name column is
_PARTY_NAMES = frozenset({"name", *SYNONYMS["merchant"]})


def names_other_party(name: object) -> bool:
    """Whether a column's name says it holds the other party of a transaction (its name, not
    its account or address): a payee, a payer, a merchant."""
    if field_of(name) == "counterparty" or normalized(name) in _PARTY_NAMES:
        return True
    words = set(normalized(name).split())
    return bool(words & set(COUNTERPARTY_WORDS)) and not words & set(NOT_COUNTERPARTY_WORDS)


# a party column that names one side only (DKB's "Zahlungspflichtige*r" and
# "Zahlungsempfänger*in", one of them always the account's owner)
_PAYER_WORDS = frozenset({"zahlungspflichtiger", "auftraggeber", "auftraggebername", "payer",
                          "debtor", "donneur"})  # fmt: skip
_PAYEE_WORDS = frozenset({"zahlungsempfaenger", "empfaenger", "empfaengername", "beguenstigter",
                          "payee", "creditor", "beneficiaire"})  # fmt: skip


# a payment app's columns of the sender and the recipient, by their whole names (Venmo's
# "From" and "To"; Firefly III's "source_name" and "destination_name")
_PAYER_NAMES = frozenset({"from", "source name"})
_PAYEE_NAMES = frozenset({"to", "destination name"})


def party_role(name: object) -> str | None:
    """ "payer" or "payee" for a party column whose name says which side it holds, None for
    one naming both ("Auftraggeber/Empfänger") or neither."""
    key = normalized(name)
    words = set(key.split())
    payer = bool(words & _PAYER_WORDS) or key in _PAYER_NAMES
    payee = bool(words & _PAYEE_WORDS) or key in _PAYEE_NAMES
    return None if payer == payee else "payer" if payer else "payee"


# a currency named in a column's name says nothing about what the column is
_CURRENCY_WORDS = re.compile(
    r"( in)? (eur|euro|euros|usd|gbp|chf|cad|aud|sek|nok|dkk|pln|czk|huf|ron|jpy|cny|rmb|krw|rub|"
    r"sgd|hkd|nzd|inr|rs|zar|mxn|brl|uah|clp|ars|cop|pen|uyu|thb|ils|nis|try|tl|idr|myr|php|vnd|"
    r"twd|sar|aed|egp|ngn|kes|isk|bgn|kzt|円|元|원|руб|грн)$"
)


# German's gender-inclusive endings ("Zahlungsempfänger*in", "Empfänger:in", "Empfänger/-in",
# "Zahlungspflichtige*r", "Zahlungspflichtige/r"): the names lists hold the plain form. A slash
# or parenthesis only after "-er" or "-e", where the ending cannot be a word ("Paid Out/In"),
# and no underscore ("money_in" is a key's own word)
_GENDER_ENDING = re.compile(
    r"(?<=[a-z])[*:](?:innen|in|(?P<r>r))\b"
    r"|(?<=er)(?:/-?|\()(?:innen|in)\)?(?!\w)"
    r"|(?<=e)(?:/|\()(?P<r2>r)\)?(?!\w)"
)


def _plain_gender(text: str) -> str:
    """ "zahlungsempfaenger*in" -> "zahlungsempfaenger", "zahlungspflichtige*r" ->
    "zahlungspflichtiger" (the ending "r" belongs to the plain form)."""
    return _GENDER_ENDING.sub(lambda m: "r" if m["r"] or m["r2"] else "", text)


def normalized(name: object) -> str:
    """A header name as SYNONYMS spell it: camelCase split, lower case, accents and umlauts
    spelled out, gender-inclusive endings, punctuation, repeated spaces and a trailing currency
    gone ("Running Bal." -> "running bal", "Betrag (EUR)" -> "betrag", "Débit euros" ->
    "debit", "bookingDate" -> "booking date", "Zahlungsempfänger*in" -> "zahlungsempfaenger")."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(name))
    text = " ".join(re.sub(r"[\W_]+", " ", _plain_gender(_plain(words))).split())
    return _CURRENCY_WORDS.sub("", text)


def field_of(name: object) -> str | None:
    """Our field for a header name, or None."""
    key = normalized(name)
    return next((ours for ours, names in SYNONYMS.items() if key in names), None)


def balance_column(header: list[str], mapped: set[str]) -> str | None:
    """The running-balance column of a header that nobody mapped, if it has one."""
    return next(
        (h for h in header if h not in mapped and normalized(h) in SYNONYMS["balance"]), None
    )
