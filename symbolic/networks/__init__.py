"""Networks and their symmetries: layer descriptions, the paper's networks, activation patterns, the rescaling T_α, ``check_symmetry`` and the audit's groups."""
