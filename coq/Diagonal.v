(** * Theorem 3 for every diagonal rescaling that leaves the loss unchanged.

    T theta = (t_a theta_a)_a with every t_a <> 0, and L o T = L.  The paper's T_alpha
    (t = alpha on theta_1, 1/alpha on theta_2), the per-neuron rescalings and the multi-layer
    T_alpha (prod alpha_k = 1, with or without biases) are all of this form, so one proof here
    gives each of them its gradient law grad L(T theta) = S grad L(theta), its Hessian law
    H(T theta) = S H(theta) S with S = diag(1/t_a), and the forms DL[u], H[u, w].

    The differentiability hypotheses are stated where they are used, and "L has a partial
    derivative along a at T theta exactly when at theta" is proved (the only analytic fact used
    is the one-variable chain rule through r |-> r / t_a). *)
Require Import Reals Lra FunctionalExtensionality List.
Require Import Sharp.Prelude Sharp.Partials.
Open Scope R_scope.

Section Diagonal.
Context {I : Type} (eq_dec : forall a b : I, {a = b} + {a <> b}).
Variable t : I -> R.
Hypothesis t_nz : forall a, t a <> 0.

Definition T (th : I -> R) : I -> R := fun a => t a * th a.

Notation upd := (upd eq_dec).
Notation partial := (partial eq_dec).

(** Changing one coordinate commutes with T. *)
Lemma T_upd (th : I -> R) (a : I) (r : R) : T (upd th a r) = upd (T th) a (t a * r).
Proof.
  apply functional_extensionality. intros b. unfold T, Partials.upd.
  destruct (eq_dec b a) as [->|]; reflexivity.
Qed.

(** ** The transport of one partial derivative

    If G' along the a-line through T theta is c times G along the a-line through theta (near
    the point), then G has the partial l at theta exactly when G' has c l / t_a at T theta. *)
