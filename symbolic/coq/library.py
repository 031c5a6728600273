"""The Coq development of the paper's results for every size (``coq/`` at the repository's root),
and which every-size result each of its theorems proves.

``EVERY_SIZE`` maps the claim of each row of ``python -m proofs all_sizes`` that Coq proves to the
Coq theorems that prove it.  ``check_library()`` compiles the development once per process with
``coqc`` into a temporary folder and asks ``Print Assumptions`` of every theorem: a theorem is
"checked" when it compiles and rests on no axiom beyond the two that Coq's real numbers rest on.
"""
from __future__ import annotations

import functools
import re
import resource
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCES = Path(__file__).resolve().parents[2] / "coq"
LIBRARY = "Sharp"                   # the development's logical name (-Q coq Sharp)
COMPILE_SECONDS = 300               # a cap on the whole compile, far above its few seconds

# The axioms of the standard library's reals (Reals rests on them; Print Assumptions of any lemma
# about R names them).
REALS_AXIOMS = frozenset({"ClassicalDedekindReals.sig_forall_dec",
                          "FunctionalExtensionality.functional_extensionality_dep"})

_T1, _T3, _DEEP, _PRE, _PART = "Theorem1", "Theorem3", "Deep", "Prelude", "Partials"

# the row claims of `python -m proofs all_sizes` -> the Coq theorems that prove them for every size
EVERY_SIZE: dict[str, tuple[str, ...]] = {
    "rule: sum factor, valid for every size": (f"{_PRE}.sum_factor",),
    "rule: ReLU homogeneity, valid for every size": (f"{_PRE}.relu_pos_hom",),
    "rule: indicator homogeneity, valid for every size": (f"{_PRE}.step_pos_hom",),
    "rule: chain rule, valid for every size": (f"{_PART}.chain_rule",),
    "rule: constant factor, valid for every size": (f"{_PART}.partial_scal",),
    "rule: derivative of a sum, valid for every size": (f"{_PART}.partial_sum",),
    "rule: linearity of the derivative, valid for every size": (f"{_PART}.partial_plus",),
    "rule: product rule, valid for every size": (f"{_PART}.partial_mult",),
    "rule: derivative of a constant, valid for every size": (f"{_PART}.partial_const",),
    "rule: coordinate derivative, valid for every size": (f"{_PART}.partial_coord",),
    "rule: ReLU derivative, valid for every size": (f"{_PART}.partial_relu",),
    "rule: indicator derivative, valid for every size": (f"{_PART}.partial_step",),
    "rule: sum of terms, valid for every size": (f"{_PRE}.sum_plus",),
    "rule: delta contraction, valid for every size": (f"{_PRE}.sum_delta",),
    "Theorem 1 (a): f_(T_alpha theta)(x) = f_theta(x), for all d, h >= 1": (f"{_T1}.theorem1_prediction",),
    "Theorem 1 (b): L(T_alpha theta) = L(theta) for every loss ell, for all d, h, N >= 1":
        (f"{_T1}.theorem1_loss",),
    "Theorem 3: gradient law grad L(T_alpha theta) = S grad L(theta), for all d, h, N >= 1":
        (f"{_T3}.theorem3_gradient", f"{_T3}.theorem3_differentiable", f"{_T3}.theorem3_gradient_form"),
    "Theorem 3: Hessian law H(T_alpha theta) = S H(theta) S, for all d, h, N >= 1":
        (f"{_T3}.theorem3_hessian", f"{_T3}.theorem3_hessian_exists", f"{_T3}.theorem3_hessian_form"),
    "per-neuron: f and L invariant under W_ij -> c_j W_ij, v_j -> v_j / c_j, for all d, h, N >= 1":
        (f"{_T3}.per_neuron_prediction", f"{_T3}.per_neuron_loss"),
    "per-neuron: gradient and Hessian laws with S = diag(1/c_j on W, c_j on v), for all d, h, N >= 1":
        (f"{_T3}.per_neuron_gradient", f"{_T3}.per_neuron_hessian"),
    "multi-layer: f and L invariant under theta_k -> alpha_k theta_k, prod alpha_k = 1, for every depth K, "
    "all widths and N": (f"{_DEEP}.layers_prediction0", f"{_DEEP}.layers_loss0"),
    "multi-layer congruence: grad L(T theta) = D grad L(theta), H(T theta) = D H(theta) D, D = diag(1/alpha_k), "
    "for every depth, widths, N": (f"{_DEEP}.layers_gradient0", f"{_DEEP}.layers_hessian0"),
    "multi-layer with biases: f and L invariant under theta_k -> alpha_k theta_k, b_k -> P_k b_k, "
    "prod alpha_k = 1, for every depth K, all widths and N": (f"{_DEEP}.layers_prediction", f"{_DEEP}.layers_loss"),
    "multi-layer with biases congruence: grad L(T theta) = D grad L(theta), H(T theta) = D H(theta) D, "
    "D = diag(1/alpha_k, 1/P_k on b_k), for every depth, widths, N":
        (f"{_DEEP}.layers_gradient", f"{_DEEP}.layers_hessian"),
    "per-neuron multi-layer: f and L invariant under theta^(k)_ij -> c^(k)_j theta^(k)_ij / c^(k-1)_i, "
    "c^(0) = 1, theta^(K)_i -> theta^(K)_i / c^(K-1)_i, for every depth K, all widths and N":
        (f"{_DEEP}.per_unit_prediction0", f"{_DEEP}.per_unit_loss0"),
    "per-neuron multi-layer congruence: grad L(T theta) = D grad L(theta), H(T theta) = D H(theta) D, "
    "D = diag(c^(k-1)_i / c^(k)_j on theta^(k)_ij, c^(K-1)_i on theta^(K)_i), for every depth, widths, N":
        (f"{_DEEP}.per_unit_gradient0", f"{_DEEP}.per_unit_hessian0"),
    "per-neuron multi-layer with biases: f and L invariant under theta^(k)_ij -> c^(k)_j theta^(k)_ij / "
    "c^(k-1)_i, b^(k)_j -> c^(k)_j b^(k)_j, c^(0) = 1, theta^(K)_i -> theta^(K)_i / c^(K-1)_i, for every "
    "depth K, all widths and N": (f"{_DEEP}.per_unit_prediction", f"{_DEEP}.per_unit_loss"),
    "per-neuron multi-layer with biases congruence: grad L(T theta) = D grad L(theta), H(T theta) = "
    "D H(theta) D, D = diag(c^(k-1)_i / c^(k)_j on theta^(k)_ij, c^(K-1)_i on theta^(K)_i, 1/c^(k)_j on "
    "b^(k)_j), for every depth, widths, N": (f"{_DEEP}.per_unit_gradient", f"{_DEEP}.per_unit_hessian"),
}

