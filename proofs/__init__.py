"""Runnable proof scripts, one per result of Dinh et al. (2017); ``python -m proofs`` runs them."""
