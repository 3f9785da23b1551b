"""The words a transaction's text says which way its money went with: income (payroll, a
refund, a payment received), a card payment, a top-up, spending at a till. ``sign_guess``
reads a file's sign by them, and says (without applying it) a row's own way where a file
writes every amount unsigned and its texts say it (BOCOM's card: "消费 …" a purchase, "退货 …"
a return, "信用卡还款 …" a repayment)."""

from __future__ import annotations

import re

# money coming in: a row whose description says so shows the file's sign for income (a
# card's "INTERNET PAYMENT - THANK YOU", "CashBack / Remises", a Brazilian card's "Pagamento
# recebido" and "Estorno" (a reversal), a NZ account's "D/C FROM" (direct credit); a Chinese
# card's （退款） refund and 退货 return, an account's 工资 salary and 利息 interest; a Japanese
# account's 入金 deposit, 給与 salary and 返金 refund; an HSA's or a pension's employer or
# employee contribution)
INCOME = re.compile(
    r"(?i)payroll|salary|salaire|gehalt|lohn|wages|deposit|direct dep|interest|refund|"
    r"employer contribution|employee contribution|"
    r"payment\W{0,3}thank you|thank you for your payment|autopay payment|payment received|"
    r"cash\s?back|gutschrift|virement en votre faveur|habenzinsen|\bd/c from\b|"
    r"pagamento recebido|pago recibido|estorno|reembolso|devoluci[oó]n|sal[aá]rio|n[oó]mina|"
    r"退款|退货|返现|工资|利息|结息|入金|給与|返金"
)
# a refund: money back to the one who paid (a card's credit), but money out of the balance
# of the one who was paid (a merchant's "REFUND FOR PAYMENT")
REFUND = re.compile(r"(?i)refund|reembolso|devoluci[oó]n|estorno|退款|退货|返金")
# a card's payment received: money in on a card, but money out of the account that pays it
# (a checking account's "PAYMENT TO ...", ABC's 正常还款): income only in a file whose
# negative amounts are half its rows or fewer, as a card's payments and refunds are, and
# never where the text says where the money went (see _PAYING)
CARD_PAYMENT = re.compile(r"(?i)repayment|thank you|^\W*payment\b|还款")
# the paying side of a card payment: an account's "MB TRANSFER TO CARD 5023 THANK YOU" (ASB)
# thanks the card it pays, and is money out
_PAYING = re.compile(r"(?i)\bto (?:credit )?card\b|\b(?:payment|transfer|tfr) to\b")
# a top-up (a transit or e-money card's チャージ, half-width ﾁｬｰｼﾞ in Suica's histories):
# money in on the card topped up, but a purchase on the card that pays for it (View Card's
# "オートチャージ"); income only where its sign is that of the fewer rows
TOP_UP = re.compile(r"チャージ|ﾁｬｰｼﾞ")
# money going out: a card payment at a till ("HOFER DANKT", "POS"), a cash withdrawal, a
# cheque, an account fee, a card's interest charged (not earned), a Chinese card's 消费
# (purchase); beside INCOME it tells the debits from the credits of a file that writes both
# unsigned
SPENDING = re.compile(
    r"(?i)\bpos\b|\bdankt\b|bankomat|geldautomat|\batm\b|kartenzahlung|card purchase|"
    r"\bcheck\b|\bcheque\b|\bentgelt\b|interest charge|finance charge|^\W*消费"
)


# the ``spending`` setting of a file whose every amount is unsigned: each row signed by its
# words (way_by_words), money in where they say so, else a purchase
BY_WORDS = "by_words"


def says_income(text: str, amount: float, negative: int, count: int) -> bool:
    """Whether a row's text says it is money in, in a file of ``count`` amounts of which
    ``negative`` are negative: INCOME's words anywhere; a card payment's (CARD_PAYMENT) only in
    a file of half its amounts negative or fewer, and not where it names what it paid; a
    top-up's (TOP_UP) only where its sign is the fewer rows' (a Suica history's ｵｰﾄﾁｬｰｼﾞ
    among fares of the other sign; on the card that pays for it, it is one more purchase)."""
    if INCOME.search(text):
        return True
    card = negative * 2 <= count
    if card and CARD_PAYMENT.search(text) and not _PAYING.search(text):
        return True
    same_sign = negative if amount < 0 else count - negative
    return bool(TOP_UP.search(text)) and same_sign * 2 < count


def way_by_words(text: str) -> int | None:
    """+1 where a row's text says money in on a card (a refund, a return, a repayment
    received), -1 where it says money out (a purchase, a withdrawal, a fee), None where it
    says neither or both: the way of one unsigned amount of a card statement."""
    money_in = bool(INCOME.search(text) or CARD_PAYMENT.search(text)) and not _PAYING.search(text)
    money_out = bool(SPENDING.search(text))
    return None if money_in == money_out else 1 if money_in else -1
