(** * Partial derivatives along a coordinate, and the derivative rules.

    A parameter is a function from a set of coordinates I (with decidable equality) to R, so the
    number of coordinates is whatever the network has: d h + h, or sum_k n_(k-1) n_k.  The partial
    derivative of G along coordinate a at theta is the one-variable derivative of
    r |-> G(theta with a set to r) at r = theta_a: the stdlib's [derivable_pt_lim], nothing more. *)
Require Import Reals Lra FunctionalExtensionality.
Require Import Sharp.Prelude.
Open Scope R_scope.

Section Partials.
Context {I : Type} (eq_dec : forall a b : I, {a = b} + {a <> b}).

(** theta with coordinate a set to r. *)
Definition upd (th : I -> R) (a : I) (r : R) : I -> R :=
  fun b => if eq_dec b a then r else th b.

(** "l is the partial derivative of G along a at theta". *)
Definition partial (G : (I -> R) -> R) (a : I) (th : I -> R) (l : R) : Prop :=
  derivable_pt_lim (fun r => G (upd th a r)) (th a) l.

(** A partial derivative is unique when it exists. *)
Lemma partial_unique (G : (I -> R) -> R) (a : I) (th : I -> R) (l m : R) :
  partial G a th l -> partial G a th m -> l = m.
Proof. apply uniqueness_limite. Qed.

Lemma upd_same (th : I -> R) (a : I) (r : R) : upd th a r a = r.
Proof. unfold upd. destruct (eq_dec a a); [reflexivity | contradiction]. Qed.

(** Setting a coordinate to its own value changes nothing. *)
Lemma upd_id (th : I -> R) (a : I) : upd th a (th a) = th.
Proof.
  apply functional_extensionality. intros b. unfold upd.
  destruct (eq_dec b a) as [->|]; reflexivity.
Qed.

(** ** The derivative rules of the kernel, for every number of coordinates *)

(** Rule "derivative of a constant". *)
Lemma partial_const (c : R) (a : I) (th : I -> R) : partial (fun _ => c) a th 0.
Proof.
  unfold partial. apply (derivable_pt_lim_ext (fct_cte c)); [reflexivity|].
  apply derivable_pt_lim_const.
Qed.

(** Rule "coordinate derivative": d theta_b / d theta_a = delta_ab. *)
Lemma partial_coord (b a : I) (th : I -> R) :
  partial (fun p => p b) a th (if eq_dec b a then 1 else 0).
Proof.
  unfold partial, upd. destruct (eq_dec b a) as [->|Hne].
  - (* along its own coordinate, theta_a is the identity of r *)
    apply (derivable_pt_lim_ext id); [reflexivity|]. apply derivable_pt_lim_id.
  - (* along another coordinate it is a constant *)
    apply (derivable_pt_lim_ext (fct_cte (th b))); [reflexivity|].
    apply derivable_pt_lim_const.
Qed.

(** Rule "derivative of a sum" (two terms). *)
Lemma partial_plus (G1 G2 : (I -> R) -> R) (a : I) (th : I -> R) (l1 l2 : R) :
  partial G1 a th l1 -> partial G2 a th l2 ->
  partial (fun p => G1 p + G2 p) a th (l1 + l2).
Proof.
  unfold partial. intros H1 H2.
  apply (derivable_pt_lim_ext (plus_fct (fun r => G1 (upd th a r)) (fun r => G2 (upd th a r))));
    [reflexivity|].
  apply derivable_pt_lim_plus; assumption.
Qed.

(** Rule "constant factor". *)
Lemma partial_scal (c : R) (G : (I -> R) -> R) (a : I) (th : I -> R) (l : R) :
  partial G a th l -> partial (fun p => c * G p) a th (c * l).
Proof.
  unfold partial. intros H.
  apply (derivable_pt_lim_ext (mult_real_fct c (fun r => G (upd th a r)))); [reflexivity|].
  apply derivable_pt_lim_scal. exact H.
Qed.

(** Rule "product rule". *)
Lemma partial_mult (G1 G2 : (I -> R) -> R) (a : I) (th : I -> R) (l1 l2 : R) :
  partial G1 a th l1 -> partial G2 a th l2 ->
  partial (fun p => G1 p * G2 p) a th (l1 * G2 th + G1 th * l2).
Proof.
  unfold partial. intros H1 H2.
  replace (G1 th) with (G1 (upd th a (th a))) by (rewrite upd_id; reflexivity).
  replace (G2 th) with (G2 (upd th a (th a))) by (rewrite upd_id; reflexivity).
  apply (derivable_pt_lim_ext (mult_fct (fun r => G1 (upd th a r)) (fun r => G2 (upd th a r))));
    [reflexivity|].
  apply derivable_pt_lim_mult; assumption.
Qed.

(** Rule "linearity of the derivative": a finite sum of terms, for every number n of terms. *)
Lemma partial_sum (n : nat) (G : nat -> (I -> R) -> R) (l : nat -> R) (a : I) (th : I -> R) :
  (forall k, (k < n)%nat -> partial (G k) a th (l k)) ->
  partial (fun p => sum n (fun k => G k p)) a th (sum n l).
Proof.
  induction n as [|n IH]; intros H; simpl.
  - (* the empty sum is the constant 0 *)
    apply partial_const.
  - (* the first n terms by induction, plus the last one *)
    apply (partial_plus (fun p => sum n (fun k => G k p)) (G n)).
    + apply IH. intros k Hk. apply H. auto.
    + apply H. auto.
Qed.

(** Rule "chain rule" through a function of one variable. *)
Lemma partial_comp (phi : R -> R) (G : (I -> R) -> R) (a : I) (th : I -> R) (l dphi : R) :
  partial G a th l -> derivable_pt_lim phi (G th) dphi ->
  partial (fun p => phi (G p)) a th (dphi * l).
Proof.
  unfold partial. intros HG Hphi. rewrite <- (upd_id th a) in Hphi.
  apply (derivable_pt_lim_ext (comp phi (fun r => G (upd th a r)))); [reflexivity|].
  apply derivable_pt_lim_comp; assumption.
Qed.

(** Rule "ReLU derivative": d_a[relu(s)] = 1[s > 0] d_a[s], off the kink s = 0. *)
Lemma partial_relu (G : (I -> R) -> R) (a : I) (th : I -> R) (l : R) :
  G th <> 0 -> partial G a th l -> partial (fun p => relu (G p)) a th (step (G th) * l).
Proof.
  intros Hs HG. apply partial_comp; [exact HG|].
  (* relu' is the step on each side of the kink *)
  unfold step. destruct (Rle_dec (G th) 0).
  - apply relu_derivative_neg. lra.
  - apply relu_derivative_pos. lra.
Qed.

(** Rule "indicator derivative": d_a[1[s > 0]] = 0, off the kink s = 0. *)
Lemma partial_step (G : (I -> R) -> R) (a : I) (th : I -> R) (l : R) :
  G th <> 0 -> partial G a th l -> partial (fun p => step (G p)) a th 0.
Proof.
  intros Hs HG. replace 0 with (0 * l) by ring.
  apply partial_comp; [exact HG | apply step_derivative; exact Hs].
Qed.

(** Rule "chain rule": for (T theta)_b = t_b theta_(sigma b) with sigma injective and g
    differentiable along a at T theta, d/d theta_(sigma a) [g(T theta)] = t_a (d_a g)(T theta). *)
Lemma chain_rule (t : I -> R) (sigma : I -> I) (g : (I -> R) -> R) (a : I) (th : I -> R) (l : R) :
  (forall b c, sigma b = sigma c -> b = c) ->
  partial g a (fun b => t b * th (sigma b)) l ->
  partial (fun p => g (fun b => t b * p (sigma b))) (sigma a) th (t a * l).
Proof.
  intros Hinj Hg. unfold partial in *.
  (* along theta_(sigma a), T theta moves along its own coordinate a only, at the speed t_a *)
  assert (E : forall r, (fun b => t b * upd th (sigma a) r (sigma b))
                        = upd (fun b => t b * th (sigma b)) a (t a * r)).
  { intros r. apply functional_extensionality. intros b. unfold upd.
    destruct (eq_dec (sigma b) (sigma a)) as [Hs|Hs]; destruct (eq_dec b a) as [->|Hba];
      try reflexivity; exfalso.
    - apply Hba. apply Hinj. exact Hs.
    - apply Hs. reflexivity. }
  apply (derivable_pt_lim_ext (comp (fun r => g (upd (fun b => t b * th (sigma b)) a r))
                                    (fun r => t a * r))).
  { intros r. unfold comp. cbv beta. rewrite E. reflexivity. }
  replace (t a * l) with (l * t a) by ring.
  apply derivable_pt_lim_comp.
  - (* the inner map r |-> t_a r has derivative t_a *)
    apply (derivable_pt_lim_ext (mult_real_fct (t a) id)); [reflexivity|].
    replace (t a) with (t a * 1) at 2 by ring.
    apply derivable_pt_lim_scal. apply derivable_pt_lim_id.
  - (* the outer one is g's partial at (T theta)_a = t_a theta_(sigma a) *)
    exact Hg.
Qed.

End Partials.
