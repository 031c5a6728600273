"""``python -m proofs``: see proofs/cli.py."""
import sys

try:
    from .cli import main
except KeyboardInterrupt:       # Ctrl-C while the modules load: no traceback
    print("proofs: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
