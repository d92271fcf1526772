"""Reading each text in its own language: the language, its numbers, dates, times and
sentences."""

from __future__ import annotations

from decimal import Decimal

import pytest

from judge.reading import read
from judge.reading.languages import UNDETERMINED, conventions, detect, pair, reads
from judge.reading.normalise import normalise
from judge.reading.sentences import split_sentences


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Die Erstattung erfolgt auf das ursprüngliche Zahlungsmittel.", "de"),
        ("Le remboursement est effectué sur le moyen de paiement initial.", "fr"),
        ("El reembolso se realiza al método de pago original.", "es"),
        ("Возврат средств производится на исходный способ оплаты.", "ru"),
        ("退款将退回原支付方式。", "zh"),
        ("返金は元の支払い方法に行われます。", "ja"),
        ("Refunds go back to the original payment method.", "en"),
        ("1.299 €", UNDETERMINED),
    ],
)
def test_the_language_of_a_text(text: str, language: str) -> None:
    assert detect(text) == language


def test_a_claim_too_short_to_tell_takes_its_evidence_language() -> None:
    assert pair(UNDETERMINED, "de") == ("de", "de")
    assert pair("fr", UNDETERMINED) == ("fr", "fr")


def test_word_lists_decide_which_languages_a_word_rule_reads() -> None:
    assert reads("en", ("negation", "opposites"))
    assert not reads("de", ("negation",))
    assert reads("de", ("percent", "scales"))
    assert reads(UNDETERMINED, ("negation",))  # read as English


def test_conventions_come_from_the_cldr() -> None:
    german = conventions("de")
    assert (german.decimal, german.group, german.day_first) == (",", ".", True)
    assert german.months["mai"] == 5 and german.months["märz"] == 3
    assert conventions("en").day_first is False


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Das Modell kostet 1.299,00 € inklusive Mehrwertsteuer.", [("1299.00", "cur:euro")]),
        (
            "Der Umsatz stieg um 12,5 % auf 84,3 Mio. Euro.",
            [("12.5", "%"), ("8.43E+7", "cur:euro")],
        ),
        ("Le loyer est de 1\u202f450 € par mois.", [("1450", "cur:euro")]),
        ("Le Livret A rapporte trois pour cent.", [("3", "%")]),
        ("La tasa bajó al 11,8 por ciento en 2 mensualidades.", [("11.8", "%"), ("2", None)]),
        ("Les travaux coûtent 12,5 M€.", [("1.25E+7", "cur:euro")]),
        ("Годовой абонемент стоит 36 тыс. руб.", [("3.6E+4", "cur:rouble")]),
        (
            "Курс включает двенадцать занятий по девяноста минут.",
            [("12", None), ("90", "time:minute")],
        ),
        ("员工每年可享受十五天带薪年假。", [("15", "time:day")]),
        ("首笔订单金额为3,000万元。", [("30000000", "cur:yuan")]),
        ("景区门票每张￥120。", [("120", "cur:yuan")]),
        ("昨年度の売上高は2億5000万円でした。", [("250000000", "cur:yen")]),
        ("成人每次服用2片，每日3次。", [("2", "count:tablets"), ("3", "count:times")]),
        ("It costs ¥3,000 and 1,234.5 kg.", [("3000", "cur:yen"), ("1234.5", "mass:kg")]),
    ],
)
def test_numbers_by_the_language_of_their_text(
    text: str, values: list[tuple[str, str | None]]
) -> None:
    assert [(str(q.value), q.unit) for q in read(text).numbers] == [
        (str(Decimal(value)), unit) for value, unit in values
    ]


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        (
            "Der Vertrag wurde am 3. Mai 2019 unterzeichnet; Frist 15.07.2024.",
            [(2019, 5, 3), (2024, 7, 15)],
        ),
        ("Le contrat a été signé le 1er mai 2019.", [(2019, 5, 1)]),
        ("El contrato se firmó el 3 de mayo de 2019.", [(2019, 5, 3)]),
        ("Договор подписан двадцать пятого мая 2019 г.", [(2019, 5, 25)]),
        ("合同于二〇一九年五月三日签署。", [(2019, 5, 3)]),
        ("Le festival a lieu du 4 au 7 juillet 2025.", [(2025, 7, 4), (2025, 7, 7)]),
        ("El presupuesto es de 1500 millones de euros.", []),
    ],
)
def test_dates_by_the_language_of_their_text(text: str, dates: list[tuple[int, int, int]]) -> None:
    assert [(d.year, d.month, d.day) for d in read(text).dates if d.day] == dates


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("Die Sitzung dauert von 17 bis 19 Uhr.", [1020, 1140]),
        ("La réunion commence à 8 h 30 et finit à 14 heures.", [510, 840]),
        ("Il treno parte alle 18.05.", [1085]),
        ("会议下午3点半开始。", [930]),
        ("We open from 9:00 to 20:00.", [540, 1200]),  # a 24-hour text: 9:00 is the morning
        ("Zondags open tot half vijf 's middags.", [990]),
    ],
)
def test_times_by_the_language_of_their_text(text: str, minutes: list[int]) -> None:
    found = [sorted(t.minutes) for t in read(text).times]
    assert found == [[m] for m in minutes]


def test_a_duration_is_not_a_clock_time() -> None:
    assert read("A dose é de 500 mg a cada 12 horas.").times == ()


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Der Vertrag wurde am 3. Mai 2019 unterzeichnet [S1].", 1),
        ("Das Modell kostet 1.399,00 € inkl. MwSt. [S1] Der Versand ist kostenlos [S1].", 2),
        ("Eine Ladung reicht z. B. für ca. 40 Min. Rasenmähen [S1].", 1),
        ("По п. 4.2 договора штраф равен 0,1 процента [S1].", 1),
        ("¡Claro! La cuota asciende a 49,90 € [S1].", 2),
        ("新模型9月20日发售。价格为4万9800日元。", 2),
    ],
)
def test_sentences_split_by_the_language_of_their_text(text: str, count: int) -> None:
    assert len(split_sentences(text, strict=False)) == count


def test_a_russian_text_keeps_its_letters_and_a_disguised_latin_word_does_not() -> None:
    assert normalise("Выручка выросла") == "Выручка выросла"
    assert normalise("The drug was n\u043et approved") == "The drug was not approved"
    assert normalise("\u041e\u0420\u0414-88213") == "OPД-88213"  # a code: read as Latin