Lemma partial_transport (G G' : (I -> R) -> R) (c : R) (a : I) (th : I -> R) (d0 l : R) :
  c <> 0 -> 0 < d0 ->
  (forall r, Rabs (r - t a * th a) < d0 -> G' (upd (T th) a r) = c * G (upd th a (r / t a))) ->
  (partial G a th l <-> partial G' a (T th) (c * l / t a)).
Proof.
  intros Hc Hd Heq. assert (Ht := t_nz a). unfold partial. split; intros H.
  - (* G' near t_a theta_a is r |-> c G(theta with a set to r / t_a) *)
    apply (derivable_pt_lim_local (mult_real_fct c (comp (fun s => G (upd th a s))
                                                          (fun r => r / t a))) _ _ _ d0 Hd).
    { intros y Hy. unfold mult_real_fct, comp. symmetry. apply Heq. exact Hy. }
    replace (c * l / t a) with (c * (l * / t a)) by (field; exact Ht).
    apply derivable_pt_lim_scal. apply derivable_pt_lim_comp.
    + (* the inner map r |-> r / t_a has derivative 1 / t_a *)
      apply (derivable_pt_lim_ext (mult_real_fct (/ t a) id)).
      { intros y. unfold mult_real_fct, id, Rdiv. ring. }
      replace (/ t a) with (/ t a * 1) at 2 by ring.
      apply derivable_pt_lim_scal. apply derivable_pt_lim_id.
    + (* the outer one is G's line at theta_a = (t_a theta_a) / t_a *)
      replace (T th a / t a) with (th a) by (unfold T; field; exact Ht). exact H.
  - (* conversely G near theta_a is s |-> (1/c) G'(T theta with a set to t_a s) *)
    assert (Hd' : 0 < d0 / Rabs (t a)) by (apply Rdiv_lt_0_compat; [exact Hd | apply Rabs_pos_lt; exact Ht]).
    apply (derivable_pt_lim_local (mult_real_fct (/ c) (comp (fun r => G' (upd (T th) a r))
                                                             (fun s => t a * s))) _ _ _ _ Hd').
    { intros y Hy. unfold mult_real_fct, comp. rewrite Heq.
      - replace (t a * y / t a) with y by (field; exact Ht). field. exact Hc.
      - (* t_a y is near t_a theta_a *)
        replace (t a * y - t a * th a) with (t a * (y - th a)) by ring.
        rewrite Rabs_mult. apply Rabs_pos_lt in Ht.
        replace d0 with (Rabs (t a) * (d0 / Rabs (t a))) by (field; lra).
        apply Rmult_lt_compat_l; assumption. }
    replace l with (/ c * (c * l / t a * t a)) by (field; split; assumption).
    apply derivable_pt_lim_scal. apply derivable_pt_lim_comp.
    + (* the inner map s |-> t_a s has derivative t_a *)
      apply (derivable_pt_lim_ext (mult_real_fct (t a) id)).
      { intros y. reflexivity. }
      replace (t a) with (t a * 1) at 2 by ring.
      apply derivable_pt_lim_scal. apply derivable_pt_lim_id.
    + exact H.
Qed.

(** ** The gradient law: grad L(T theta) = S grad L(theta), S = diag(1/t_a) *)

Variable L : (I -> R) -> R.
Hypothesis L_inv : forall th, L (T th) = L th.

(** L along the a-line through T theta is L along the a-line through theta, rescaled. *)
Lemma L_line (th : I -> R) (a : I) (r : R) : L (upd (T th) a r) = 1 * L (upd th a (r / t a)).
Proof.
  rewrite <- (L_inv (upd th a (r / t a))), T_upd.
  replace (t a * (r / t a)) with r by (field; apply t_nz). ring.
Qed.

Theorem gradient_law (a : I) (th : I -> R) (l : R) :
  partial L a th l <-> partial L a (T th) (/ t a * l).
Proof.
  (* the transport with c = 1 and G = G' = L, on the whole line *)
  replace (/ t a * l) with (1 * l / t a) by (field; apply t_nz).
  apply (partial_transport L L 1 a th 1 l); [lra | lra |].
  intros r _. apply L_line.
Qed.

(** The transport: L has a partial derivative along a at T theta exactly when at theta. *)
Theorem differentiable_transport (a : I) (th : I -> R) :
  (exists l, partial L a th l) <-> (exists m, partial L a (T th) m).
Proof.
  split.
  - (* the gradient law gives the partial at T theta *)
    intros [l Hl]. exists (/ t a * l). exact (proj1 (gradient_law a th l) Hl).
  - (* and back, with l = t_a m *)
    intros [m Hm]. exists (t a * m). apply (proj2 (gradient_law a th (t a * m))).
    replace (/ t a * (t a * m)) with m by (field; apply t_nz). exact Hm.
Qed.

(** ** The Hessian law: H(T theta) = S H(theta) S *)

(** "Da is L's partial along a at every point of the b-line through theta within d0". *)
Definition partial_near (a b : I) (th : I -> R) (d0 : R) (Da : (I -> R) -> R) : Prop :=
  0 < d0 /\ forall r, Rabs (r - th b) < d0 -> partial L a (upd th b r) (Da (upd th b r)).

(** The Hessian entry H_ab(theta) is the partial along b, at theta, of such a Da. *)
Theorem hessian_law (a b : I) (th : I -> R) (d1 d2 : R) (Da Ea : (I -> R) -> R) (hh : R) :
  partial_near a b th d1 Da -> partial_near a b (T th) d2 Ea ->
  (partial Da b th hh <-> partial Ea b (T th) (/ t a * hh * / t b)).
Proof.
  intros [Hd1 HD] [Hd2 HE]. assert (Hta := t_nz a). assert (Htb := t_nz b).
  assert (Hab : 0 < Rabs (t b)) by (apply Rabs_pos_lt; exact Htb).
  replace (/ t a * hh * / t b) with (/ t a * hh / t b) by (field; split; assumption).
  (* on the b-line, near T theta, Ea is Da at the preimage divided by t_a *)
  apply (partial_transport Da Ea (/ t a) b th (Rmin d2 (Rabs (t b) * d1)) hh).
  - apply Rinv_neq_0_compat. exact Hta.
  - apply Rmin_pos; [exact Hd2 | apply Rmult_lt_0_compat; assumption].
  - intros r Hr.
    assert (Hr2 : Rabs (r - t b * th b) < d2) by (eapply Rlt_le_trans; [exact Hr | apply Rmin_l]).
    assert (Hr1 : Rabs (r / t b - th b) < d1).
    { (* r / t_b is near theta_b *)
      assert (Hr' : Rabs (r - t b * th b) < Rabs (t b) * d1)
        by (eapply Rlt_le_trans; [exact Hr | apply Rmin_r]).
      replace (r / t b - th b) with ((r - t b * th b) / t b) by (field; exact Htb).
      unfold Rdiv. rewrite Rabs_mult, Rabs_inv.
      apply (Rmult_lt_reg_l (Rabs (t b))); [exact Hab|].
      replace (Rabs (t b) * (Rabs (r - t b * th b) * / Rabs (t b)))
        with (Rabs (r - t b * th b)) by (field; lra). exact Hr'. }
    (* the point of the b-line through T theta is T of a point of the b-line through theta *)
    assert (HT : upd (T th) b r = T (upd th b (r / t b))).
    { rewrite T_upd. f_equal. field. exact Htb. }
    (* there the gradient law and uniqueness give Ea = Da / t_a *)
    specialize (HD (r / t b) Hr1). specialize (HE r Hr2).
    apply (proj1 (gradient_law _ _ _)) in HD. rewrite HT in HE |- *.
    apply (partial_unique eq_dec L a _ _ _ HE HD).
Qed.

(** The transport for second derivatives: if L has a-partials Da along the b-line near theta,
    then it has a-partials along the b-line near T theta, namely Da(T^-1 .) / t_a. *)
Definition Tinv (th : I -> R) : I -> R := fun a => th a / t a.

Theorem partial_near_transport (a b : I) (th : I -> R) (d0 : R) (Da : (I -> R) -> R) :
  partial_near a b th d0 Da ->
  partial_near a b (T th) (Rabs (t b) * d0) (fun p => / t a * Da (Tinv p)).
Proof.
  intros [Hd HD]. assert (Htb := t_nz b).
  assert (Hab : 0 < Rabs (t b)) by (apply Rabs_pos_lt; exact Htb).
  split; [apply Rmult_lt_0_compat; assumption|]. intros r Hr.
  (* the point is T of the point r / t_b of the b-line through theta *)
  assert (HT : upd (T th) b r = T (upd th b (r / t b))).
  { rewrite T_upd. f_equal. field. exact Htb. }
  (* T^-1 of that point is the point itself *)
  assert (Hp : Tinv (T (upd th b (r / t b))) = upd th b (r / t b)).
  { apply functional_extensionality. intros c. unfold Tinv, T. field. apply t_nz. }
  rewrite HT, Hp.
  (* the gradient law at that point *)
  apply (proj1 (gradient_law _ _ _)). apply HD.
  (* r / t_b is within d0 of theta_b *)
  replace (r / t b - th b) with ((r - t b * th b) / t b) by (field; exact Htb).
  unfold Rdiv. rewrite Rabs_mult, Rabs_inv.
  apply (Rmult_lt_reg_l (Rabs (t b))); [exact Hab|].
  replace (Rabs (t b) * (Rabs (r - t b * th b) * / Rabs (t b)))
    with (Rabs (r - t b * th b)) by (field; lra).
  exact Hr.
Qed.

(** ** The forms DL[u] = sum_a u_a d_a L and H[u, w] = sum_ab u_a H_ab w_b *)

(** Sums over a finite list of coordinates (all of a network's coordinates, whatever their number). *)
Fixpoint lsum (cs : list I) (f : I -> R) : R :=
  match cs with
  | nil => 0
  | a :: cs' => f a + lsum cs' f
  end.

Lemma lsum_ext (cs : list I) (f g : I -> R) :
  (forall a, In a cs -> f a = g a) -> lsum cs f = lsum cs g.
Proof.
  induction cs as [|a cs IH]; simpl; intros H; [reflexivity|].
  rewrite H, IH by auto. reflexivity.
Qed.

Definition DL (cs : list I) (g u : I -> R) : R := lsum cs (fun a => g a * u a).

Definition HL (cs : list I) (H : I -> I -> R) (u w : I -> R) : R :=
  lsum cs (fun a => lsum cs (fun b => u a * H a b * w b)).

(** S u = (u_a / t_a)_a. *)
Definition Sdiag (u : I -> R) : I -> R := fun a => / t a * u a.

(** DL(T theta)[u] = DL(theta)[S u], for the gradients g at theta and g' at T theta. *)
Theorem gradient_form (cs : list I) (th : I -> R) (g g' u : I -> R) :
  (forall a, In a cs -> partial L a th (g a)) ->
  (forall a, In a cs -> partial L a (T th) (g' a)) ->
  DL cs g' u = DL cs g (Sdiag u).
Proof.
  intros Hg Hg'. unfold DL, Sdiag. apply lsum_ext. intros a Ha.
  (* each partial at T theta is g_a / t_a, by the gradient law and uniqueness *)
  rewrite (partial_unique eq_dec L a (T th) (g' a) (/ t a * g a)).
  - ring.
  - apply Hg'. exact Ha.
  - exact (proj1 (gradient_law a th (g a)) (Hg a Ha)).
Qed.

(** H(T theta)[u, w] = H(theta)[S u, S w], for Hessians H at theta and H' at T theta. *)
Theorem hessian_form (cs : list I) (th : I -> R) (D E : I -> (I -> R) -> R)
    (H H' : I -> I -> R) (u w : I -> R) :
  (forall a b, In a cs -> In b cs -> exists d0, partial_near a b th d0 (D a)) ->
  (forall a b, In a cs -> In b cs -> exists d0, partial_near a b (T th) d0 (E a)) ->
  (forall a b, In a cs -> In b cs -> partial (D a) b th (H a b)) ->
  (forall a b, In a cs -> In b cs -> partial (E a) b (T th) (H' a b)) ->
  HL cs H' u w = HL cs H (Sdiag u) (Sdiag w).
Proof.
  intros HD HE HH HH'. unfold HL, Sdiag. apply lsum_ext. intros a Ha. apply lsum_ext. intros b Hb.
  destruct (HD a b Ha Hb) as [d1 H1]. destruct (HE a b Ha Hb) as [d2 H2].
  (* each entry at T theta is H_ab / (t_a t_b), by the Hessian law and uniqueness *)
  rewrite (partial_unique eq_dec (E a) b (T th) (H' a b) (/ t a * H a b * / t b)).
  - ring.
  - apply HH'; assumption.
  - apply (hessian_law a b th d1 d2 (D a) (E a)); [exact H1 | exact H2 | apply HH; assumption].
Qed.

End Diagonal.