# results beyond the rows: Theorem 1 (c), Theorem 2's determinant, Theorem 4's congruence, the
# diagonal laws they all rest on
FURTHER: tuple[str, ...] = (
    f"{_T1}.theorem1_local_min", f"{_T1}.theorem1", f"{_T1}.scale_inverse",
    "Diagonal.partial_transport", "Diagonal.gradient_law", "Diagonal.differentiable_transport",
    "Diagonal.hessian_law", "Diagonal.partial_near_transport", "Diagonal.gradient_form", "Diagonal.hessian_form",
    f"{_T3}.theorem3_gradient_W", f"{_T3}.theorem3_gradient_v",
    "Theorem2_4.theorem2_det", "Theorem2_4.scale_compose", "Theorem2_4.theorem4_W", "Theorem2_4.theorem4_v",
    f"{_PRE}.leaky_pos_hom", f"{_PRE}.relu_derivative_pos", f"{_PRE}.relu_derivative_neg",
    f"{_PRE}.step_derivative", f"{_PART}.partial_comp",
    # the rules exported chains cite beyond the prelude's (``symbolic.coq.chains``)
    "Chains.abs_pos_hom", "Chains.abs_sign", "Chains.signZ_square", "Chains.signZ_cases", "Chains.root_hom",
    "Chains.rroot_hom", "Chains.sum_reindex",
)

# the rules that are valid for every size but that the kernel checks on instances only (their
# ``instance_checked`` entries, as the theorems resting on them list them) -> the Coq theorems that
# prove them for every order (mathcomp's matrices, over every commutative ring)
INSTANCE_RULES: dict[str, tuple[str, ...]] = {
    "det(P M P^T) = det(P)^2 det(M): generic P, M of orders 1 and 2, P = D Q at order 3":
        ("Matrices.det_congruence",),
    "A B^T = I for B = A^(-T): orders 1 to 3": ("Matrices.inverse_pair",),
}

# the files that need mathcomp (Debian: libcoq-mathcomp-algebra), compiled only where it is installed
NEEDS_MATHCOMP = ("Matrices.v",)

THEOREMS: tuple[str, ...] = tuple(dict.fromkeys([name for names in EVERY_SIZE.values() for name in names]
                                                + list(FURTHER)
                                                + [name for names in INSTANCE_RULES.values() for name in names]))

COQC_MISSING = "not checked: coqc is not installed (Debian: apt-get install coq)"
MATHCOMP_MISSING = "not checked: mathcomp is not installed (Debian: apt-get install libcoq-mathcomp-algebra)"

