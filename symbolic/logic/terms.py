"""Index-level terms: sums whose bounds are size symbols, indexed entries, ReLU, derivatives.

A small term language of its own, not sympy's Sum/Indexed: sympy rewrites on construction (the
project's ReLU pulls out positive factors, α·α⁻¹ cancels inside a Mul) and needs ``refine`` to
discharge the bounds of a differentiated sum, so a step could happen without a rule saying so.
Here a term changes only when a rule rewrites it (``symbolic.trusted.axioms.index_rules``); its
notation, the LaTeX a reader sees, is ``symbolic.logic.notation``.

A spectral norm ‖(A_ab)‖₂ binds its two indices as a sum binds one: a term of its own
(``SpectralNorm``), its matrix's entry the only child, opaque to arithmetic; its rules
(``symbolic.trusted.axioms.norm_rules``) take out a positive scale, drop a sign of one side, or put
permuted rows or columns back in order.  A sum or a product over the layers binds its layer
variable alike; an index may be permuted, π_m(j), or offset, j+1, and depends on j either way.

Scalars that carry no index-level structure (α, 1/N, c_j, α_k) are sympy expressions inside a
``Const``; index-dependent scalars are sympy ``Indexed`` entries, so they keep their sign
assumptions.  Sizes (d, h, N, h_k) and index names (i, j, n, k+1) are plain strings: a term is
a statement about every value of them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from symbolic.logic.written import AsWritten
from symbolic.relu import ReLU, leaky_relu


# the inputs (x, and the second token x' of an attention score) and the targets: no map on parameters moves them
DATA_FAMILIES = frozenset({"x", "x'", "y"})

# every transformation built, each once (equal maps are one): the kernel refuses a definition of a
# name one maps or is parametrised by
TRANSFORMATIONS: dict = {}


# --- a permuted index: π_m(j), the image of the index j under a permutation π_m of {1, …, m} ------------

_PERMUTED = re.compile(r"\\pi_\{(?P<size>[^()]+?)\}\((?P<index>.+)\)")


def permuted(size: str, index: str) -> str:
    """The index π_m(j) with m = ``size``: the notation says that π_m is a permutation of {1, …, m}
    (one fixed permutation per size m, any one), so j ↦ π_m(j) is injective, and onto {1, …, m}."""
    return r"\pi_{%s}(%s)" % (size, index)


def permutation_of(index: str):
    """(m, j) for the index π_m(j), None for a plain index."""
    found = _PERMUTED.fullmatch(index)
    return None if found is None else (found.group("size"), found.group("index"))


_OFFSET = re.compile(r"(?P<base>.+?)\s*\+\s*(?P<offset>\d+)")


def offset_of(index: str):
    """(j, k) for the index j+k, None for an index without an offset."""
    found = _OFFSET.fullmatch(index)
    return None if found is None else (found.group("base"), found.group("offset"))


def index_variable(index: str) -> str:
    """The index name an index depends on: j for j, for j+1 and for π_m(j)."""
    found, offset = permutation_of(index), offset_of(index)
    if found is not None:
        return index_variable(found[1])
    return index if offset is None else index_variable(offset[0])


def renamed_index(index: str, renaming: dict) -> str:
    """The index with its variable renamed: π_m(j) with j ↦ l is π_m(l), j+1 is l+1."""
    found, offset = permutation_of(index), offset_of(index)
    if found is not None:
        size, inner = found
        return permuted(size, renamed_index(inner, renaming))
    if offset is not None:
        return "%s+%s" % (renamed_index(offset[0], renaming), offset[1])
    return renaming.get(index, index)


def renamed_scalar(expr: sp.Expr, renaming: dict) -> sp.Expr:
    """A scalar with the index variables of its integer symbols renamed (c_{π(j)} with j ↦ l is
    c_{π(l)}); ``renaming`` maps index names to index names."""
    renamed = {s: renamed_index(str(s), renaming) for s in expr.free_symbols
               if isinstance(s, sp.Symbol) and s == sp.Symbol(str(s), integer=True)}
    return expr.xreplace({s: sp.Symbol(name, integer=True) for s, name in renamed.items() if name != str(s)})


@dataclass(frozen=True)
class Const:
    """A scalar free of the parameters: a sympy expression (α, 1/N, c_j)."""
    expr: sp.Expr

    def __reduce__(self):
        # sent to another process, the scalar travels as written (sympy would evaluate it again)
        return Const, (AsWritten(self.expr),)

    @property
    def indices(self) -> frozenset:
        """Index names the scalar depends on: those of its indexed entries (c_j) and its integer
        symbols (the l, r of a Kronecker delta δ_lr)."""
        indexed = self.expr.atoms(sp.Indexed)
        inside = {str(s) for e in indexed for index in e.indices for s in index.free_symbols}
        labels = {e.base.label for e in indexed}          # the name of an indexed family is no index
        return frozenset(index_variable(i) for i in inside | {str(s) for s in self.expr.free_symbols
                                                                 if s.is_integer and not isinstance(s, sp.Indexed)
                                                                 and s not in labels})


@dataclass(frozen=True)
class Entry:
    """An entry of an indexed family: x_{ni}, W_{ij}, v_j, y_n, z^{(k)}_i."""
    family: str
    indices: tuple


@dataclass(frozen=True)
class Sum:
    """Σ_{index=1}^{size} body; ``size`` is a size symbol such as 'd'."""
    index: str
    size: str
    body: object


@dataclass(frozen=True)
class LayerSum:
    """Σ_{variable=1}^{last} body over the layers of a deep network: the layer variable (p) stands in
    family names (θ^{(p)}), scalars (α_p) and the sizes of sums (h_{p-1}); ``last`` is a layer
    such as 'K-1'.  It binds no index; no rule rewrites it, a rule only rewrites inside it."""
    variable: str
    last: str
    body: object


@dataclass(frozen=True)
class LayerProduct:
    """∏_{variable=1}^{last} body over the layers of a deep network, as ``LayerSum`` for a product;
    its own rules (``symbolic.trusted.axioms.index_rules``) peel its last factor and take scalars out."""
    variable: str
    last: str
    body: object


OVER_LAYERS = (LayerSum, LayerProduct)


@dataclass(frozen=True)
class SpectralNorm:
    """‖A‖₂, the largest singular value of the matrix A_ab = ``body``, a over ``rows`` = (a, its
    size), b over ``columns`` = (b, its size); ``columns`` None for a vector (one column), whose
    spectral norm is its Euclidean norm.  It binds its indices: the body's other indices are free."""
    body: object
    rows: tuple
    columns: tuple | None = None

    def __post_init__(self):
        if len(set(self.bound)) != len(self.bound):
            raise ValueError("a spectral norm's row and column indices must differ")

    @property
    def ranges(self) -> tuple:
        """(index, size) of the rows, then of the columns."""
        return (self.rows,) if self.columns is None else (self.rows, self.columns)

    @property
    def bound(self) -> tuple:
        return tuple(index for index, _ in self.ranges)


