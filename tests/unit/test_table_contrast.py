"""stud-table's colours meet WCAG 2.1 AA (4.5:1 for text), computed from table.css itself:
each text colour against what it is drawn on (a seat's translucent shade over the lightest
part of the felt, a panel, the page), an ``opacity`` blended in where a rule sets one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from studclients.table import web

CSS = (web.STATIC / "table.css").read_text()
AA = 4.5
Colour = tuple[float, float, float, float]


def rules(css: str) -> dict[str, dict[str, str]]:
    """selector -> declarations (later rules override; @media blocks flattened in)."""
    found: dict[str, dict[str, str]] = {}
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        declarations = dict(
            (name.strip(), value.strip())
            for name, _, value in (d.partition(":") for d in body.split(";") if ":" in d)
        )
        for selector in selectors.split(","):
            found.setdefault(" ".join(selector.split()), {}).update(declarations)
    return found


RULES = rules(CSS)


def colour(text: str) -> Colour:
    """#rgb, #rrggbb, rgba(), var(--x) (from :root) -> (r, g, b, alpha) in 0..1."""
    text = text.strip()
    if text.startswith("var("):
        return colour(RULES[":root"][text[4:-1].strip()].split("/*")[0])
    if text.startswith("#"):
        digits = text[1:] if len(text) == 7 else "".join(c * 2 for c in text[1:])
        r, g, b = (int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4))
        return r, g, b, 1.0
    if text.startswith("rgba("):
        r, g, b, a = (float(v) for v in text[5:-1].split(","))
        return r / 255, g / 255, b / 255, a
    raise ValueError(text)


def over(top: Colour, under: Colour, opacity: float = 1.0) -> Colour:
    alpha = top[3] * opacity
    r, g, b = (top[i] * alpha + under[i] * (1 - alpha) for i in range(3))
    return r, g, b, 1.0


def luminance(c: Colour) -> float:
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2])


def ratio(a: Colour, b: Colour) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def prop(selector: str, name: str, default: str | None = None) -> str:
    value = RULES.get(selector, {}).get(name, default)
    assert value is not None, f"{selector} has no {name}"
    return value.split(";")[0]


PAGE = colour(prop(":root", "background"))
WHITE = colour("#fff")
#: the felt's lightest colour (its radial gradient's centre) and a seat's shade over it
FELT = colour(re.findall(r"#[0-9a-fA-F]{6}", prop(".felt", "background"))[0])
SEAT = over(colour(prop(".seat", "background")), FELT)


def seat_text(selector: str) -> tuple[Colour, Colour]:
    """A seat's text and background, with the rule's opacity blended over the felt."""
    opacity = float(prop(selector, "opacity", "1"))
    text = colour(prop(selector, "color", prop(".felt", "color")))
    return over(text, SEAT, opacity), over(SEAT, FELT, opacity)


CASES = {
    "a move button": (colour(prop("button", "color")), colour(prop("button", "background"))),
    "the Fold button": (
        colour(prop("button", "color")),
        colour(prop('button[data-action="fold"]', "background")),
    ),
    "a control button": (
        colour(prop(".controls button", "color")),
        colour(prop(".controls button", "background")),
    ),
    "a seat": seat_text(".seat"),
    "a folded seat": seat_text(".seat.folded"),
    "an empty seat": seat_text(".seat.empty"),
    "a seat's status": (colour(prop(".status", "color")), SEAT),
    "the page's info": (colour(prop(".info", "color")), PAGE),
    "info on a panel": (colour(prop(".info", "color")), WHITE),
    "an error": (colour(prop(".error", "color")), WHITE),
    "the live badge": (
        colour(prop(".connection.live", "color")),
        colour(prop(".bar", "background")),
    ),
    "the notice": (colour(prop(".notice", "color")), colour(prop(".notice", "background"))),
    "a card": (colour(prop(":root", "--ink")), colour(prop(":root", "--paper"))),
    "a red card": (colour(prop(":root", "--red")), colour(prop(":root", "--paper"))),
    "your down card": (colour(prop(":root", "--ink")), colour(prop(".card.down", "background"))),
}


@pytest.mark.parametrize("what", list(CASES))
def test_text_meets_wcag_aa_contrast(what: str) -> None:
    text, background = CASES[what]
    assert ratio(text, background) >= AA, f"{what}: {ratio(text, background):.2f}:1"


def test_the_contrast_calculation_matches_wcag_figures() -> None:
    assert ratio(colour("#000"), colour("#fff")) == pytest.approx(21.0)
    assert ratio(colour("#1c7ed6"), WHITE) == pytest.approx(4.2, abs=0.05)  # the old buttons
    assert ratio(WHITE, colour("#868e96")) == pytest.approx(3.3, abs=0.05)  # the old Fold
    folded = over(WHITE, SEAT, 0.55), over(SEAT, FELT, 0.55)  # the old folded seat
    assert ratio(*folded) < AA
    assert Path(web.STATIC / "table.css").exists()
