"""Corpora of claims of known truth: the soundness corpus of the proof scripts and the claim families of the core's benchmark."""
