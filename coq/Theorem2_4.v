(** * The determinant of T_alpha, and a Hessian entry made large, for every d and h.

    What Theorem 2 and Theorem 4 rest on, named for what it is: the stdlib has no matrices, and
    T_alpha is the diagonal linear map theta |-> (t_a theta_a)_a, so its determinant is the product
    of its diagonal entries t_a over the d h + h coordinates ([t_alpha_determinant]; Theorem 2's
    statement on volumes is not proved here); a positive diagonal entry of the Hessian (partials)
    becomes as large as wanted at some T_alpha theta ([hessian_entry_W], [hessian_entry_v]).
    Theorem 4 itself, the spectral norm of the Hessian form made large, is [Frechet.theorem4_frechet]. *)
Require Import Reals Lra Lia FunctionalExtensionality List.
Require Import Sharp.Prelude Sharp.Partials Sharp.Diagonal Sharp.Theorem1 Sharp.Theorem3.
Open Scope R_scope.

(** ** The determinant of T_alpha: alpha^(n_1 - n_2), n_1 = d h, n_2 = h (Theorem 2's Jacobian) *)

(** All d h + h coordinates: the weights W_ij (i < d, j < h), then the output weights v_j. *)
Definition coords (d h : nat) : list coord :=
  map (fun p => Wc (fst p) (snd p)) (list_prod (seq 0 d) (seq 0 h)) ++ map Vc (seq 0 h).

Fixpoint lprod (cs : list coord) (f : coord -> R) : R :=
  match cs with
  | nil => 1
  | a :: cs' => f a * lprod cs' f
  end.

Lemma lprod_app (l1 l2 : list coord) (f : coord -> R) :
  lprod (l1 ++ l2) f = lprod l1 f * lprod l2 f.
Proof. induction l1 as [|a l1 IH]; simpl; [ring | rewrite IH; ring]. Qed.

(** A product of the same factor c over a list is c to its length. *)
Lemma lprod_map_const {A : Type} (g : A -> coord) (l : list A) (f : coord -> R) (c : R) :
  (forall x, f (g x) = c) -> lprod (map g l) f = c ^ length l.
Proof.
  intros H. induction l as [|x l IH]; simpl; [reflexivity | rewrite H, IH; reflexivity].
Qed.

Theorem t_alpha_determinant (d h : nat) (alpha : R) :
  lprod (coords d h) (t_alpha alpha) = alpha ^ (d * h) * (/ alpha) ^ h.
Proof.
  unfold coords. rewrite lprod_app.
  (* alpha on each of the d h weights, 1/alpha on each of the h output weights *)
  rewrite (lprod_map_const _ _ _ alpha) by reflexivity.
  rewrite (lprod_map_const _ _ _ (/ alpha)) by reflexivity.
  rewrite prod_length, !seq_length. reflexivity.
Qed.

(** T_alpha o T_beta = T_(alpha beta): the transformations form a group. *)
Theorem scale_compose (alpha beta : R) (th : param) :
  0 < alpha -> 0 < beta -> scale alpha (scale beta th) = scale (alpha * beta) th.
Proof.
  intros Ha Hb. apply functional_extensionality. intros [i j | j]; unfold scale, t_alpha.
  - ring.
  - rewrite Rinv_mult. ring.
Qed.

(** ** A positive diagonal entry of the Hessian made as large as wanted (Theorem 4's congruence)

    If H_aa(theta) = gamma > 0 at a weight W_ij (the Hessian at a minimum is positive
    semi-definite, so a non-zero one has such an entry, on W or on v), then for every M > 0 some
    alpha > 0 gives H_aa(T_alpha theta) >= M: gamma / alpha^2 on W (alpha small), alpha^2 gamma
    on v (alpha large).  The entry at T_alpha theta exists, by the transport of Theorem 3. *)
Section Theorem4.
Variables (d h : nat) (ell : ((nat -> R) -> R) -> R).

Theorem hessian_entry_W (i j : nat) (th : param) (d0 : R) (Da : param -> R) (gamma M : R) :
  partial_near coord_eq_dec (loss d h ell) (Wc i j) (Wc i j) th d0 Da ->
  partial Da (Wc i j) th gamma -> 0 < gamma -> 0 < M ->
  exists alpha, 0 < alpha /\
    exists d2 Ea m, partial_near coord_eq_dec (loss d h ell) (Wc i j) (Wc i j) (scale alpha th) d2 Ea /\
      partial Ea (Wc i j) (scale alpha th) m /\ M <= m.
Proof.
  intros HD HDa Hg HM.
  (* alpha = min(1, gamma / M): then alpha^2 <= alpha <= gamma / M *)
  set (alpha := Rmin 1 (gamma / M)).
  assert (Ha : 0 < alpha) by (apply Rmin_pos; [lra | apply Rdiv_lt_0_compat; lra]).
  exists alpha. split; [exact Ha|].
  (* the entry at T_alpha theta exists (the transport) and is gamma / alpha^2 (the Hessian law) *)
  destruct (theorem3_hessian_exists d h ell alpha Ha (Wc i j) (Wc i j) th d0 Da HD) as [d2 [Ea HE]].
  exists d2, Ea, (/ t_alpha alpha (Wc i j) * gamma * / t_alpha alpha (Wc i j)).
  split; [exact HE|]. split.
  - exact (proj1 (theorem3_hessian d h ell alpha Ha (Wc i j) (Wc i j) th d0 d2 Da Ea gamma HD HE) HDa).
  - (* M <= gamma / alpha^2 since M alpha^2 <= M alpha <= gamma *)
    simpl. assert (H1 : alpha <= 1) by apply Rmin_l. assert (H2 : alpha <= gamma / M) by apply Rmin_r.
    assert (H3 : alpha * M <= gamma).
    { apply (Rmult_le_compat_r M) in H2; [|lra].
      replace (gamma / M * M) with gamma in H2 by (field; lra). exact H2. }
    replace (/ alpha * gamma * / alpha) with (gamma / (alpha * alpha)) by (field; lra).
    apply (Rmult_le_reg_r (alpha * alpha)); [nra|].
    replace (gamma / (alpha * alpha) * (alpha * alpha)) with gamma by (field; lra).
    nra.
Qed.

Theorem hessian_entry_v (j : nat) (th : param) (d0 : R) (Da : param -> R) (gamma M : R) :
  partial_near coord_eq_dec (loss d h ell) (Vc j) (Vc j) th d0 Da ->
  partial Da (Vc j) th gamma -> 0 < gamma -> 0 < M ->
  exists alpha, 0 < alpha /\
    exists d2 Ea m, partial_near coord_eq_dec (loss d h ell) (Vc j) (Vc j) (scale alpha th) d2 Ea /\
      partial Ea (Vc j) (scale alpha th) m /\ M <= m.
Proof.
  intros HD HDa Hg HM.
  (* alpha = max(1, M / gamma): then alpha^2 gamma >= alpha gamma >= M *)
  set (alpha := Rmax 1 (M / gamma)).
  assert (H1 : 1 <= alpha) by apply Rmax_l. assert (H2 : M / gamma <= alpha) by apply Rmax_r.
  assert (Ha : 0 < alpha) by lra.
  exists alpha. split; [exact Ha|].
  (* the entry at T_alpha theta exists (the transport) and is alpha^2 gamma (the Hessian law) *)
  destruct (theorem3_hessian_exists d h ell alpha Ha (Vc j) (Vc j) th d0 Da HD) as [d2 [Ea HE]].
  exists d2, Ea, (/ t_alpha alpha (Vc j) * gamma * / t_alpha alpha (Vc j)).
  split; [exact HE|]. split.
  - exact (proj1 (theorem3_hessian d h ell alpha Ha (Vc j) (Vc j) th d0 d2 Da Ea gamma HD HE) HDa).
  - (* M <= alpha gamma <= alpha^2 gamma *)
    simpl. rewrite Rinv_inv.
    assert (H3 : M <= alpha * gamma).
    { apply (Rmult_le_compat_r gamma) in H2; [|lra].
      replace (M / gamma * gamma) with M in H2 by (field; lra). exact H2. }
    nra.
Qed.

End Theorem4.
