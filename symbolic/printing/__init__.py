"""Printing: the project's LaTeX printer of sympy expressions (``sympy_latex``), on the ground floor."""
