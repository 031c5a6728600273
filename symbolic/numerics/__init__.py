"""Rigorous numerics: arb interval enclosures, bounds on maxima, exact inertia, and the mpmath witness on the real network."""