@dataclass(frozen=True)
class Mul:
    factors: tuple


@dataclass(frozen=True)
class Add:
    terms: tuple


@dataclass(frozen=True)
class Relu:
    arg: object


@dataclass(frozen=True)
class Activation:
    """A positively homogeneous activation other than ReLU: 'leaky' (s for s > 0, slope·s
    otherwise, the slope a fixed number) or 'abs'."""
    kind: str
    slope: object
    arg: object


@dataclass(frozen=True)
class Indicator:
    """1[arg > 0], the derivative of ReLU off its kink."""
    arg: object


@dataclass(frozen=True)
class Fn:
    """An arbitrary function applied to terms: the loss ℓ(f(x_n), y_n)."""
    name: str
    args: tuple


@dataclass(frozen=True)
class Deriv:
    """∂/∂coordinate [body], body a function of the parameters θ."""
    coordinate: Entry
    body: object


@dataclass(frozen=True)
class Function:
    """A function of θ defined by a term: L(θ) = (1/N) Σ_n ℓ(f_θ(x_n), y_n) named "L"."""
    name: str
    body: object


@dataclass(frozen=True)
class Transformation:
    """The map T on parameters, defined once as a term of the language: each parameter family
    with its image, e.g. W_ij ↦ α·W_ij, v_j ↦ α⁻¹·v_j.

    ``images`` holds (pattern entry, image term) pairs; a pattern's indices are variables, and so
    are the names in ``layer_variables`` inside a family name (θ^{(p)} ↦ α_p θ^{(p)} for every
    layer p).  ``outputs`` names derived quantities at Tθ: (family at θ, family at Tθ), e.g. the
    hidden layer z^{(k)} and its value \tilde z^{(k)} at Tθ, each defined by its own definition.
    """
    name: str
    images: tuple
    layer_variables: tuple = ()
    outputs: tuple = ()
    abbreviations: tuple = ()        # scalar names of the images that are defined, not parameters (P_k)

    def __post_init__(self):
        TRANSFORMATIONS[self] = None
        # an image speaks only of its pattern's indices and layers: any other name would be caught by
        # the sums of the term T is applied to
        for pattern, image in self.images:
            foreign = free_indices(image) - {index_variable(i) for i in pattern.indices} - set(self.layer_variables)
            if foreign:
                raise ValueError(f"{self.name}: the image of {pattern.family} depends on {', '.join(sorted(foreign))}, "
                                 "not an index of its pattern")
        # a map on the parameters moves no data: an input or a target given an image (or made a derived
        # quantity at Tθ) would let T applied to a term change what the term is evaluated on, and a
        # theorem T(term) = term would then say g(Tθ) = g(θ) of a g that changes at Tθ
        patterns = {pattern.family for pattern, _ in self.images}
        moved = sorted((patterns | {family for pair in self.outputs for family in pair}) & DATA_FAMILIES)
        if moved:
            raise ValueError(f"{self.name}: a map on the parameters moves no data, but it gives {', '.join(moved)} "
                             "an image")
        # a derived quantity is neither a parameter T maps nor one at Tθ: its two families are its own
        overlapping = sorted({family for pair in self.outputs for family in pair} & patterns)
        if overlapping:
            raise ValueError(f"{self.name}: {', '.join(overlapping)} is both a parameter family and a derived "
                             "quantity at T theta")

    def _image_template(self, entry):
        """(the pattern matching ``entry``, its image, the renaming of its variables), or None."""
        for pattern, image in self.images:
            renaming = _family_match(pattern.family, entry.family, self.layer_variables)
            if renaming is None or len(pattern.indices) != len(entry.indices):
                continue
            return pattern, image, renaming, dict(zip(pattern.indices, entry.indices))
        return None

    def pattern_of(self, entry):
        """The pattern whose image gives ``entry``'s, or None."""
        found = self._image_template(entry)
        return None if found is None else found[0]

    def readers(self, entry) -> list:
        """The patterns whose image may read ``entry``: it holds an entry of the same family (its
        layers, if any, not compared: θ^{(p-1)} may be θ^{(2)}) with as many indices, or a quantity that
        may depend on any parameter: a function of θ (an evaluation, a derivative), or an entry of a
        family that is neither data nor one T maps (a quantity defined from θ, say)."""
        stem = family_stem
        mapped = {stem(pattern.family) for pattern, _ in self.images} | DATA_FAMILIES

        def opaque(image):
            # a function of θ, or a family whose definition (not seen here) may read any parameter
            return "*" in families(image) or any(stem(e.family) not in mapped for e in entries_of(image))
        return [pattern for pattern, image in self.images
                if opaque(image)
                or any(stem(e.family) == stem(entry.family) and len(e.indices) == len(entry.indices)
                       for e in entries_of(image))]

    def lists(self, entry) -> bool:
        """Whether T's definition gives the image of ``entry``'s family."""
        return self._image_template(entry) is not None

    def image(self, entry):
        """T applied to one entry: its image with the pattern's variables renamed, or the entry
        itself when T leaves its family alone."""
        found = self._image_template(entry)
        if found is None:
            return entry
        _, image, layers, indices = found
        return _rename(image, layers, indices)

    def scale(self, entry):
        """t with (Tθ)_a = t·θ_a, read from the image of θ_a; None when the image is not a
        constant times the entry."""
        found = self.monomial(entry)
        return found[0] if found is not None and found[1] == entry else None

    def monomial(self, entry):
        """(t, θ_b) with (Tθ)_a = t·θ_b for the coordinate a = ``entry``, read from T's image of its
        family: a constant t times an entry θ_b of the same family whose every index is a's (a
        diagonal map) or its image π_m(·) under a permutation; the pattern's indices distinct, so
        that a ↦ b is injective (the pattern's indices plain names: no π(j), no j+1).  None when the
        image is not of that form."""
        found = self._image_template(entry)
        if found is None:
            return None
        pattern, template, layers, indices = found
        scale, moved = _scale_and_entry(template)
        if (moved is None or moved.family != pattern.family or len(moved.indices) != len(pattern.indices)
                or len(set(pattern.indices)) != len(pattern.indices)
                or any(index_variable(index) != index for index in pattern.indices)):
            return None
        for old, new in zip(pattern.indices, moved.indices):
            if new != old and (permutation_of(new) is None or permutation_of(new)[1] != old):
                return None
        return _rename(scale, layers, indices), _rename(moved, layers, indices)

    def apply(self, term):
        """The term with every parameter entry replaced by its image and every derived quantity
        by its value at Tθ."""
        if isinstance(term, Entry):
            for at_theta, at_T in self.outputs:
                if term.family == at_theta:
                    return Entry(at_T, term.indices)
            return self.image(term)
        if isinstance(term, (Const, Eval, Deriv)):
            return term
        return rebuild(term, tuple(self.apply(c) for c in children(term)))


