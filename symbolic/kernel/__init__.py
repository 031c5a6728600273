"""The kernel: the only code that issues a PROVED verdict, from its own checks and rules."""
from symbolic.kernel.certificates import (TRUSTED_PROCEDURES, by_procedure, check_identity, conclude,
                                          exact_zeros, is_certified, negation_by_counterexample, nonnegative)

__all__ = ["TRUSTED_PROCEDURES", "by_procedure", "check_identity", "conclude", "exact_zeros", "is_certified",
           "negation_by_counterexample", "nonnegative"]
