"""The language of statements, the ground floor the kernel stands on: index-level terms
(``terms``), their notation (``notation``) and the statements a theorem can have (``statements``).
It imports nothing of the project above ``symbolic.relu`` and ``symbolic.printing``."""
