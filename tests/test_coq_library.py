"""The Coq development of the paper's results for every size: it compiles, every theorem rests only
on the reals' two axioms, and no table ties it to rows by their claims."""
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


def test_the_development_lists_its_theorems_and_no_table_of_claims():
    # which row a Coq theorem checks is read from the row's own statement by the Coq pass; the library
    # names its theorems only
    assert set(library.DEVELOPMENT) <= set(library.THEOREMS)
    assert not hasattr(library, "EVERY_SIZE") and not hasattr(library, "row_status")


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


def test_a_run_without_coq_says_nothing_of_coq(cli):
    # without --certify coq no row says "coq": no answer is attached beside the statement checked
    done = cli("all_sizes", "--json")
    assert done.returncode == 0, done.stderr
    assert not [row["claim"] for row in json.loads(done.stdout) if "coq" in row]


def test_every_step_of_the_proofs_is_commented():
    # the files read like the paper's proofs: each Coq file explains its theorems
    for source in library.source_files():
        text = source.read_text()
        assert text.count("(*") >= text.count("Qed.") / 2, source.name