MARK = "@@ "                        # printed before each theorem's assumptions


def coqc() -> str | None:
    """The path of coqc, or None where Coq is not installed."""
    return shutil.which("coqc")


@functools.cache
def mathcomp() -> bool:
    """Whether coqc finds mathcomp's matrices."""
    if coqc() is None:
        return False
    with tempfile.TemporaryDirectory(prefix="coq-mathcomp-") as folder:
        (Path(folder) / "Probe.v").write_text("From mathcomp Require Import matrix.\n")
        done = subprocess.run([coqc(), "-q", "Probe.v"], cwd=folder, capture_output=True, text=True, check=False,
                              timeout=COMPILE_SECONDS)
    return done.returncode == 0


def source_files() -> list[Path]:
    """The development's files in dependency order, as _CoqProject lists them."""
    listed = (SOURCES / "_CoqProject").read_text().split()
    return [SOURCES / name for name in listed if name.endswith(".v")]


def rests_on_reals_only(axioms: list[str]) -> bool:
    return set(axioms) <= REALS_AXIOMS


def _needs_mathcomp(name: str) -> bool:
    return f"{name.split('.')[0]}.v" in NEEDS_MATHCOMP


@functools.cache
def check_library(matrices: bool = True) -> dict[str, str]:
    """Each theorem of THEOREMS -> "checked", or why not (coqc missing, a file refused, an axiom
    beyond the reals'), compiled once per process; ``matrices=False`` leaves out the files that need
    mathcomp (slow to load), whose theorems the every-size rows do not cite."""
    theorems = [name for name in THEOREMS if matrices or not _needs_mathcomp(name)]
    if coqc() is None:
        return dict.fromkeys(theorems, COQC_MISSING)
    missing = [] if matrices and mathcomp() else [name for name in theorems if _needs_mathcomp(name)]
    with tempfile.TemporaryDirectory(prefix="coq-library-") as folder:
        failure = _compile(Path(folder), skip=() if matrices else NEEDS_MATHCOMP)
        if failure:
            return dict.fromkeys(theorems, failure)
        results = assumptions(Path(folder), [name for name in theorems if name not in missing])
    return {**results, **dict.fromkeys(missing, MATHCOMP_MISSING)}


@functools.cache
def check_matrices() -> dict[str, str]:
    """The theorems of the files that need mathcomp -> "checked" or why not, those files alone compiled."""
    theorems = [name for names in INSTANCE_RULES.values() for name in names]
    if coqc() is None:
        return dict.fromkeys(theorems, COQC_MISSING)
    if not mathcomp():
        return dict.fromkeys(theorems, MATHCOMP_MISSING)
    with tempfile.TemporaryDirectory(prefix="coq-matrices-") as folder:
        failure = _compile(Path(folder), only=NEEDS_MATHCOMP)
        return dict.fromkeys(theorems, failure) if failure else assumptions(Path(folder), theorems)


def instance_rules_proved(checked: tuple) -> dict[str, str]:
    """The rules among a theorem's ``instance_checked`` entries that the development proves for every
    order -> the evidence line naming the Coq theorems (those Coq has checked in this process)."""
    proved = {}
    for entry in checked:
        names = INSTANCE_RULES.get(entry, ())
        if names and all(check_matrices()[name] == "checked" for name in names):
            proved[entry] = f"proved for every order in Coq: {', '.join(f'{LIBRARY}.{name}' for name in names)}"
    return proved


def row_status(claim: str) -> str | None:
    """"checked" when every Coq theorem of that every-size row is checked, else the first failure;
    None for a row that no Coq theorem proves."""
    names = EVERY_SIZE.get(claim)
    if names is None:
        return None
    results = check_library(matrices=False)
    failures = [f"{name}: {results[name]}" for name in names if results[name] != "checked"]
    return failures[0] if failures else "checked"


def row_evidence(claim: str) -> list[str]:
    """The evidence line naming the Coq theorems of a row (empty for a row Coq does not prove)."""
    names = EVERY_SIZE.get(claim)
    return [f"Coq: {', '.join(f'{LIBRARY}.{name}' for name in names)}"] if names else []


