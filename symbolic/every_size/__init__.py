"""The index-level calculus behind the every-size proofs: terms whose sizes are symbols, and rewrite rules valid for every size."""
