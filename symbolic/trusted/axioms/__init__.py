"""The axioms: the rewrite rules of the every-size chains, each declared with its validity check
(``symbolic.kernel.derivations.axiom``, which takes a rule only from this folder and the kernel's
own definitions).  ``index_rules``: the rules of sums, products, ReLU and differentiation;
``norm_rules``: the spectral norm's; ``attention_rules``: an attention head's hypothesis A Bᵀ = I and
the chain rule through a mixing map."""