def timed_coqc(folder: Path, file: str, timeout: float, arguments: tuple = ()) -> tuple[str | None, int, float]:
    """One coqc call on ``file`` in ``folder``: (None when Coq accepts it, else coqc's output; the line
    coqc's error names, 0 if none; the CPU seconds coqc used)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run([coqc(), "-q", *arguments, file], cwd=folder, capture_output=True, text=True,
                              timeout=timeout, check=False)
        output = None if done.returncode == 0 else done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        output = "coqc did not finish in time"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    location = re.search(r"line (\d+)", output or "")
    return output, int(location.group(1)) if location else 0, cpu


def _compile(folder: Path, only: tuple = (), skip: tuple = ()) -> str | None:
    """Copy the sources (``only`` those files, if given; never those in ``skip``) into folder and
    compile them in order; the first refusal, or None."""
    sources = [source for source in source_files() if (not only or source.name in only) and source.name not in skip
               and (source.name not in NEEDS_MATHCOMP or mathcomp())]
    for source in sources:
        shutil.copy(source, folder / source.name)
    for source in sources:
        try:
            done = subprocess.run([coqc(), "-q", "-Q", ".", LIBRARY, source.name], cwd=folder, check=False,
                                  capture_output=True, text=True, timeout=COMPILE_SECONDS)
        except subprocess.TimeoutExpired:
            return f"refused: {source.name} did not compile within {COMPILE_SECONDS} s"
        if done.returncode != 0:
            return f"refused: {source.name}: {_first_error(done.stdout + done.stderr)}"
    return None


def assumptions(folder: Path, names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Each theorem (Module.name, compiled in folder) -> "checked" or why not.  One Print
    Assumptions of a term that cites them all first (each call walks the reals' library, about
    half a second); only when that union holds more than the reals' axioms, one call per theorem
    says which theorem rests on what."""
    union = _run_assumptions(folder, list(names), together=True)
    if isinstance(union, dict) and union.get("everything") == "checked":
        return dict.fromkeys(names, "checked")
    results: dict[str, str] = {}
    pending = list(names)
    while pending:
        answer = _run_assumptions(folder, pending, together=False)
        if isinstance(answer, dict):
            return {**results, **answer}
        if answer.startswith("missing "):
            # a theorem absent from the development: say so, ask again about the others
            name = answer.removeprefix("missing ")
            results[name] = f"refused: {LIBRARY}.{name} is not a theorem of the development"
            pending = [other for other in pending if other != name]
        else:
            return {**results, **dict.fromkeys(pending, answer)}
    return results


def _run_assumptions(folder: Path, names: list[str], together: bool) -> dict[str, str] | str:
    """One coqc call: the parsed answers, or "missing NAME", or the refusal."""
    lines = [f"Require {LIBRARY}.{module}." for module in sorted({name.split(".")[0] for name in names})]
    if together:
        lines += ["Definition everything : unit :="] + [f"  let _ := @{LIBRARY}.{name} in" for name in names]
        lines += ["  tt.", f'Goal True. idtac "{MARK}everything". Abort.', "Print Assumptions everything."]
    else:
        for name in names:
            lines += [f'Goal True. idtac "{MARK}{name}". Abort.', f"Print Assumptions {LIBRARY}.{name}."]
    (folder / "Assumptions.v").write_text("\n".join(lines) + "\n")
    try:
        done = subprocess.run([coqc(), "-q", "-Q", ".", LIBRARY, "Assumptions.v"], cwd=folder, check=False,
                              capture_output=True, text=True, timeout=COMPILE_SECONDS)
    except subprocess.TimeoutExpired:
        return f"refused: Print Assumptions did not finish within {COMPILE_SECONDS} s"
    output = done.stdout + done.stderr
    if done.returncode != 0:
        missing = re.search(r"The reference (\S+) was not found", output)
        if missing and missing.group(1).removeprefix("@").removeprefix(f"{LIBRARY}.") in names:
            return "missing " + missing.group(1).removeprefix("@").removeprefix(f"{LIBRARY}.")
        return f"refused: {_first_error(output)}"
    return _parse_assumptions(done.stdout, ["everything"] if together else names)


def _parse_assumptions(output: str, names: list[str]) -> dict[str, str]:
    """Split coqc's output at the marks; each block lists a theorem's axioms."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in output.splitlines():
        if line.startswith(MARK):
            current = line[len(MARK):].strip()
            blocks[current] = []
        elif current is not None and line and not line[0].isspace():
            # an axiom's name, its type after " : " on the same line or on the next ones
            blocks[current].append(line.split(" : ")[0].strip())
    results = {}
    for name in names:
        block = blocks.get(name)
        if block is None:
            results[name] = "refused: Print Assumptions printed nothing"
            continue
        headers = {"Axioms:", "Closed under the global context"}
        axioms = [line for line in block if line not in headers]
        extra = sorted(set(axioms) - REALS_AXIOMS)
        results[name] = "checked" if not extra else "rests on an axiom beyond the reals': " + ", ".join(extra)
    return results


def _first_error(text: str) -> str:
    """coqc's message in one line: the location and the error."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines[:4])[:300] if lines else "coqc failed without a message"