def family_stem(family: str) -> str:
    """The family's name with its layers blanked: θ^{(p)}, θ^{(1)} and θ^{(k+1)} are all θ^{(#)}."""
    return re.sub(r"\(([^()]*)\)", "(#)", family)


def summation_bounds(body, family: str, arity: int, position: int) -> list:
    """The bound of the sum binding the index at ``position`` wherever ``body`` reads the family with
    ``arity`` indices, an occurrence at any layer counting (θ^{(p)} under a sum over the layers may be
    θ^{(1)}): the ranges a function reads that index over.  None where the index is free, permuted or
    offset (π_m(j) and j+1 do not run over the bound of j)."""
    def bounds(term, scope):
        if isinstance(term, Sum):
            scope = {**scope, term.index: term.size}
        if isinstance(term, Entry) and family_stem(term.family) == family_stem(family) and len(term.indices) == arity:
            index = term.indices[position]
            return [scope.get(index) if index_variable(index) == index else None]
        return [bound for child in children(term) for bound in bounds(child, scope)]
    return bounds(body, {})


def _scale_and_entry(image):
    """(c, θ_b) for an image c·θ_b, (1, θ_b) for θ_b; (None, None) otherwise."""
    if isinstance(image, Entry):
        return Const(sp.S.One), image
    if isinstance(image, Mul) and len(image.factors) == 2 and isinstance(image.factors[0], Const) \
            and isinstance(image.factors[1], Entry):
        return image.factors
    return None, None


