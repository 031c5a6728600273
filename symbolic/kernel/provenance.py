"""Where code comes from: whether a function was written in, and a declaration made from, a place
of the trusted base (``symbolic/trusted/``: its axioms, schemes and oracles folders), read from the
file its code was loaded from, never from a name a function may be given."""
from __future__ import annotations

import os
import sys
from pathlib import Path

# the folder that holds the package ``symbolic``: a dotted place is a path below it
_ROOT = Path(__file__).resolve().parent.parent.parent

# the places whose code the kernel takes as part of the trusted base, each a folder (or a module of
# the kernel's own): what may be an axiom, an inference scheme, an oracle
AXIOMS = ("symbolic.trusted.axioms", "symbolic.kernel.definitions")
SCHEMES = ("symbolic.trusted.schemes",)
ORACLES = ("symbolic.trusted.oracles",)


def folder_of(place: str) -> Path:
    """The folder (or, for a module, the file) of a dotted place."""
    path = _ROOT.joinpath(*place.split("."))
    return path if path.is_dir() else path.with_suffix(".py")


def code_in(function, places) -> bool:
    """Whether ``function``'s code was written in one of ``places``: its ``__module__`` (which any
    function may be given) lies there, and its code object comes from that module's file, which
    lies in the place's folder (a cached function is read through its cache)."""
    for _ in range(8):
        function = getattr(function, "__wrapped__", function)
    module, code = getattr(function, "__module__", None), getattr(function, "__code__", None)
    return code is not None and _is_file_of(code.co_filename, module, places, getattr(function, "__globals__", None))


def called_from(places, while_importing: bool = False) -> bool:
    """Whether the function that calls the caller is code of one of ``places`` (its frame's module,
    and the file its code was read from): a declaration made there, not by a script of a user;
    with ``while_importing``, made while that module is being imported (its own top-level code,
    not code run in its namespace afterwards)."""
    frame = sys._getframe(2)
    module = frame.f_globals.get("__name__")
    if not _is_file_of(frame.f_code.co_filename, module, places, frame.f_globals):
        return False
    return not while_importing or getattr(getattr(sys.modules[module], "__spec__", None), "_initializing", False)


def _is_file_of(filename: str, module, places, namespace) -> bool:
    place = next((p for p in places if isinstance(module, str) and (module == p or module.startswith(p + "."))), None)
    loaded = sys.modules.get(module) if place is not None else None
    source = getattr(loaded, "__file__", None)
    if source is None or os.path.realpath(filename) != os.path.realpath(source):
        return False
    # the code runs in the loaded module's own namespace: code compiled under the module's file
    # name and run in a namespace of the caller's making is not the module's code
    if namespace is not vars(loaded):
        return False
    # the module's file lies in the place's folder: a module merely named like the place is not in it
    where, found = folder_of(place), Path(os.path.realpath(source))
    return found == where or where in found.parents
