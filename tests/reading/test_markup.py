"""Markup that a Markdown or HTML renderer hides or strikes out is found; markup that shows
every word is not."""

from __future__ import annotations

import pytest

from judge.reading import lexicon
from judge.reading.markup import hidden_markup


@pytest.mark.parametrize(
    ("text", "kind", "markup"),
    [
        ("Fees are <del>not</del> refunded.", "an HTML element", "<del>"),
        ("Fees are <s>not</s> refunded.", "an HTML element", "<s>"),
        ("Fees are <!-- not --> refunded.", "an HTML comment", "<!--"),
        ("Fees are ~~not~~ refunded.", "strikethrough", "~~not~~"),
        ("Fees are ~not~ refunded.", "strikethrough", "~not~"),
        ("Fees are refunded. <!-- and the rest is hidden", "an HTML comment", "<!--"),
        (
            "Fees are n\u0336o\u0336t\u0336 refunded.",
            "struck-through characters",
            "n\u0336o\u0336t\u0336",
        ),
        ("Fees are <span hidden>not</span> refunded.", "an HTML element", "<span hidden>"),
        ('Fees are <b style="display:none">not</b> refunded.', "an HTML element", "<b style"),
        ('Fees are <i class="sr-only">not</i> refunded.', "an HTML element", "<i class"),
        ("Fees are <span\nhidden>not</span> refunded.", "an HTML element", "<span\nhidden"),
        ("Fees are n&#111;t refunded.", "a character reference", "&#111;"),
        ("Fees are n&#x6f;t refunded.", "a character reference", "&#x6f;"),
        ("Fees are refunded&ZeroWidthSpace;.", "a character reference", "&ZeroWidthSpace;"),
        ("Prices fell &minus;5%.", "a character reference", "&minus;"),
        ("Prices fell &#8722;5%.", "a character reference", "&#8722;"),
        ("Fees are &#0;refunded.", "a character reference", "&#0;"),
        ("![Fees are refunded](fees.png)", "image alt text", "!["),
        ("![Fees are refunded][fees]", "image alt text", "!["),
        ("Returns within <bdo dir='rtl'>03</bdo> days.", "an HTML element", "<bdo"),
        ("Returns within <span dir=rtl>03</span> days.", "an HTML element", "<span dir"),
        ('Fees are <font color="white">not</font> refunded.', "an HTML element", "<font"),
        ("Fees are refunded.\n[//]: # (they are not)", "a link definition", "[//]:"),
        ("Fees are refunded.\n[note]: <> (they are not)", "a link definition", "[note]:"),
        ('Fees.\n\n[1]: https://example.com "they are not"', "a link definition", "[1]:"),
        ("<details>Fees are not refunded.</details>", "an HTML element", "<details>"),
    ],
)
def test_markup_that_hides_text_is_found(text: str, kind: str, markup: str) -> None:
    found = hidden_markup(text)
    assert found and found[0].kind == kind
    assert found[0].text.startswith(markup)
    assert text[found[0].start : found[0].end] == found[0].text


@pytest.mark.parametrize(
    "text",
    [
        "Fees are **not** refunded, *ever*, as `policy` says.",
        "Fees are <b>not</b> refunded.<br>See <sup>1</sup> and <a href='https://x'>this</a>.",
        "See <a href='https://example.com/style-guide?class=hidden'>the guide</a>.",
        "| fee | refunded |\n|---|---|\n| shipping | no |",
        "Fees &amp; taxes&nbsp;are not refunded when x<y and y>z.",
        "See [the policy](https://example.com/policy) and note [^1].\n\n[^1]: Fees stay.",
        "See the policy [1].\n\n[1]: https://example.com/policy",
        "About 5 ~ 7 days.",
        "It takes ~5 to ~7 days; order --> ship --> deliver.",
        # Typography spelled as references, as scraped pages write it: no word is hidden.
        "Adults aged &#8805;60 years and &#x2264;18 years &ndash; the Irish&rsquo;s data&hellip;",
        "&copy; 2020 the &ldquo;Clinic&rdquo;&thinsp;&mdash; 5&#37; of cases",
    ],
)
def test_markup_that_shows_every_word_is_not(text: str) -> None:
    assert hidden_markup(text) == ()


def test_the_description_is_one_quoted_line() -> None:
    found = hidden_markup("a <span hidden\nstyle='x'>b</span>")[0]
    assert "\n" not in found.describe()
    assert found.describe() == "an HTML element \"<span hidden\\nstyle='x'>\" at 2-25"


@pytest.mark.parametrize(
    "element", sorted(lexicon.words("markup", "common", name="hiding_element"))
)
def test_every_listed_element_hides_its_content(element: str) -> None:
    found = hidden_markup(f"Fees are <{element}>not</{element}> refunded.")
    assert [item.text for item in found] == [f"<{element}>", f"</{element}>"]


@pytest.mark.parametrize(
    "attribute", sorted(lexicon.words("markup", "common", name="hiding_attribute"))
)
def test_every_listed_attribute_hides_any_element(attribute: str) -> None:
    assert hidden_markup(f"Fees are <span {attribute}='x'>not</span> refunded.")
    assert hidden_markup(f"Fees are <span {attribute}>not</span> refunded.")
    # By name only: inside a value, or as part of another name, it hides nothing.
    assert hidden_markup(f"See <a href='/{attribute}'>the guide</a>.") == ()
    assert hidden_markup(f"See <a data-{attribute}='1'>the guide</a>.") == ()


@pytest.mark.parametrize("entity", sorted(lexicon.words("markup", "common", name="plain_entity")))
def test_a_plain_entity_hides_nothing(entity: str) -> None:
    assert hidden_markup(f"Fees &{entity}; taxes are refunded.") == ()