def _family_match(pattern: str, family: str, variables: tuple):
    """The renaming of layer variables under which the family name ``pattern`` reads ``family``."""
    if not variables:
        return {} if pattern == family else None
    expression = re.escape(pattern)
    for name in variables:
        expression = expression.replace(re.escape("(%s)" % name), r"\((?P<%s>[^()]+)\)" % name)
    found = re.fullmatch(expression, family)
    return None if found is None else found.groupdict()


def layer_expr(text: str) -> sp.Expr:
    """A layer written 'k', 'k + 1', 'K-1' or '2' as an integer expression."""
    found = re.fullmatch(r"\s*([A-Za-z]\w*)?\s*(?:([+-])?\s*(\d+))?\s*", text)
    if found is None or not (found.group(1) or found.group(3)):
        raise ValueError(f"not a layer: {text!r}")
    name, sign, number = found.groups()
    offset = int(number or 0) * (-1 if sign == "-" else 1)
    return (sp.Symbol(name, integer=True) if name else sp.S.Zero) + offset


def layer_text(layer: sp.Expr) -> str:
    """The layer as it appears in a family name: 'k', 'k+1', 'K-1', '0'."""
    return str(layer).replace(" ", "")


def _substitute_in_size(size: str, variable: sp.Symbol, value: sp.Expr) -> str:
    """A size with the layer replaced in its subscript: h_{k} at k = 0 is h_{0}."""
    def layer(found):
        try:
            return "{%s}" % layer_text(layer_expr(found.group(1)).xreplace({variable: value}))
        except ValueError:
            return found.group(0)
    return re.sub(r"\{([^{}]*)\}", layer, size)


