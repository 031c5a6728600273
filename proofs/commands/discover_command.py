"""python -m proofs symmetry SPEC --discover: find the symmetries of the model in SPEC instead of
checking a map.  The spec needs only ``inputs`` and ``[[layers]]`` (``sizes`` and ``loss`` are used
when present); a ``[map]`` or ``[group]`` is ignored, with a note on stderr."""
from __future__ import annotations

import sys

from symbolic.symmetries.discovery import discover_symmetries

from proofs.commands.arguments import show_report

DEFAULT_SIZES = [1]


def run(spec: dict, model, loss: str, sizes: list | None, args) -> int:
    """Discover, print the table or the JSON object, write the LaTeX derivation; the exit code of
    the overall status."""
    ignored = [f"[{key}]" for key in ("map", "group") if key in spec]
    if ignored:
        print(f"note: {' and '.join(ignored)} ignored: --discover finds the symmetries itself",
              file=sys.stderr)
    report = discover_symmetries(model, loss=loss, sizes=sizes or DEFAULT_SIZES, seed=args.seed,
                                 timeout=args.timeout)
    return show_report(report, args)
