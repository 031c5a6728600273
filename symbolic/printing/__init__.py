"""Printing, on the ground floor (sympy only): the project's LaTeX printer of sympy expressions
(``sympy_latex``), its text printer (``sympy_text``) and a verdict as text (``verdicts``)."""
