"""The inference schemes: rules of inference outside the kernel's primitives, each computing its
conclusion from its premises' statements (``symbolic.kernel.rules.scheme``, which takes a scheme
only from this folder)."""
