"""The checks a user asks of a network or a measure, each asking the kernel: ``check_symmetry``
(the prediction, the loss, the gradient and the Hessian laws of a map, ``symmetry``), the
prediction claim layer by layer (``layer_transport``), the generators of a trained network's unit group
(``unit_transport``), ``discover_symmetries`` (``discovery``) and
``check_invariance`` of a measure under a symmetry group (``invariance``).  They stand above the
trusted base; the procedures they ask the kernel to run (``symbolic.networks``,
``symbolic.measures``) stand below it."""