def _substitute_in_permutation(index: str, variable: sp.Symbol, value: sp.Expr) -> str:
    """π_{h_{k}}(j) at k = 0 is π_{h_{0}}(j): the layer reaches the range of a permutation."""
    found = permutation_of(index)
    if found is None:
        return index
    size, inner = found
    return permuted(_substitute_in_size(size, variable, value), _substitute_in_permutation(inner, variable, value))


def substitute_layer(term, variable: sp.Symbol, value: sp.Expr):
    """The term with the layer ``variable`` replaced by ``value`` everywhere: in scalars (P_k), in
    the layer of a family name (z^{(k)}, θ^{(k+1)}) and in the sizes of sums (h_{k}); a sum over
    the layers that binds ``variable`` keeps its body; ValueError where a binder would capture a
    name of ``value``."""
    return _substituted_layer(term, variable, value, frozenset(str(s) for s in sp.sympify(value).free_symbols))


def _substituted_layer(term, variable: sp.Symbol, value: sp.Expr, names: frozenset):
    captured = binds(term) & names
    if captured:
        raise ValueError(f"the layer {value} would be captured by the bound {', '.join(sorted(captured))}")

    def inside(child):
        return _substituted_layer(child, variable, value, names)
    if isinstance(term, Sum):
        body = term.body if term.index == str(variable) else inside(term.body)
        return Sum(term.index, _substitute_in_size(term.size, variable, value), body)
    if isinstance(term, SpectralNorm):
        ranges = [(index, _substitute_in_size(size, variable, value)) for index, size in term.ranges]
        return SpectralNorm(term.body if str(variable) in term.bound else inside(term.body), *ranges)
    if isinstance(term, OVER_LAYERS):
        last = layer_text(layer_expr(term.last).xreplace({variable: value}))
        return type(term)(term.variable, last, term.body if term.variable == str(variable) else inside(term.body))
    if isinstance(term, Const):
        return Const(term.expr.xreplace({variable: value}))
    if isinstance(term, Entry):
        def layer(found):
            return "(%s)" % layer_text(layer_expr(found.group(1)).xreplace({variable: value}))
        try:
            family = re.sub(r"\(([^()]*%s[^()]*)\)" % re.escape(str(variable)), layer, term.family)
        except ValueError:
            family = term.family
        return Entry(family, tuple(_substitute_in_permutation(i, variable, value) for i in term.indices))
    if isinstance(term, (Eval, Deriv)):
        raise TypeError("a layer is substituted in terms without derivatives")
    return rebuild(term, tuple(inside(c) for c in children(term)))


def _rename(term, layers: dict, indices: dict):
    """A pattern's image with its layer variables and index variables renamed; a name the image
    binds may not be renamed into (it would be captured)."""
    captured = {index_variable(i) for i in indices.values()} & bound_indices(term)
    if captured:
        raise ValueError(f"renaming into {', '.join(sorted(captured))}, which the image binds")
    return _renamed(term, layers, indices)


