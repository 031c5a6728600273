(** * Matrices: the determinant rule and the inverse pair, for every order, with mathcomp.

    Two rules of the kernel that are valid for every order are checked there on matrices of
    orders 1 to 3 only (symbolic/every_size/congruence.py, attention_rules.py); here they are
    proved for every order n, over every commutative ring (the reals among them). *)
From mathcomp Require Import ssreflect ssrfun ssrbool eqtype ssrnat seq fintype bigop ssralg matrix.
Set Implicit Arguments.
Unset Strict Implicit.
Unset Printing Implicit Defensive.
Import GRing.Theory.
Local Open Scope ring_scope.

(** Rule "det(P M P^T) = det(P)^2 det(M)": the multiplicativity of the determinant, and a
    matrix and its transpose have one determinant. *)
Lemma det_congruence (R : comRingType) (n : nat) (P M : 'M[R]_n) :
  \det (P *m M *m P^T) = \det P ^+ 2 * \det M.
Proof.
  (* det (P M P^T) = det P det M det P^T, and det P^T = det P *)
  rewrite !det_mulmx det_tr.
  (* the product reordered *)
  by rewrite expr2 mulrAC.
Qed.

(** Rule "A B^T = I for B = A^(-T)": for an invertible A of any order, B = (A^-1)^T realises the
    hypothesis A B^T = I of the attention head's score symmetry. *)
Lemma inverse_pair (R : comUnitRingType) (n : nat) (A : 'M[R]_n) :
  A \in unitmx -> A *m ((invmx A)^T)^T = 1%:M.
Proof.
  (* the transpose of a transpose is the matrix, and A A^-1 = I *)
  move=> HA. by rewrite trmxK mulmxV.
Qed.
