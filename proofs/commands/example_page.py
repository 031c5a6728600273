"""The worked example as one self-contained interactive HTML page.

Three controls (the rescaling c on a logarithmic slider, the perturbation δ, the probe x, each with
a box for an exact value) drive live readouts and a plot.  Every formula the page evaluates is
printed by sympy's JavaScript printer from the closed forms that ``worked_derive()``
derived and ``worked_example.run()`` checks; none is typed here, so the page and the proof cannot
drift apart.  The page loads nothing: its style and script are inline, the plot is SVG drawn by the
script.

    python -m proofs example --html page.html
"""
from __future__ import annotations

import html
import json
from fractions import Fraction

import sympy as sp

from symbolic.decision.regions import describe

from proofs.worked_example import TITLE
from proofs.commands.example_readings import data_and_loss, describe_closure, is_dead_branch
from symbolic.networks.worked_example import Derived, c, delta, derive, loss, network, x

# the readouts, in the order shown: element id (also the key of example_readings.exact_readings)
# and its label
READOUTS = {
    "prediction": "f(x) at the probe",
    "relu": "max(x, 0)",
    "loss_at_optimum": "L(c, 1/c), the loss at the optimum",
    "first_weight_loss": "L(c + δ, 1/c), first weight perturbed",
    "second_weight_loss": "L(c, 1/c + δ), second weight perturbed",
    "hessian_00": "H₁₁", "hessian_01": "H₁₂", "hessian_10": "H₂₁", "hessian_11": "H₂₂",
    "eigenvalue_0": "λ₁", "eigenvalue_1": "λ₂",
    "trace": "tr H",
    "spectral_norm": "‖H‖₂, the spectral norm",
}


def _javascript(expression: sp.Expr, parameters: tuple[sp.Symbol, ...]) -> str:
    """``function (c, delta, x) { return ...; }`` printed by sympy's JavaScript printer.  The form
    is expanded first (5c²/2 + 5/(2c²) rather than 5(c⁴ + 1)/(2c²)), so that in floating point no
    intermediate power overflows long before the value does."""
    expression = sp.expand(sp.sympify(expression))
    stray = expression.free_symbols - set(parameters)
    if stray:
        raise ValueError(f"{expression} depends on {stray} beyond {parameters}")
    return "function (c, delta, x) { return %s; }" % sp.jscode(expression)


def formulas(derived: Derived) -> dict[str, str]:
    """Each readout as a JavaScript function of (c, delta, x), from the derived closed forms."""
    parameters = (c, delta, x)
    eigenvalues = [value for value, multiplicity, _ in derived.eigenpairs for _ in range(multiplicity)]
    closed_forms = {
        "prediction": network(c, 1 / c, x),
        "relu": sp.Max(x, 0),
        "loss_at_optimum": loss(c, 1 / c),
        "second_weight_loss": derived.second_weight_loss,
        **{f"hessian_{i}{j}": derived.hessian[i, j] for i in range(2) for j in range(2)},
        **{f"eigenvalue_{k}": value for k, value in enumerate(eigenvalues)},
        "trace": derived.trace,
        "spectral_norm": derived.spectral_norm,
    }
    return {name: _javascript(expression, parameters) for name, expression in closed_forms.items()}


def branches(derived: Derived) -> str:
    """The branches of L(c + δ, 1/c) as JavaScript objects: open region, its closure (the loss is
    continuous, so on the kink c + δ = 0 a closure's formula gives the value), the formula, and
    whether it is the dead-ReLU branch (its value is the loss of f ≡ 0)."""
    parameters = (c, delta, x)
    entries = []
    for region, value in derived.first_weight_branches:
        strict = " && ".join(f"({sp.jscode(e)}) > 0" for e in region) or "true"
        closed = " && ".join(f"({sp.jscode(e)}) >= 0" for e in region) or "true"
        entries.append(
            "{region: %s, closure: %s, dead: %s, formula: %s,\n"
            "   open: function (c, delta) { return %s; },\n"
            "   closed: function (c, delta) { return %s; },\n"
            "   loss: %s}" % (json.dumps(describe(region).replace("delta", "δ")),
                              json.dumps(describe_closure(region).replace("delta", "δ")
                                         .replace(">=", "≥")),
                              json.dumps(is_dead_branch(value)), json.dumps(str(value)),
                              strict, closed, _javascript(value, parameters)))
    return "[\n  " + ",\n  ".join(entries) + "\n]"


