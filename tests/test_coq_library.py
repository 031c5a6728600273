"""The Coq development of the paper's results for every size: it compiles, every theorem rests only
on the reals' two axioms, and the table names rows that all_sizes prints."""
import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from symbolic.coq import library

pytestmark = pytest.mark.skipif(library.coqc() is None,
                                reason="coqc is not installed (Debian: apt-get install coq); the Coq "
                                       "development cannot be compiled here")


def test_every_theorem_compiles_and_rests_on_the_reals_axioms_only():
    results = library.check_library()
    assert set(results) == set(library.THEOREMS)
    failures = {name: result for name, result in results.items() if result != "checked"}
    assert not failures, failures


def test_every_row_of_the_table_is_checked():
    assert all(library.row_status(claim) == "checked" for claim in library.EVERY_SIZE)
    assert library.row_status("not a row") is None
    assert library.row_evidence("rule: sum factor, valid for every size") == ["Coq: Sharp.Prelude.sum_factor"]


def test_without_mathcomp_its_theorems_say_so_and_the_others_are_checked(monkeypatch):
    monkeypatch.setattr(library, "mathcomp", lambda: False)
    results = library.check_library.__wrapped__()
    assert results["Matrices.det_congruence"].startswith("not checked: mathcomp is not installed")
    assert results["Theorem1.theorem1_loss"] == "checked"


def test_an_axiom_beyond_the_reals_and_a_missing_theorem_are_reported():
    # negative controls: a lemma proved from a false axiom, and a name the development lacks
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "Bad.v").write_text("Axiom bad : (1 = 2)%nat.\n"
                                      "Lemma uses_bad : (2 = 1)%nat. Proof. symmetry. exact bad. Qed.\n"
                                      "Lemma clean : (1 = 1)%nat. Proof. reflexivity. Qed.\n")
        subprocess.run([library.coqc(), "-q", "-Q", ".", library.LIBRARY, "Bad.v"], cwd=folder, check=True)
        results = library.assumptions(folder, ["Bad.uses_bad", "Bad.clean", "Bad.absent"])
    assert results["Bad.uses_bad"] == "rests on an axiom beyond the reals': Bad.bad"
    assert results["Bad.clean"] == "checked"
    assert results["Bad.absent"].startswith("refused:")


def test_the_table_names_rows_that_all_sizes_prints(cli):
    done = cli("all_sizes", "--json")
    assert done.returncode == 0, done.stderr
    claims = {row["claim"] for row in json.loads(done.stdout)}
    assert set(library.EVERY_SIZE) <= claims, set(library.EVERY_SIZE) - claims
    # the rows of Theorem 1, Theorem 3, the multi-layer law, per-neuron rescaling and the biases
    for words in ("Theorem 1 (a)", "Theorem 1 (b)", "Theorem 3: gradient", "Theorem 3: Hessian",
                  "multi-layer:", "multi-layer with biases", "per-neuron:", "per-neuron multi-layer with biases"):
        assert any(claim.startswith(words) for claim in library.EVERY_SIZE), words


def test_every_step_of_the_proofs_is_commented():
    # the files read like the paper's proofs: each Coq file explains its theorems
    for source in library.source_files():
        text = source.read_text()
        assert text.count("(*") >= text.count("Qed.") / 2, source.name
