"""Exact linear algebra on rational matrices: inertia, rank, eigenpairs."""
from symbolic.kernel.oracles import declare
from symbolic.numerics.eigenpairs import decide_eigenpairs
from symbolic.numerics.inertia import decide_inertia, decide_rank

EXACT_INERTIA = declare(
    "exact inertia", decide_inertia,
    "the signs of a rational symmetric matrix's eigenvalues, by an exact LDL^T decomposition")
EXACT_RANK = declare(
    "exact linear algebra", decide_rank,
    "the rank of a rational matrix, by exact elimination")
EXACT_EIGENPAIRS = declare(
    "exact eigenpairs", decide_eigenpairs,
    "H v = lambda v for a symbolic matrix and each claimed pair, by exact zero tests")
