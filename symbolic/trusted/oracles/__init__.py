"""The oracles: each a decision procedure outside the kernel, declared here by name, function and
what it decides (``declare``), and imported as that object by whoever asks the kernel to run it
(``by_oracle(EXACT_IDENTITY, statement)``).  A theorem that rests on one names it.  Importing this
package imports none of them: each module is imported by its callers, so that a claim checked from
the command line pays only for the procedures it runs."""
