"""``python -m proofs``: see proofs/cli.py."""
import sys

from .cli import main

sys.exit(main())
