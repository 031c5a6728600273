"""The house rules of the layout: the engine in sub-packages, proof scripts alone at the root of
proofs/, the public API in one place, and dependencies one way (no import circle)."""
import ast
import os

import symbolic
from proofs.commands import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_files(top):
    for folder, _, files in os.walk(os.path.join(ROOT, top)):
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def module_name(path):
    name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def import_graph():
    """Every project module and the project modules it imports (nested imports included)."""
    paths = {module_name(p): p for top in ("symbolic", "proofs") for p in python_files(top)}
    graph = {}
    for name, path in paths.items():
        package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
        targets = set()
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets |= {base} | {f"{base}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def test_no_import_circle():
    graph, state, circles = import_graph(), {}, []

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                circles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"
    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert circles == []


def test_dependencies_run_one_way():
    """The engine imports no proof script and no command; a proof script imports no command."""
    scripts = {module for module in registry.SCRIPTS.values()}
    for module, targets in import_graph().items():
        if module.startswith("symbolic"):
            assert not any(t.startswith("proofs") for t in targets), (module, targets)
        if module in scripts:
            assert not any(t.startswith(("proofs.commands", "proofs.corpora")) for t in targets), (module, targets)


def test_the_root_of_proofs_holds_only_proof_scripts():
    root = {name[:-3] for name in os.listdir(os.path.join(ROOT, "proofs")) if name.endswith(".py")}
    scripts = {module.split(".")[-1] for module in registry.SCRIPTS.values()}
    assert root == scripts | {"__init__", "__main__"}


def test_the_engine_is_in_sub_packages():
    top = os.path.join(ROOT, "symbolic")
    modules = [name for name in os.listdir(top) if name.endswith(".py")]
    packages = [name for name in os.listdir(top) if os.path.isfile(os.path.join(top, name, "__init__.py"))]
    # at the top: __init__ and the shared base (verdicts, derivations, reports, LaTeX, parsing, ReLU
    # and the fraction reader its canonical form shares with the zero test, the pytest helpers, the
    # exception base)
    assert len(modules) <= 10 and len(packages) >= 4
    for package in packages:          # each says in its docstring what it holds
        assert ast.get_docstring(ast.parse(open(os.path.join(top, package, "__init__.py")).read()))


def test_the_public_api_is_in_one_place():
    for name in ("check_identity", "Verdict", "Status", "ReLU", "Model", "Dense", "Conv1d", "ReLULayer",
                 "LeakyReLU", "Abs", "Tanh", "Maxout", "MaxPool1d", "AvgPool1d", "Residual", "Symmetry",
                 "check_symmetry", "check_invariance"):
        assert name in symbolic.__all__ and hasattr(symbolic, name), name
    # ReLU is the function of claims, not the layer
    import sympy as sp
    s = sp.Symbol("s")
    assert isinstance(symbolic.ReLU(s), sp.Expr)


# the kernel stands on the ground floor: the language of statements (symbolic/logic/), the printers
# (symbolic/printing/), the ReLU function, the fraction reader it shares, and the exception base
GROUND_FLOOR = {"symbolic.logic", "symbolic.logic.terms", "symbolic.logic.notation", "symbolic.logic.statements",
                "symbolic.printing", "symbolic.printing.sympy_latex", "symbolic.printing.verdicts", "symbolic.relu",
                "symbolic.flint_fractions", "symbolic.errors"}
KERNEL_MAY_IMPORT = GROUND_FLOOR


def test_the_kernel_imports_nothing_above_the_term_language():
    graph = import_graph()
    kernel = {name for name in graph if name == "symbolic.kernel" or name.startswith("symbolic.kernel.")}
    above = {(name, target) for name in kernel for target in graph[name]
             if target not in kernel and target not in KERNEL_MAY_IMPORT}
    assert above == set()
    # and what it may import does not reach above it either
    for module in KERNEL_MAY_IMPORT:
        assert {t for t in graph[module] if t not in kernel and t not in KERNEL_MAY_IMPORT} == set(), module


def test_the_kernel_is_small_enough_to_read():
    from proofs.commands.trust_command import kernel_files
    files = kernel_files()
    # one job per file, none of them a wall (the total is printed by python -m proofs trust)
    assert all(lines <= 800 for _, lines in files), files
