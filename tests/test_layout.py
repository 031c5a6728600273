"""The house rules of the layout: the engine in sub-packages, proof scripts alone at the root of
proofs/, the public API in one place, and dependencies one way (no import circle)."""
import ast
import os
import subprocess
import sys
import textwrap

import pytest

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


def with_packages(graph):
    """The graph with the imports Python makes on its own: importing a.b.c runs the __init__ of a
    and of a.b first (an importer's own packages are already under way, so they add nothing)."""
    full = {name: set(targets) for name, targets in graph.items()}
    for name, targets in graph.items():
        own = set(_packages_of(name)) | {name}
        for target in targets:
            full[name] |= {p for p in _packages_of(target) if p in graph and p not in own}
    return full


def _packages_of(name):
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(1, len(parts))]


def circles_of(graph):
    """The strongly connected parts of more than one node: each holds an import circle."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.add(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(part)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def folder_graph(graph):
    """Folders as rooms: each sub-package of the engine or of proofs/ one room, each module at the
    top of symbolic/ or proofs/ a room of its own; an arrow for every import between two rooms."""
    def room(name):
        if os.path.isdir(os.path.join(ROOT, *name.split("."))):
            return name
        package = name.rsplit(".", 1)[0]
        return name if package in ("symbolic", "proofs") else package
    rooms = {}
    for name, targets in graph.items():
        for target in targets:
            a, b = room(name), room(target)
            if a != b and not a.startswith(b + "."):      # a sub-package runs its parent's __init__ anyway
                rooms.setdefault(a, set()).add(b)
    return rooms


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


def test_no_import_circle_through_the_packages_python_imports_on_its_own():
    assert circles_of(with_packages(import_graph())) == []


def test_no_circle_of_folders():
    """Folder by folder (each module at the top of symbolic/ or proofs/ a room of its own), packages'
    own imports included: the engine's floors import one way, up from the language of statements
    through the kernel and the trusted base to the checks that ask the kernel."""
    assert circles_of(folder_graph(with_packages(import_graph()))) == []


def test_every_engine_module_imports_on_its_own():
    """Each module imported in a process where its parent packages are bare (their __init__ not
    run) and no other module of the project is loaded: it leans on no import order."""
    script = textwrap.dedent("""
        import importlib, os, sys, types
        failed = []
        for module in sys.argv[1:]:
            for name in [n for n in sys.modules if n.split(".")[0] in ("symbolic", "proofs")]:
                del sys.modules[name]
            parts = module.split(".")
            for k in range(1, len(parts)):
                bare = types.ModuleType(".".join(parts[:k]))
                bare.__path__ = [os.path.join(os.getcwd(), *parts[:k])]
                sys.modules[bare.__name__] = bare
            try:
                importlib.import_module(module)
            except Exception as error:
                failed.append(f"{module}: {type(error).__name__}: {error}")
        print("\\n".join(failed))
    """)
    modules = sorted(module_name(path) for path in python_files("symbolic"))
    done = subprocess.run([sys.executable, "-c", script, *modules], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_the_kernel_and_the_ground_floor_import_by_name_only():
    """No importlib, no __import__ in symbolic/logic/ or symbolic/kernel/: every arrow is an import."""
    for top in (os.path.join("symbolic", "logic"), os.path.join("symbolic", "kernel")):
        for path in python_files(top):
            tree = ast.parse(open(path, encoding="utf-8").read())
            names = {alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                     for alias in node.names} | {getattr(node, "module", None) for node in ast.walk(tree)
                                                 if isinstance(node, ast.ImportFrom)}
            calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Name)}
            assert "importlib" not in names and "__import__" not in calls, path


def test_the_trusted_base_is_read_from_its_folder():
    """The places the kernel takes axioms, schemes and oracles from are the trusted folders, and
    what is declared is what those folders' modules declare (their list is read from the folder)."""
    from symbolic import trusted
    from symbolic.kernel import declared, derivations, provenance, rules
    for kind, places in (("axioms", provenance.AXIOMS), ("schemes", provenance.SCHEMES),
                         ("oracles", provenance.ORACLES)):
        assert f"symbolic.trusted.{kind}" in places
        assert provenance.folder_of(f"symbolic.trusted.{kind}") == trusted.FOLDER / kind
        assert trusted.modules(kind), kind
    trusted.load()
    oracle_modules = set(trusted.modules("oracles"))
    assert {o.name for o in declared()} == {o.name for module in oracle_modules
                                            for o in vars(sys.modules[module]).values()
                                            if isinstance(o, type(declared()[0]))}
    for rule in derivations.axioms():
        assert rule.justify.__module__.startswith("symbolic.trusted.axioms.") or \
            rule.justify.__module__ == "symbolic.kernel.definitions", rule.name
    for scheme in rules._SCHEMES.values():
        assert scheme.conclude.__module__ in set(trusted.modules("schemes")), scheme.name


def test_an_oracle_declared_outside_the_trusted_folder_is_refused():
    from symbolic.kernel.oracles import declare
    with pytest.raises(ValueError):
        declare("my own oracle", lambda statement: None, "anything")


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
                "symbolic.logic.definedness",
                "symbolic.logic.written", "symbolic.printing", "symbolic.printing.sympy_latex",
                "symbolic.printing.sympy_text", "symbolic.printing.verdicts", "symbolic.relu",
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