def closed_form_texts(derived: Derived) -> dict[str, str]:
    """The closed forms as text, shown beside the readouts they produce."""
    eigenvalues = [value for value, multiplicity, _ in derived.eigenpairs for _ in range(multiplicity)]
    texts = {f"hessian_{i}{j}": derived.hessian[i, j] for i in range(2) for j in range(2)}
    texts.update({f"eigenvalue_{k}": value for k, value in enumerate(eigenvalues)})
    texts.update({"trace": derived.trace, "spectral_norm": derived.spectral_norm,
                  "second_weight_loss": derived.second_weight_loss,
                  "loss_at_optimum": loss(c, 1 / c), "prediction": network(c, 1 / c, x),
                  "relu": sp.Max(x, 0)})
    return {name: str(value).replace("delta", "δ") for name, value in texts.items()}


def box_text(value: Fraction) -> str:
    """A setting as the page's box shows it, exactly: 2, -0.3, 1/3, 1e400."""
    value = Fraction(value)
    if value.denominator == 1:
        digits = str(abs(value.numerator))
        zeros = len(digits) - len(digits.rstrip("0"))
        if zeros > 6:          # 1e400 rather than four hundred zeros
            return f"{'-' if value < 0 else ''}{digits.rstrip('0')}e{zeros}"
        return str(value.numerator)
    # a denominator 2^a 5^b: a terminating decimal, printed in full
    rest = value.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest == 1:
        places = 0
        while (value * 10 ** places).denominator != 1:
            places += 1
        if places <= 30:
            scaled = abs(value.numerator * 10 ** places // value.denominator)
            whole, fraction = divmod(scaled, 10 ** places)
            return f"{'-' if value < 0 else ''}{whole}.{fraction:0{places}d}"
    return str(value)


DEFAULT_SETTINGS = (Fraction(1), Fraction(1, 10), Fraction(3, 2))


def page(derived: Derived, settings: tuple = DEFAULT_SETTINGS) -> str:
    """The page, opening at ``settings`` = (c, δ, x)."""
    data, loss_text = data_and_loss()
    texts = closed_form_texts(derived)
    rows = "\n".join(
        f'<tr><th>{html.escape(label)}</th><td class="value" id="{name}"></td>'
        f'<td class="form">{html.escape(texts.get(name, ""))}'
        + ('<span id="branch"></span>' if name == "first_weight_loss" else "") + "</td></tr>"
        for name, label in READOUTS.items())
    script = (_SCRIPT.replace("/*FORMULAS*/", "{\n" + ",\n".join(
        f"  {json.dumps(name)}: {code}" for name, code in formulas(derived).items()) + "\n}")
        .replace("/*BRANCHES*/", branches(derived)))
    return (_PAGE.replace("<!--TITLE-->", html.escape(TITLE))
            .replace("<!--DATA-->", html.escape(data))
            .replace("<!--LOSS-->", html.escape(loss_text))
            .replace("<!--ROWS-->", rows)
            .replace("<!--C-->", html.escape(box_text(settings[0])))
            .replace("<!--DELTA-->", html.escape(box_text(settings[1])))
            .replace("<!--PROBE-->", html.escape(box_text(settings[2])))
            .replace("<!--SCRIPT-->", script))


def write_page(path: str, derived: Derived | None = None, settings: tuple = DEFAULT_SETTINGS) -> None:
    text = page(derived or derive(), settings)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>The worked example: ReLU rescaling and sharpness</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.2em; color: #222; max-width: 1400px; }
h1 { font-size: 1.3em; margin: 0 0 .3em 0; }
p.note { margin: .2em 0; color: #444; font-size: .92em; }
#controls { display: grid; grid-template-columns: 12em 22em 10em 1fr; gap: .4em 1em; align-items: center;
            margin: .8em 0; }
#controls input[type=text] { width: 9em; font-family: monospace; }
#controls .exact { font-family: monospace; color: #555; font-size: .9em; }
#layout { display: grid; grid-template-columns: minmax(0, 1fr) 570px; gap: 1.5em; align-items: start; }
table { border-collapse: collapse; font-size: .92em; }
th { text-align: left; font-weight: normal; padding: 2px 10px 2px 0; }
td.value { font-family: monospace; padding: 2px 10px; text-align: right; min-width: 9em; }
td.form { font-family: monospace; color: #666; font-size: .85em; }
#branch { color: #a33; display: block; }
#error { color: #b00; font-weight: bold; }
svg text { font-family: sans-serif; font-size: 11px; }
</style>
</head>
<body>
<h1><!--TITLE--></h1>
<p class="note">f(x) = b · max(0, a · x) at (a, b) = (c, 1/c). Training data: <span id="data"><!--DATA--></span>.
Loss: <span id="loss"><!--LOSS--></span>.</p>
<p class="note">Every formula evaluated on this page was printed from the closed forms the proof
script derived and checked (<code>python -m proofs worked_example</code>). The Hessian is that of the
optimum (c, 1/c).</p>
<div id="controls">
<label for="c-slider">Rescaling c (log scale)</label>
<input type="range" id="c-slider" min="-3" max="3" step="0.001" value="0">
<input type="text" id="c-input" spellcheck="false" value="<!--C-->" title="an exact value: 2, 0.1, 1/3, 1e-3">
<span class="exact" id="c-exact"></span>
<label for="delta-slider">Perturbation δ</label>
<input type="range" id="delta-slider" min="-3" max="3" step="0.01" value="0">
<input type="text" id="delta-input" spellcheck="false" value="<!--DELTA-->" title="an exact value: 0.1, -3/10">
<span class="exact" id="delta-exact"></span>
<label for="probe-slider">Probe input x</label>
<input type="range" id="probe-slider" min="-3" max="3" step="0.01" value="0">
<input type="text" id="probe-input" spellcheck="false" value="<!--PROBE-->" title="an exact value: 1.5, 7/3">
<span class="exact" id="probe-exact"></span>
</div>
<div id="error"></div>
<div id="layout">
<table>
<tr><th>c, (a, b)</th><td class="value" id="c-used"></td><td class="form" id="ab"></td></tr>
<!--ROWS-->
</table>
<div>
<svg id="plot" width="560" height="340" role="img" aria-label="sharpness against c"></svg><br>
<svg id="prediction-plot" width="560" height="130" role="img" aria-label="prediction against c"></svg>
</div>
</div>
<script>
<!--SCRIPT-->
</script>
</body>
</html>
"""

_SCRIPT = r"""
"use strict";
// generated from the derived closed forms by sympy's JavaScript printer
const FORMULAS = /*FORMULAS*/;
// L(c + delta, 1/c), one entry per branch of the sign split
const BRANCHES = /*BRANCHES*/;

function branchAt(c, delta) {
  for (const b of BRANCHES) { if (b.open(c, delta)) return b; }
  for (const b of BRANCHES) { if (b.closed(c, delta)) return b; }
  return null;
}
// the dead-ReLU branch if its closure holds (on the kink both branches give the same value)
function deadBranchAt(c, delta) {
  return BRANCHES.filter(function (b) { return b.dead && b.closed(c, delta); })[0] || null;
}
function firstWeightLoss(c, delta) { return branchAt(c, delta).loss(c, delta, 0); }

function show(v) {
  if (v === 0) return "0";
  if (!isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e-4 && a < 1e9) return String(Number(v.toPrecision(12)));
  return v.toExponential(11).replace(/\.?0+e/, "e");
}

const el = function (id) { return document.getElementById(id); };

// --- exact values: a box's text read as a fraction of BigInts, as Python's Fraction reads it ---
const MAX_EXPONENT = 100000;        // 1e400 is fine; a billion digits is not
function gcd(a, b) { a = a < 0n ? -a : a; while (b) { [a, b] = [b, a % b]; } return a; }
function rational(num, den) {
  if (den < 0n) { num = -num; den = -den; }
  const g = gcd(num, den) || 1n;
  return {num: num / g, den: den / g};
}
function parseExact(text) {
  const t = text.trim();
  let m = /^([+-]?\d+)\/(\d+)$/.exec(t);                                  // 1/3, -3/10
  if (m) return BigInt(m[2]) === 0n ? null : rational(BigInt(m[1]), BigInt(m[2]));
  m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);              // 0.1, 1e400, -2.5e-3
  if (!m || (m[2] + (m[3] || "")) === "" || Math.abs(Number(m[4] || 0)) > MAX_EXPONENT) return null;
  const places = (m[3] || "").length, exponent = Number(m[4] || 0) - places;
  let num = BigInt(m[2] + (m[3] || "")), den = 1n;
  if (exponent >= 0) num *= 10n ** BigInt(exponent); else den = 10n ** BigInt(-exponent);
  return rational(m[1] === "-" ? -num : num, den);
}
// the first `significant` digits of |r| (rounded) and the power of ten of the first
function digitsOf(r, significant) {
  const a = r.num < 0n ? -r.num : r.num, b = r.den;
  if (a === 0n) return {digits: "0", exponent: 0};
  let exponent = a.toString().length - b.toString().length;
  for (;;) {
    const k = significant - exponent;       // one digit more than asked, for the rounding
    const q = k >= 0 ? a * 10n ** BigInt(k) / b : a / (b * 10n ** BigInt(-k));
    if (q < 10n ** BigInt(significant)) { exponent -= 1; continue; }
    let rounded = (q + 5n) / 10n;
    if (rounded === 10n ** BigInt(significant)) { rounded /= 10n; exponent += 1; }
    return {digits: rounded.toString(), exponent: exponent};
  }
}
function decimal(r, significant) {
  const d = digitsOf(r, significant), sign = r.num < 0n ? "-" : "";
  if (d.digits === "0") return "0";
  if (d.exponent >= -4 && d.exponent < significant) {
    const text = d.exponent >= 0
        ? d.digits.slice(0, d.exponent + 1) + "." + d.digits.slice(d.exponent + 1)
        : "0." + "0".repeat(-d.exponent - 1) + d.digits;
    return sign + text.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");   // no trailing zeros
  }
  const rest = d.digits.slice(1).replace(/0+$/, "");
  return sign + d.digits[0] + (rest ? "." + rest : "") + "e" + d.exponent;
}
function toFloat(r) { return Number(decimal(r, 17)); }     // ±Infinity or 0 beyond the float range
// a value shown back exactly: as a decimal when 15 digits hold it (0.1, 1e400), else as the
// fraction with its decimal (1/3 ≈ 0.333333333333), or only approximately when the fraction is long
function exactText(r) {
  const short = decimal(r, 15), back = parseExact(short);
  if (back.num === r.num && back.den === r.den) return short;
  const fraction = r.den === 1n ? r.num.toString() : r.num + "/" + r.den;
  return fraction.length <= 32 ? fraction + " ≈ " + decimal(r, 12) : "≈ " + short;
}

const state = {};               // key -> {exact, value}: the exact setting and its float

function update() {
  for (const [name, key] of [["c", "c"], ["delta", "delta"], ["probe", "x"]]) {
    const s = state[key];
    el(name + "-exact").textContent = s.exact ? (exactText(s.exact).startsWith("≈") ? "" : "= ") + exactText(s.exact)
                                              : "not a number: write 2, 0.1, 1/3 or 1e-3";
  }
  const c = state.c.value, delta = state.delta.value, x = state.x.value;
  let problem = "";
  // the banner names only the settings that are wrong
  const wrong = [];
  if (!state.c.exact || state.c.exact.num <= 0n) wrong.push("c must be a positive number");
  if (!state.delta.exact) wrong.push("δ must be a number");
  if (!state.x.exact) wrong.push("x must be a number");
  if (wrong.length) problem = wrong.join("; ");
  else if (!isFinite(c) || !isFinite(delta) || !isFinite(x) || c === 0 ||
           (state.delta.exact.num !== 0n && delta === 0) || (state.x.exact.num !== 0n && x === 0)) {
    problem = "the settings are exact, but the readouts are computed in floating point, which ends " +
              "near 1.8e308 (and 5e-324): for exact readings run python -m proofs example --c " +
              el("c-input").value.trim() + " --perturbation " + el("delta-input").value.trim() +
              " --probe " + el("probe-input").value.trim();
  }
  if (problem) {
    el("error").textContent = problem;
    // no stale readings beside the message
    for (const name of Object.keys(FORMULAS).concat(["first_weight_loss", "c-used", "ab", "branch"])) {
      el(name).textContent = "—";
    }
    return;
  }
  el("error").textContent = "";
  el("c-used").textContent = exactText(state.c.exact);
  el("ab").textContent = "(a, b) = (" + exactText(state.c.exact) + ", " +
                         exactText(rational(state.c.exact.den, state.c.exact.num)) + ")";
  for (const name in FORMULAS) el(name).textContent = show(FORMULAS[name](c, delta, x));
  const branch = branchAt(c, delta), dead = deadBranchAt(c, delta);
  el("first_weight_loss").textContent = show(branch.loss(c, delta, x));
  el("branch").textContent = dead
      ? "dead ReLU, f ≡ 0 on the data: " + dead.closure + ", L = " + dead.formula.replace(/delta/g, "δ")
      : "branch " + branch.region + ": L = " + branch.formula.replace(/delta/g, "δ");
  drawPlots(c, delta, x);
}

// --- the plots (SVG, log axes) ---
const SVG = "http://www.w3.org/2000/svg";
function node(parent, tag, attributes, text) {
  const n = document.createElementNS(SVG, tag);
  for (const k in attributes) n.setAttribute(k, attributes[k]);
  if (text !== undefined) n.textContent = text;
  parent.appendChild(n);
  return n;
}
function frame(svg, left, top, width, height, xRange, yRange, yLog) {
  const sx = function (c) { return left + (Math.log10(c) - xRange[0]) / (xRange[1] - xRange[0]) * width; };
  const sy = function (v) {
    const t = yLog ? Math.log10(v) : v;
    return top + height - (t - yRange[0]) / (yRange[1] - yRange[0]) * height;
  };
  node(svg, "rect", {x: left, y: top, width: width, height: height, fill: "none", stroke: "#999"});
  for (let k = Math.ceil(xRange[0]); k <= xRange[1]; k++) {
    node(svg, "line", {x1: sx(Math.pow(10, k)), x2: sx(Math.pow(10, k)), y1: top, y2: top + height, stroke: "#eee"});
    node(svg, "text", {x: sx(Math.pow(10, k)), y: top + height + 16, "text-anchor": "middle"}, "1e" + k);
  }
  if (yLog) {
    const step = Math.max(1, Math.ceil((yRange[1] - yRange[0]) / 8));
    for (let k = Math.ceil(yRange[0]); k <= yRange[1]; k += step) {
      node(svg, "line", {x1: left, x2: left + width, y1: sy(Math.pow(10, k)), y2: sy(Math.pow(10, k)), stroke: "#eee"});
      node(svg, "text", {x: left - 4, y: sy(Math.pow(10, k)) + 4, "text-anchor": "end"}, "1e" + k);
    }
  } else {
    for (const v of [yRange[0], (yRange[0] + yRange[1]) / 2, yRange[1]]) {
      node(svg, "text", {x: left - 4, y: sy(v) + 4, "text-anchor": "end"}, show(Number(v.toPrecision(3))));
    }
  }
  return {sx: sx, sy: sy};
}
function curve(svg, scale, points, colour) {
  let d = "", pen = "M";
  for (const p of points) {
    if (p[1] > 0 && isFinite(p[1])) { d += pen + scale.sx(p[0]).toFixed(1) + "," + scale.sy(p[1]).toFixed(1) + " "; pen = "L"; }
    else pen = "M";
  }
  node(svg, "path", {d: d, fill: "none", stroke: colour, "stroke-width": 2});
}
function drawPlots(c, delta, x) {
  const lc = Math.log10(c);
  const xRange = [Math.min(-3, Math.floor(lc) - 1), Math.max(3, Math.ceil(lc) + 1)];
  const scales = [];
  for (let k = 0; k <= 300; k++) scales.push(Math.pow(10, xRange[0] + (xRange[1] - xRange[0]) * k / 300));
  const norm = scales.map(function (s) { return [s, FORMULAS.spectral_norm(s, delta, x)]; });
  const first = scales.map(function (s) { return [s, firstWeightLoss(s, delta)]; });
  const shown = norm.concat(first).map(function (p) { return p[1]; })
      .filter(function (v) { return v > 0 && isFinite(v); }).map(Math.log10);
  const yRange = [Math.floor(Math.min.apply(null, shown)), Math.ceil(Math.max.apply(null, shown))];
  if (yRange[0] === yRange[1]) yRange[1] += 1;

  const svg = el("plot");
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const scale = frame(svg, 50, 22, 490, 280, xRange, yRange, true);
  curve(svg, scale, norm, "#1f77b4");
  curve(svg, scale, first, "#ff7f0e");
  const marker = node(svg, "line", {id: "c-marker", "data-c": String(c), x1: scale.sx(c), x2: scale.sx(c),
                                    y1: 22, y2: 302, stroke: "#555", "stroke-dasharray": "4 3"});
  const nc = FORMULAS.spectral_norm(c, delta, x), fc = firstWeightLoss(c, delta);
  node(svg, "circle", {cx: scale.sx(c), cy: scale.sy(nc), r: 4, fill: "#1f77b4"});
  if (fc > 0) node(svg, "circle", {cx: scale.sx(c), cy: scale.sy(fc), r: 4, fill: "#ff7f0e"});
  const d = delta === 0 ? "c" : (delta > 0 ? "c + " + show(delta) : "c − " + show(-delta));
  node(svg, "text", {x: 60, y: 14, fill: "#1f77b4"}, "spectral norm ‖H(c, 1/c)‖₂");
  node(svg, "text", {x: 250, y: 14, fill: "#ff7f0e"},
       "L(" + d + ", 1/c)" + (first.every(function (p) { return p[1] === 0; }) ? " = 0 at every c (not drawn)" : ""));
  node(svg, "text", {x: 540, y: 337, "text-anchor": "end"}, "rescaling c (log axis); chosen c = " + show(c));

  const prediction = scales.map(function (s) { return [s, FORMULAS.prediction(s, delta, x)]; });
  const p = FORMULAS.prediction(c, delta, x);
  const pr = [Math.min(0, p) - 0.5, Math.max(0, p) + 0.5];
  const svg2 = el("prediction-plot");
  while (svg2.firstChild) svg2.removeChild(svg2.firstChild);
  const s2 = frame(svg2, 50, 20, 490, 80, xRange, pr, false);
  let path = "";
  prediction.forEach(function (q, k) { path += (k ? "L" : "M") + s2.sx(q[0]).toFixed(1) + "," + s2.sy(q[1]).toFixed(1) + " "; });
  node(svg2, "path", {d: path, fill: "none", stroke: "#000", "stroke-width": 2});
  node(svg2, "line", {x1: s2.sx(c), x2: s2.sx(c), y1: 20, y2: 100, stroke: "#555", "stroke-dasharray": "4 3"});
  node(svg2, "circle", {cx: s2.sx(c), cy: s2.sy(p), r: 4, fill: "#000"});
  node(svg2, "text", {x: 60, y: 13}, "prediction f(" + show(x) + ") = " + show(p) + " at every c (max(x, 0) = " + show(Math.max(x, 0)) + ")");
}

// --- the controls: a slider and an exact box each, kept in step ---
function bind(name, key, toSlider, fromSlider) {
  const slider = el(name + "-slider"), box = el(name + "-input");
  // the box is read exactly; the slider follows it as far as its range goes
  function readBox() {
    const exact = parseExact(box.value);
    state[key] = {exact: exact, value: exact ? toFloat(exact) : NaN};   // null: update() says so
    const t = exact ? toSlider(exact) : NaN;
    if (isFinite(t)) slider.value = String(Math.min(Math.max(t, Number(slider.min)), Number(slider.max)));
  }
  slider.addEventListener("input", function () {
    box.value = String(fromSlider(Number(slider.value)));   // a decimal, which the box reads exactly
    readBox();
    update();
  });
  box.addEventListener("input", function () { readBox(); update(); });
  readBox();                    // the setting the page was written with
}
// log10 of a positive exact value, also beyond the float range (from the digits)
function log10Of(r) {
  if (r.num <= 0n) return NaN;
  const d = digitsOf(r, 17);
  return d.exponent + Math.log10(Number(d.digits[0] + "." + d.digits.slice(1)));
}
const same = function (r) { return toFloat(r); }, plain = function (v) { return v; };
// the slider holds log10 c; the c it gives is rounded to 12 digits so that the box shows it exactly
bind("c", "c", log10Of, function (s) { return Number(Math.pow(10, s).toPrecision(12)); });
bind("delta", "delta", same, plain);
bind("probe", "x", same, plain);
update();
"""