def _renamed(term, layers: dict, indices: dict):
    if isinstance(term, Const):
        substitution = {sp.Symbol(k, integer=True): layer_expr(v) for k, v in layers.items()}
        return Const(renamed_scalar(term.expr.xreplace(substitution), indices))
    if isinstance(term, Entry):
        family = term.family
        for name, value in layers.items():
            family = family.replace("(%s)" % name, "(%s)" % value)
        return Entry(family, tuple(renamed_index(i, indices) for i in term.indices))
    return rebuild(term, tuple(_renamed(c, layers, indices) for c in children(term)))


@dataclass(frozen=True)
class Eval:
    """(∂_{p_m} … ∂_{p_1} g)(point): a function of θ (its partials ``partials``, innermost first)
    evaluated at θ (point 'theta') or at the transformed parameters (point: the Transformation)."""
    function: Function
    partials: tuple
    point: object


# --- structure ---------------------------------------------------------------------------------

def children(term) -> tuple:
    if isinstance(term, (Sum, *OVER_LAYERS, SpectralNorm)):
        return (term.body,)
    if isinstance(term, Mul):
        return term.factors
    if isinstance(term, Add):
        return term.terms
    if isinstance(term, (Relu, Indicator, Activation)):
        return (term.arg,)
    if isinstance(term, Fn):
        return term.args
    if isinstance(term, Deriv):
        return (term.body,)
    return ()


def rebuild(term, new_children: tuple):
    """``term`` with its children replaced (same head)."""
    if isinstance(term, Sum):
        return Sum(term.index, term.size, new_children[0])
    if isinstance(term, OVER_LAYERS):
        return type(term)(term.variable, term.last, new_children[0])
    if isinstance(term, SpectralNorm):
        return SpectralNorm(new_children[0], term.rows, term.columns)
    if isinstance(term, Mul):
        return Mul(tuple(new_children))
    if isinstance(term, Add):
        return Add(tuple(new_children))
    if isinstance(term, Relu):
        return Relu(new_children[0])
    if isinstance(term, Indicator):
        return Indicator(new_children[0])
    if isinstance(term, Activation):
        return Activation(term.kind, term.slope, new_children[0])
    if isinstance(term, Fn):
        return Fn(term.name, tuple(new_children))
    if isinstance(term, Deriv):
        return Deriv(term.coordinate, new_children[0])
    return term


def same_head(a, b) -> bool:
    """Same constructor and the same non-term data, so that the terms differ only in children."""
    if type(a) is not type(b) or len(children(a)) != len(children(b)) or not children(a):
        return False
    if isinstance(a, Sum):
        return (a.index, a.size) == (b.index, b.size)
    if isinstance(a, OVER_LAYERS):
        return (a.variable, a.last) == (b.variable, b.last)
    if isinstance(a, SpectralNorm):
        return a.ranges == b.ranges
    if isinstance(a, Fn):
        return a.name == b.name
    if isinstance(a, Activation):
        return (a.kind, a.slope) == (b.kind, b.slope)
    if isinstance(a, Deriv):
        return a.coordinate == b.coordinate
    return True


def binds(term) -> frozenset:
    """The names the term's own head binds: a sum's index, a spectral norm's two, the layer variable
    of a sum or a product over the layers."""
    if isinstance(term, Sum):
        return frozenset({term.index})
    if isinstance(term, OVER_LAYERS):
        return frozenset({term.variable})
    return frozenset(term.bound) if isinstance(term, SpectralNorm) else frozenset()


def free_indices(term) -> frozenset:
    """Index names a term depends on (the indices of sums and of spectral norms are bound)."""
    if isinstance(term, Const):
        return term.indices
    if isinstance(term, Entry):
        return frozenset(index_variable(i) for i in term.indices)
    if isinstance(term, Eval):
        return frozenset(index_variable(i) for p in term.partials for i in p.indices)
    own = frozenset(index_variable(i) for i in term.coordinate.indices) if isinstance(term, Deriv) else frozenset()
    return own.union(*[free_indices(c) for c in children(term)]) - binds(term)


