"""Page template, style sheet and script of the HTML report.

Everything is inlined so a report opens offline; the page's Content-Security-Policy admits
only this style sheet and this script (by hash), so no injected markup can run or load.
"""

from __future__ import annotations

from dataclasses import dataclass

# Body text colour; every tint below is checked against it for WCAG AA in the unit tests.
TEXT_COLOUR = "#1b1b1f"
BADGE_TEXT_COLOUR = "#ffffff"


@dataclass(frozen=True)
class Tone:
    """Colours of one verdict tone: a strong colour for badges and underlines (white text on
    it) and a light tint behind highlighted text (body text on it)."""

    strong: str
    tint: str


TONES: dict[str, Tone] = {
    "ok": Tone(strong="#1e6b2e", tint="#dcf1e1"),
    "fail": Tone(strong="#b3261e", tint="#fbe1df"),
    "mismatch": Tone(strong="#8f4700", tint="#fde8d0"),
    "review": Tone(strong="#6b5500", tint="#fbf1c4"),
    "neutral": Tone(strong="#55595f", tint="#eceef1"),
    "error": Tone(strong="#6a1b9a", tint="#f0e2f7"),
}

_BASE_STYLE = """
:root { color-scheme: light; --fg: %(text)s; --muted: #4a4f57; --bg: #ffffff;
  --panel: #f6f7f9; --rule: #c9ced6; --focus: #0b57d0; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans",
  sans-serif; }
header.top { padding: 1rem 1.5rem; border-bottom: 1px solid var(--rule); }
h1 { font-size: 1.35rem; margin: 0; }
h2 { font-size: 1.15rem; margin: .25rem 0; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
h4 { font-size: .95rem; margin: .75rem 0 .3rem; }
main { padding: 1rem 1.5rem 3rem; max-width: 1400px; margin: 0 auto; }
.record + .record { border-top: 2px solid var(--rule); margin-top: 2rem; padding-top: 1rem; }
.banner { border-left: .5rem solid var(--strong); background: var(--tint);
  padding: .6rem 1rem; border-radius: .25rem; margin: .5rem 0 1rem; }
.banner .action { font-size: 1.5rem; font-weight: 700; letter-spacing: .04em; margin: 0; }
.banner p, .banner ul { margin: .25rem 0; }
.layout { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1.5rem;
  align-items: start; }
@media (max-width: 900px) {
  .layout { grid-template-columns: minmax(0, 1fr); }
  .panel { position: static; max-height: none; }
}
.question { font-style: italic; margin: 0; }
.answer { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 1.05rem; line-height: 2.1;
  margin: 0; }
.hl { background: var(--tint); border-bottom: 2px solid var(--strong); cursor: pointer;
  padding: .15em 0; }
.keep { white-space: nowrap; }
.hl.overlap { border-bottom: 4px double var(--strong); }
/* Only horizontal rules mark the selection: a claim cut into pieces shows no seams. */
.hl.selected { border-bottom: 3px solid var(--focus); box-shadow: 0 -2px 0 var(--focus); }
.badge { font: inherit; font-size: .8rem; font-weight: 600; line-height: 1.4;
  color: %(badge_text)s; background: var(--strong); border: 0; border-radius: 1em;
  padding: .05em .6em; margin: 0 .25em 0 .35em; cursor: pointer; white-space: nowrap;
  vertical-align: .1em; }
.badge[aria-expanded="true"] { box-shadow: 0 0 0 2px var(--bg), 0 0 0 4px var(--focus); }
.chip { display: inline-block; font-size: .8rem; font-weight: 600; color: %(badge_text)s;
  background: var(--strong); border-radius: 1em; padding: .05em .6em; white-space: nowrap; }
button:focus-visible, [tabindex]:focus-visible, a:focus-visible {
  outline: 3px solid var(--focus); outline-offset: 2px; }
.claims { list-style: none; padding: 0; margin: 0; }
.claims li { margin: .35rem 0; }
.claims .badge { margin-left: 0; }
.badge-id { font-weight: 400; }
.panel { position: sticky; top: 1rem; max-height: calc(100vh - 2rem); overflow: auto;
  background: var(--panel); border: 1px solid var(--rule); border-radius: .4rem;
  padding: .5rem 1rem 1rem; }
.panel-head { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
.panel-head h3 { margin: .5rem 0; }
.close { font: inherit; background: var(--bg); color: var(--fg); border: 1px solid var(--rule);
  border-radius: .3rem; padding: .1rem .6rem; cursor: pointer; }
.hint { color: var(--muted); margin: .25rem 0; }
.muted { color: var(--muted); }
.card + .card { border-top: 1px solid var(--rule); margin-top: 1rem; }
.card blockquote { margin: .4rem 0; padding-left: .75rem; border-left: 3px solid var(--rule); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem;
  margin: .4rem 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.reason { margin: .4rem 0; }
.checks { padding-left: 1.1rem; margin: .3rem 0; }
.checks code, .meta code { font-size: .9em; overflow-wrap: anywhere; }
.passage { margin: .5rem 0 1rem; }
.passage figcaption { font-size: .9rem; margin-bottom: .25rem; }
.passage-text { white-space: pre-wrap; background: var(--bg); border: 1px solid var(--rule);
  border-radius: .25rem; padding: .5rem .75rem; max-height: 18rem; overflow: auto; margin: 0;
  overflow-wrap: anywhere; }
mark { color: var(--fg); background: var(--tint); border-bottom: 2px solid var(--strong);
  padding: .1em 0; }
mark.overlap { border-bottom: 4px double var(--strong); }
mark.edge { box-shadow: inset 2px 0 0 var(--strong); }
.notes { color: var(--muted); font-size: .9rem; padding-left: 1.1rem; margin: .3rem 0; }
.meta { color: var(--muted); font-size: .85rem; margin-top: 1.5rem; }
.index { border-collapse: collapse; margin: .5rem 0 1.5rem; }
.index th, .index td { text-align: left; padding: .3rem .75rem; vertical-align: top;
  border-bottom: 1px solid var(--rule); }
a { color: var(--focus); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
"""


