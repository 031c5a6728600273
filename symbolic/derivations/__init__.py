"""Derivations a researcher writes: chains of steps, each checked by the kernel, the conclusion
computed by its rule of transitivity (``chain``); read from a file (``reading``); index-level steps
proved for every size (``index_steps``); printed from the checked statements (``document``)."""
from symbolic.derivations.chain import CheckedDerivation, CheckedStep, Derivation, Step
from symbolic.derivations.reading import DerivationError, read_derivations

__all__ = ["CheckedDerivation", "CheckedStep", "Derivation", "DerivationError", "Step", "read_derivations"]