def difference(before, after, path=()):
    """Positions, innermost first, at which ``before`` turns into ``after``: the smallest subterm
    pair that differs, then each enclosing pair.  Empty when the terms are equal."""
    if before == after:
        return []
    if same_head(before, after):
        differing = [k for k, (x, y) in enumerate(zip(children(before), children(after))) if x != y]
        if len(differing) == 1:
            k = differing[0]
            inner = difference(children(before)[k], children(after)[k], path + (k,))
            return inner + [(path, before, after)]
    return [(path, before, after)]


# --- instances: the term at concrete sizes, as a sympy expression ------------------------------

def spectral_norm(matrix: sp.Matrix) -> sp.Expr:
    """‖A‖₂ = √λ_max(G), G the smaller Gram matrix of A (AᵀA or AAᵀ, which have the same non-zero
    eigenvalues), in closed form where G is 1×1 or 2×2 (``largest_gram_eigenvalue``); ValueError beyond."""
    return sp.sqrt(largest_gram_eigenvalue(matrix.T * matrix if matrix.cols <= matrix.rows else matrix * matrix.T))


def largest_gram_eigenvalue(gram: sp.Matrix) -> sp.Expr:
    """The largest eigenvalue of a symmetric positive semidefinite 1×1 or 2×2 matrix in closed form:
    g, or λ_max([[p, q], [q, r]]) = (p + r + √((p − r)² + 4q²))/2, the larger root of
    λ² − (p + r)λ + pr − q²; ValueError beyond."""
    if gram.shape == (1, 1):
        return gram[0, 0]
    if gram.shape == (2, 2):
        p, q, r = gram[0, 0], gram[0, 1], gram[1, 1]
        return (p + r + sp.sqrt((p - r) ** 2 + 4 * q ** 2)) / 2
    raise ValueError(f"no closed form for the largest eigenvalue of a {gram.rows}x{gram.cols} matrix")


def expand(term, sizes: dict, values: dict | None = None, functions: dict | None = None) -> sp.Expr:
    """The term at concrete sizes (``sizes`` maps a size symbol to an int): sums become finite
    sums, entries real symbols (a permuted index π_m(j) read from the mapping ``values["\\pi_{m}"]``),
    ReLU the project's ReLU, each Fn one undefined sympy function, a spectral norm its closed form
    (``spectral_norm``, matrices with a side of at most 2).
    Derivatives and Eval are not expanded (their instances are checked by the polynomial
    machinery of the proof scripts)."""
    values = values or {}
    functions = {} if functions is None else functions
    if isinstance(term, Const):
        substitution = {sp.Symbol(name, integer=True): value for name, value in values.items()
                        if isinstance(value, (int, sp.Integer))}
        expr = term.expr.xreplace(substitution)
        return expr.replace(lambda e: isinstance(e, sp.Indexed),
                            lambda e: sp.Symbol(f"{e.base}_{'_'.join(map(str, e.indices))}",
                                                **e.base.assumptions0))
    if isinstance(term, Entry):
        def value(index):
            permutation = permutation_of(index)
            if permutation is not None:      # π_m(j): the permutation given in ``values`` as a mapping
                size, inner = permutation
                return values[r"\pi_{%s}" % size][value(inner)]
            offset = offset_of(index)
            return values[index] if offset is None else value(offset[0]) + int(offset[1])
        return sp.Symbol(f"{term.family}_{'_'.join(str(value(i)) for i in term.indices)}", real=True)
    if isinstance(term, Sum):
        return sp.Add(*[expand(term.body, sizes, {**values, term.index: k}, functions)
                        for k in range(1, sizes[term.size] + 1)])
    if isinstance(term, OVER_LAYERS):
        last = layer_expr(term.last)
        if not last.is_Integer:
            raise ValueError(f"the last layer {term.last} is not a number: substitute the depth first")
        variable = sp.Symbol(term.variable, integer=True)
        combine = sp.Mul if isinstance(term, LayerProduct) else sp.Add
        return combine(*[expand(substitute_layer(term.body, variable, sp.Integer(p)), sizes, values, functions)
                         for p in range(1, int(last) + 1)])
    if isinstance(term, SpectralNorm):
        (row, rows), (column, columns) = term.rows, term.columns or (None, 1)
        matrix = sp.Matrix(sizes[rows], 1 if term.columns is None else sizes[columns],
                           lambda r, c: expand(term.body, sizes, {**values, row: r + 1,
                                                                  **({} if column is None else {column: c + 1})},
                                               functions))
        return spectral_norm(matrix)
    if isinstance(term, Mul):
        return sp.Mul(*[expand(f, sizes, values, functions) for f in term.factors])
    if isinstance(term, Add):
        return sp.Add(*[expand(t, sizes, values, functions) for t in term.terms])
    if isinstance(term, Relu):
        return ReLU(expand(term.arg, sizes, values, functions))
    if isinstance(term, Indicator):
        return sp.Heaviside(expand(term.arg, sizes, values, functions), 0)
    if isinstance(term, Activation):
        inner = expand(term.arg, sizes, values, functions)
        return sp.Abs(inner) if term.kind == "abs" else leaky_relu(inner, term.slope)
    if isinstance(term, Fn):
        function = functions.setdefault(term.name, sp.Function(f"ell{len(functions)}"))
        return function(*[expand(a, sizes, values, functions) for a in term.args])
    raise TypeError(f"{type(term).__name__} has no instance expansion")