def style_sheet() -> str:
    """The report's CSS: the base sheet and one rule per tone setting its colour variables."""
    tones = "".join(
        f".t-{name} {{ --strong: {tone.strong}; --tint: {tone.tint}; }}\n"
        for name, tone in TONES.items()
    )
    return _BASE_STYLE % {"text": TEXT_COLOUR, "badge_text": BADGE_TEXT_COLOUR} + tones


# Builds the evidence panel from the JSON data block with DOM calls only (never innerHTML),
# so passage and answer text can only ever become text nodes.
SCRIPT = """
(() => {
  "use strict";
  const DATA = JSON.parse(document.getElementById("report-data").textContent);
  let lastTrigger = null;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function chip(icon, text, tone) {
    const node = el("span", "chip t-" + tone);
    const mark = el("span", null, icon);
    mark.setAttribute("aria-hidden", "true");
    node.append(mark, " " + text);
    return node;
  }

  function passageFigure(ev, claim) {
    const fig = el("figure", "passage");
    const cap = el("figcaption");
    cap.append(el("strong", null, ev.passageId));
    if (ev.source) cap.append(" \\u00b7 " + ev.source);
    if (ev.spans.length) {
      const where = ev.spans.map((s) => "[" + s[0] + ":" + s[1] + "]").join(", ");
      cap.append(" \\u00b7 " + claim.role + " " + where);
    } else if (ev.found) {
      cap.append(" \\u00b7 cited; no span located");
    }
    fig.append(cap);
    if (ev.found) {
      const body = el("p", "passage-text");
      body.tabIndex = 0;
      body.setAttribute("aria-label", "Passage " + ev.passageId);
      for (const seg of ev.segments) {
        if (!seg.spans.length) {
          body.append(seg.text);
          continue;
        }
        let cls = "t-" + claim.tone;
        if (seg.spans.length > 1) cls += " overlap";
        if (seg.edge) cls += " edge";
        const mark = el("mark", cls, seg.text);
        mark.dataset.spans = seg.spans.join(" ");
        body.append(mark);
      }
      fig.append(body);
    }
    if (ev.notes.length) {
      const notes = el("ul", "notes");
      for (const note of ev.notes) notes.append(el("li", null, note));
      fig.append(notes);
    }
    return fig;
  }

  function checkItem(check) {
    const item = el("li");
    item.append(chip(check.icon, check.status, check.tone), " ", el("code", null, check.check));
    let text = "";
    if (check.label) text += " \\u2014 " + check.label;
    if (check.detail) text += ": " + check.detail;
    if (text) item.append(text);
    if (check.missing.length) {
      item.append(" (not in the evidence: ");
      check.missing.forEach((token, k) => {
        if (k) item.append(", ");
        item.append(el("code", null, token));
      });
      item.append(")");
    }
    if (check.span) item.append(" \u2014 at " + check.span);
    if (check.derivations.length) {
      const computed = el("ul", "derivations");
      check.derivations.forEach((derivation) => {
        const line = el("li");
        line.append("computed: ", el("code", null, derivation));
        computed.append(line);
      });
      item.append(computed);
    }
    return item;
  }

  function claimCard(claim) {
    const card = el("article", "card");
    card.dataset.claimId = claim.id;
    const head = el("h4");
    head.append(chip(claim.icon, claim.labelText, claim.tone), " Claim " + claim.id);
    card.append(head, el("blockquote", "claim-text", claim.text));
    const facts = el("dl", "facts");
    const fact = (name, value) => {
      if (value === null || value === undefined || value === "") return;
      facts.append(el("dt", null, name), el("dd", null, value));
    };
    fact("Score (supported)", claim.score);
    fact("P(contradicted)", claim.contradictionScore);
    fact("First-tier score", claim.firstTierScore);
    fact("Origin", claim.origin);
    fact("Judge", claim.judge);
    fact("Cites", claim.citations.join(", "));
    card.append(facts);
    if (claim.reason) {
      const reason = el("p", "reason");
      reason.append(el("strong", null, "Reason: "), claim.reason);
      card.append(reason);
    }
    if (claim.error) {
      const error = el("p", "reason");
      error.append(el("strong", null, "Error: "), claim.error);
      card.append(error);
    }
    card.append(el("h4", null, "Checks"));
    if (claim.checks.length) {
      const list = el("ul", "checks");
      for (const check of claim.checks) list.append(checkItem(check));
      card.append(list);
    } else {
      card.append(el("p", "muted", "No exact check ran on this claim."));
    }
    card.append(el("h4", null, "Evidence"));
    if (claim.evidence.length) {
      for (const ev of claim.evidence) card.append(passageFigure(ev, claim));
    } else {
      card.append(el("p", "muted", "No passage cited or located for this claim."));
    }
    return card;
  }

  function scrollMarksIntoView(body) {
    for (const box of body.querySelectorAll(".passage-text")) {
      const mark = box.querySelector("mark");
      if (mark) box.scrollTop = Math.max(0, mark.offsetTop - box.offsetTop - 24);
    }
  }

  function show(section, indices, trigger) {
    const record = DATA.records[section.dataset.record];
    const panel = section.querySelector(".panel");
    const body = panel.querySelector(".panel-body");
    const claims = indices.map((i) => record.claims[i]);
    body.replaceChildren(...claims.map(claimCard));
    body.hidden = false;
    panel.querySelector(".hint").hidden = true;
    panel.querySelector(".close").hidden = false;
    for (const badge of section.querySelectorAll("[data-claim]")) {
      badge.setAttribute("aria-expanded", String(indices.includes(Number(badge.dataset.claim))));
    }
    for (const span of section.querySelectorAll(".hl")) {
      const own = span.dataset.claims.split(" ").map(Number);
      span.classList.toggle("selected", own.some((i) => indices.includes(i)));
    }
    panel.querySelector("[role=status]").textContent = claims
      .map((c) => "Claim " + c.id + ": " + c.labelText)
      .join("; ");
    scrollMarksIntoView(body);
    const top = panel.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight - 80) panel.scrollIntoView({ block: "start" });
    lastTrigger = trigger;
  }

  function close(section) {
    const panel = section.querySelector(".panel");
    panel.querySelector(".panel-body").hidden = true;
    panel.querySelector(".panel-body").replaceChildren();
    panel.querySelector(".hint").hidden = false;
    panel.querySelector(".close").hidden = true;
    panel.querySelector("[role=status]").textContent = "";
    for (const badge of section.querySelectorAll("[data-claim]")) {
      badge.setAttribute("aria-expanded", "false");
    }
    for (const span of section.querySelectorAll(".hl.selected")) span.classList.remove("selected");
    if (lastTrigger && section.contains(lastTrigger) && lastTrigger.focus) lastTrigger.focus();
    lastTrigger = null;
  }

  document.addEventListener("click", (event) => {
    const target = event.target.closest("[data-claim], .hl, .close");
    if (!target) return;
    const section = target.closest("[data-record]");
    if (!section) return;
    if (target.classList.contains("close")) {
      close(section);
      return;
    }
    const ids = target.dataset.claim !== undefined ? target.dataset.claim : target.dataset.claims;
    show(section, ids.split(" ").map(Number), target);
  });

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !lastTrigger) return;
    const section = lastTrigger.closest("[data-record]");
    if (section) close(section);
  });
})();
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="referrer" content="no-referrer">
<title>{{ title }}</title>
<style>{{ style }}</style>
</head>
<body>
<header class="top"><h1>{{ title }}</h1></header>
<main>
{% if metrics %}
<section class="metrics" aria-labelledby="metrics-title">
<h2 id="metrics-title">Accuracy against the gold labels</h2>
{% for table in metrics %}
<table class="index">
<caption>{{ table.title }}</caption>
<thead><tr>{% for h in table.headers %}<th scope="col">{{ h }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in table.rows %}
<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}
</tbody>
</table>
{% endfor %}
</section>
{% endif %}
{% if index %}
<nav aria-labelledby="index-title">
<h2 id="index-title">Records</h2>
<table class="index">
<thead><tr><th scope="col">#</th><th scope="col">Request</th><th scope="col">Action</th>
<th scope="col">Claims</th>{% if graded %}<th scope="col">Gold</th><th scope="col">Predicted</th>
{% endif %}<th scope="col">First reason</th></tr></thead>
<tbody>
{% for r in records %}
<tr>
<td>{{ loop.index }}</td>
<td><a href="#{{ r.anchor }}">{{ r.request_id }}</a></td>
<td><span class="chip t-{{ r.action.tone }}">
<span aria-hidden="true">{{ r.action.icon }}</span> {{ r.action.text }}</span></td>
<td>{{ r.failing }} failing of {{ r.total }}</td>
{% if graded %}<td>{{ r.grade.gold if r.grade else "" }}</td>
<td>{% if r.grade %}<span class="chip t-{{ r.grade.marker.tone }}">
<span aria-hidden="true">{{ r.grade.marker.icon }}</span> {{ r.grade.predicted }}</span>
{% endif %}</td>
{% endif %}<td>{{ r.reasons[0] if r.reasons else "" }}</td>
</tr>
{% endfor %}
</tbody>
</table>
</nav>
{% if not records %}
<p class="muted">No records.</p>
{% endif %}
{% endif %}
{% for r in records %}
<section class="record" id="{{ r.anchor }}" data-record="{{ r.anchor }}"
 aria-labelledby="{{ r.anchor }}-title">
<h2 id="{{ r.anchor }}-title">{{ r.heading }}</h2>
<section class="banner t-{{ r.action.tone }}" aria-label="Outcome">
<p class="action"><span aria-hidden="true">{{ r.action.icon }}</span> {{ r.action.text }}</p>
<p>{{ r.summary }}</p>
{% if r.grade %}
<p class="grade">gold label <strong>{{ r.grade.gold }}</strong> · predicted
<strong>{{ r.grade.predicted }}</strong> ·
<span aria-hidden="true">{{ r.grade.marker.icon }}</span> {{ r.grade.marker.text }}</p>
{% endif %}
{% if r.reasons %}
<ul class="reasons">
{% for reason in r.reasons %}<li>{{ reason }}</li>
{% endfor %}
</ul>
{% endif %}
</section>
<div class="layout">
<div class="main-col">
{% if r.question %}
<h3>Question</h3>
<p class="question">{{ r.question }}</p>
{% endif %}
{% if r.answer_html is not none %}
<h3>Answer</h3>
<p class="answer">{{ r.answer_html }}</p>
{% endif %}
{% if r.spanless %}
<h3>{{ r.spanless_title }}</h3>
<ul class="claims">
{% for item in r.spanless %}
<li>{{ item.badge }} <span class="claim-text">{{ item.text }}</span></li>
{% endfor %}
</ul>
{% endif %}
{% if r.gaps %}
<h3>Not covered by any claim</h3>
<ul class="notes">
{% for gap in r.gaps %}<li>{{ gap }}</li>
{% endfor %}
</ul>
{% endif %}
{% if r.repaired_answer is not none %}
<h3>Repaired answer</h3>
<p class="answer">{{ r.repaired_answer }}</p>
{% endif %}
<p class="meta">request <code>{{ r.request_id }}</code> · ledger <code>{{ r.ledger_hash }}</code>
· judge calls {{ r.judge_calls }} · {{ r.seconds }}</p>
</div>
<aside class="panel" id="{{ r.anchor }}-panel" aria-labelledby="{{ r.anchor }}-panel-title">
<div class="panel-head">
<h3 id="{{ r.anchor }}-panel-title">Evidence</h3>
<button type="button" class="close" hidden aria-label="Close the evidence panel">Close</button>
</div>
<p class="hint">Select a highlighted claim or its verdict label to see the passages it was
checked against.</p>
<p class="sr" role="status"></p>
<div class="panel-body" hidden></div>
</aside>
</div>
</section>
{% endfor %}
</main>
<script type="application/json" id="report-data">{{ data_json }}</script>
<script>{{ script }}</script>
</body>
</html>
"""
