"""The README and docs/ as a reader meets them: every code block runs, every relative link
resolves, the README stays a door (at most 250 lines, linking docs/), its test command is the one
CI runs, and the numbers of its trusted base are today's.

A block runs by its language: ``python`` is executed, each ``python -m proofs ...`` line of an
``sh`` block is run by the command line's ``main`` (its exit code a verdict's, never bad input or
an internal error), a ``toml`` spec is checked by ``python -m proofs symmetry``; a block without
a language is output, shown, not run.  A block preceded by ``<!-- skip: REASON -->`` (an extra, a
file or a long run it needs) or ``<!-- tested: tests/FILE.py ... -->`` (run there) is not run
here; the reason must be stated and the named test must exist."""
import glob
import os
import re
import shlex
import subprocess

import pytest

from conftest import ROOT
from proofs.commands import cli
from proofs.commands.arguments import EXIT_CODES

try:
    import tomllib
except ModuleNotFoundError:     # Python 3.10
    import tomli as tomllib

DOCUMENTS = ["README.md", "CONTRIBUTING.md", *sorted(os.path.relpath(p, ROOT) for p in
                                                    glob.glob(os.path.join(ROOT, "docs", "*.md")))]
BLOCK = re.compile(r"((?:^<!--[^\n]*-->\n)*)^```(\w*)\n(.*?)^```", re.S | re.M)
VERDICT_CODES = set(EXIT_CODES.values())


def read(document: str) -> str:
    return open(os.path.join(ROOT, document), encoding="utf-8").read()


def blocks():
    """(document, line, language, code, the comments just above the block)."""
    found = []
    for document in DOCUMENTS:
        text = read(document)
        for match in BLOCK.finditer(text):
            line = text[:match.start(2)].count("\n") + 1
            found.append(pytest.param(document, match.group(2), match.group(3), match.group(1),
                                      id=f"{document}:{line}"))
    return found


def not_run_here(comments: str) -> str | None:
    """Why the block is not run here, or None; a skip without a reason, or naming a test that
    does not exist, fails."""
    skip = re.search(r"<!-- skip:(.*?)-->", comments)
    if skip:
        assert skip.group(1).strip(), "a skipped block states its reason"
        return skip.group(1).strip()
    tested = re.search(r"<!-- tested: (tests/\S+\.py)(.*?)-->", comments)
    if tested:
        assert os.path.exists(os.path.join(ROOT, tested.group(1))), tested.group(1)
        return f"run by {tested.group(1)}"
    return None


def commands(code: str) -> list[list[str]]:
    """The command lines of a shell block, comments dropped and continued lines joined."""
    joined = re.sub(r"\\\n", " ", code)
    return [shlex.split(line, comments=True) for line in joined.splitlines()
            if shlex.split(line, comments=True)]


def run_command(args: list[str], capsys) -> tuple[int, str]:
    assert args[:3] == ["python", "-m", "proofs"], \
        f"{' '.join(args)}: a block of other commands is marked skip, with the reason"
    code = cli.main(args[3:])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("document, language, code, comments", blocks())
def test_every_code_block_runs(document, language, code, comments, capsys, tmp_path, monkeypatch):
    reason = not_run_here(comments)
    if reason:
        pytest.skip(reason)
    monkeypatch.chdir(tmp_path)           # a block that writes files writes them here
    (tmp_path / "docs").symlink_to(os.path.join(ROOT, "docs"))    # and reads the documented files as from the root
    if language == "python":
        exec(compile(code, document, "exec"), {"__name__": "__doc_block__"})
    elif language in ("sh", "console", "bash"):
        for args in commands(code):
            status, err = run_command(args, capsys)
            assert status in VERDICT_CODES, f"{' '.join(args)} exited {status}: {err}"
    elif language == "toml":
        spec = tomllib.loads(code)
        if "layers" in spec:
            (tmp_path / "spec.toml").write_text(code, encoding="utf-8")
            discover = [] if "map" in spec else ["--discover"]
            status, err = run_command(["python", "-m", "proofs", "symmetry", "spec.toml", *discover],
                                      capsys)
            assert status in VERDICT_CODES, err
    else:
        assert language in ("", "text"), f"{document}: a {language} block neither runs nor is output"


# --- links --------------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings."""
    found = set()
    for heading in re.findall(r"^#+ (.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_relative_link_resolves(document):
    text = read(document)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue                          # http(s): not relative
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(ROOT, os.path.dirname(document), path)) if path \
            else os.path.join(ROOT, document)
        assert os.path.exists(resolved), f"{document}: {target} does not resolve"
        if anchor and resolved.endswith(".md"):
            assert anchor in anchors(open(resolved, encoding="utf-8").read()), \
                f"{document}: {target}: no heading with that anchor"


# --- the README as a door -------------------------------------------------------------------------------

def test_the_readme_is_a_door_to_every_page_of_the_docs():
    readme = read("README.md")
    assert len(readme.splitlines()) <= 250
    index = read(os.path.join("docs", "README.md"))
    linked = set(LINK.findall(readme)) | {f"docs/{t}" for t in LINK.findall(index)}
    for page in DOCUMENTS:
        if page.startswith("docs" + os.sep):
            assert page.replace(os.sep, "/") in linked, f"{page} is linked from neither index"


def test_the_readme_test_command_is_the_one_ci_runs():
    readme = read("README.md")
    setup = re.search(r"^```sh\n(.*?)^```", readme, re.S | re.M).group(1)
    second = [line for line in setup.splitlines() if line and not line.startswith("#")][1]
    ci = [line for line in read(os.path.join(".ci", "run")).splitlines() if line.strip()][-1]
    assert second == ci


def test_the_trusted_base_numbers_are_today_s():
    section = read("README.md").split("## Where the trust rests")[1].split("\n## ")[0]
    assert len([line for line in section.splitlines() if line.startswith("- ")]) == 5
    grep = subprocess.run(["grep", "-rn", "Verdict(Status.PROVED", "proofs/"], cwd=ROOT,
                          capture_output=True, text=True).stdout.splitlines()
    today = [f"finds {len(grep)} lines"]
    for folder in ("kernel", "trusted"):
        files = sorted(glob.glob(os.path.join(ROOT, "symbolic", folder, "**", "*.py"), recursive=True))
        lines = sum(len(open(path, encoding="utf-8").read().splitlines()) for path in files)
        today.append(f"`symbolic/{folder}/`, {lines} lines in {len(files)} files")
    for phrase in today:
        assert phrase in section, f"the README should say: {phrase}"


FIGURE = re.compile(r"\d s (wall|of CPU)|\d\.\d+ s\b")


@pytest.mark.parametrize("document", DOCUMENTS)
def test_a_page_with_timings_names_the_machine_and_the_date(document):
    text = read(document)
    if FIGURE.search(text):
        assert "2-core" in text and re.search(r"2026-\d\d-\d\d", text), \
            f"{document} quotes timings without the machine and the date"