def replace_first(term, wanted, rewrite):
    """``term`` with its first subterm (pre-order) for which ``wanted`` holds replaced by
    ``rewrite(subterm)``; None when there is none."""
    if wanted(term):
        return rewrite(term)
    for k, child in enumerate(children(term)):
        new = replace_first(child, wanted, rewrite)
        if new is not None:
            kids = list(children(term))
            kids[k] = new
            return rebuild(term, tuple(kids))
    return None


def substitute_index(term, old: str, new: str):
    """Every free occurrence of the index ``old`` replaced by ``new`` (sums binding ``old`` are
    left alone; a sum binding ``new`` would capture it, which the caller must rule out)."""
    if isinstance(term, Const):
        return Const(renamed_scalar(term.expr, {old: new}))
    if isinstance(term, Entry):
        return Entry(term.family, tuple(renamed_index(i, {old: new}) for i in term.indices))
    if old in binds(term):
        return term
    if isinstance(term, Deriv):
        return Deriv(substitute_index(term.coordinate, old, new), substitute_index(term.body, old, new))
    if isinstance(term, Eval):
        return Eval(term.function, tuple(substitute_index(p, old, new) for p in term.partials), term.point)
    return rebuild(term, tuple(substitute_index(c, old, new) for c in children(term)))


def entries_of(term) -> list:
    """The entries of the term, the coordinates of its derivatives and evaluations included."""
    if isinstance(term, Entry):
        return [term]
    own = [term.coordinate] if isinstance(term, Deriv) else list(term.partials) if isinstance(term, Eval) else []
    return own + [e for c in children(term) for e in entries_of(c)]


def bound_indices(term) -> frozenset:
    """Index names bound by a sum or a spectral norm somewhere inside the term."""
    return binds(term).union(*[bound_indices(c) for c in children(term)])


def families(term) -> frozenset:
    """The entry families occurring in the term (a derivative or evaluation counts as all)."""
    if isinstance(term, Entry):
        return frozenset({term.family})
    if isinstance(term, (Deriv, Eval)):
        return frozenset({"*"})
    return frozenset().union(*[families(c) for c in children(term)])


def first_subterm(term, wanted):
    """The first subterm (pre-order) for which ``wanted`` holds, or None."""
    if wanted(term):
        return term
    for child in children(term):
        found = first_subterm(child, wanted)
        if found is not None:
            return found
    return None


def constants(term) -> list:
    """The scalars of the term (its ``Const`` subterms), at any depth."""
    return [term] if isinstance(term, Const) else [c for child in children(term) for c in constants(child)]


def scalar_symbols(term) -> set:
    """The sympy symbols of the term's scalars (α of α W_ij, N of 1/N)."""
    if isinstance(term, Const):
        return set(term.expr.free_symbols)
    return set().union(*[scalar_symbols(child) for child in children(term)])

