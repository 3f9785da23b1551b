"""The words of a column's name that make it a candidate for one of our fields when no name
list (core.column_names) knows the name whole ("Completed Date", "Transaction Amount (GBP)",
"Ma catégorie"), the words that keep it from one ("Shipping Amount" is no payment's amount),
and the side an amount column's name says it holds (Toshl's "Expense amount" and "Income
amount")."""

from __future__ import annotations

from ml_assets.core.intake.column_names import (
    COUNTERPARTY_WORDS,
    NOT_COUNTERPARTY_WORDS,
    normalized,
)

# words that make a column a candidate for a field when no name matches whole ("Completed
# Date", "Transaction Amount (GBP)"); a date column that names a posting wins
FIELD_WORDS = {
    "posted_date": ("date", "datum", "fecha", "data"),
    "amount": (
        "amount",
        "betrag",
        "bedrag",
        "montant",
        "importe",
        "importo",
        "castka",
        "kwota",
        "oesszeg",
        "monto",
    ),
    "description": (
        "description",
        "omschrijving",
        "libelle",
        "memo",
        "details",
        "narrative",
        "popis",
        "opis",
        "descripcion",
        "descricao",
    ),
    "balance": ("balance", "saldo", "solde", "kontostand"),
    "counterparty": COUNTERPARTY_WORDS,
    # a label column the user named ("My category", "Ma catégorie")
    "category": ("category", "categorie", "kategorie", "categoria", "kategori", "категория"),
}


# words that keep a column from a field its other words fit: a merchant category code or a
# category's id is no label of the user's
NOT_FIELD_WORDS = {
    # a part of the payment or a charge beside it is no payment's amount (PayPal's "Shipping
    # and Handling Amount", "Insurance Amount" beside its "Gross", in each language it writes;
    # Venmo's "Amount (fee)")
    "amount": (
        *("shipping", "handling", "tax", "insurance", "discount", "fee", "fees", "tip"),
        *("frais", "livraison", "traitement", "tva", "assurance", "remise"),  # fr
        *("envio", "manipulacion", "impuesto", "impuestos", "iva", "seguro", "descuento"),  # es
        *("spedizione", "imballaggio", "imposta", "assicurazione", "sconto"),  # it
        *("versand", "bearbeitung", "steuer", "versicherung", "rabatt", "gebuehr"),  # de
        *("frete", "manuseio", "imposto", "taxa"),  # pt
    ),
    # (a list of ids, Copilot's "suggestedCategoryIds", is no label either)
    "category": ("code", "codes", "id", "ids", "uid", "uuid", "guid", "mcc", "number", "no"),
    # the other party's account or address is no name: Oberbank's "Empfänger IBAN/Kto.Nr.",
    # PayPal's "Empfänger E-Mail-Adresse"
    "counterparty": NOT_COUNTERPARTY_WORDS,
    # the period's balance, stated once (Venmo's "Beginning Balance" and "Ending Balance"
    # columns, a figure on a line of its own), is no running balance
    "balance": ("beginning", "opening", "starting", "ending"),
}


# the side an amount column's name says it holds ("交易金额(收入)", "存入金额", "贷方发生额";
# Toshl's "Expense amount" and "Income amount"): income, deposits and credits are money in;
# expenses, withdrawals and debits money out. The side is the name's, never the column's
# place in the header. Chinese words are parts of a name, the others whole words.
_CJK_SIDES = {"credit": ("收入", "存入", "贷方"), "debit": ("支出", "支取", "取出", "借方")}
_CJK_AMOUNT_WORDS = ("金额", "发生额", "额")
_SIDES = {
    "credit": (
        *("income", "incomes", "inflow", "inflows", "credit", "credits", "deposit", "deposits"),
        *("received", "einnahme", "einnahmen", "eingang", "gutschrift", "recette", "recettes"),
        *("ingreso", "ingresos", "entrata", "entrate", "receita", "receitas"),
    ),
    "debit": (
        *("expense", "expenses", "outflow", "outflows", "debit", "debits", "withdrawal"),
        *("withdrawals", "spent", "spending", "ausgabe", "ausgaben", "ausgang", "belastung"),
        *("depense", "depenses", "gasto", "gastos", "uscita", "uscite", "despesa", "despesas"),
    ),
}


def side_named(name: str) -> str | None:
    """ "debit" or "credit" where a column's name is an amount's and says one side, else
    None."""
    key = normalized(name)
    words = set(key.split())
    if words & set(FIELD_WORDS["amount"]) and not words & set(NOT_FIELD_WORDS["amount"]):
        sides = [side for side, named in _SIDES.items() if words & set(named)]
    elif any(w in key for w in _CJK_AMOUNT_WORDS):
        sides = [side for side, named in _CJK_SIDES.items() if any(w in key for w in named)]
    else:
        return None
    return sides[0] if len(sides) == 1 else None
