"""``python -m proofs``: see proofs/commands/cli.py."""
import sys

try:
    from proofs.commands.cli import main
except KeyboardInterrupt:       # Ctrl-C while the modules load: no traceback
    print("proofs: interrupted", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
