"""Coq as a second checker: the paper's results proved for every size (``library``), and
certificates that re-check the identity claims the kernel proves (``printer``, ``certificate``,
``runner``)."""
