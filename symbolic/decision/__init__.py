"""The decision procedure: ``check_identity`` and what it stands on (exact zero tests, sign regions, Z3, witnesses, symbol ranges, time budgets)."""
