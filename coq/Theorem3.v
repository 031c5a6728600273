(** * Theorem 3: the gradient and the Hessian under T_alpha, and per-neuron rescaling.

    The one-hidden-layer network of Theorem 1, for every d and h.  Both maps are diagonal and
    leave the loss unchanged, so Theorem 3 is the diagonal law of [Diagonal] at S = diag(1/t). *)
Require Import Reals Lra Lia FunctionalExtensionality List.
Require Import Sharp.Prelude Sharp.Partials Sharp.Diagonal Sharp.Theorem1.
Open Scope R_scope.

Notation partial := (partial coord_eq_dec).

(** ** Theorem 3 for T_alpha *)

Section Theorem3.
Variables (d h : nat) (ell : ((nat -> R) -> R) -> R) (alpha : R).
Hypothesis alpha_pos : 0 < alpha.

Lemma t_alpha_nz (a : coord) : t_alpha alpha a <> 0.
Proof.
  destruct a; simpl; [lra | apply Rinv_neq_0_compat; lra].
Qed.

(** T_alpha is the diagonal map of [Diagonal] with t = t_alpha, and L o T_alpha = L. *)
Lemma scale_is_T (th : param) : scale alpha th = T (t_alpha alpha) th.
Proof. reflexivity. Qed.

Lemma loss_inv (th : param) : loss d h ell (T (t_alpha alpha) th) = loss d h ell th.
Proof. apply theorem1_loss. exact alpha_pos. Qed.

(** The gradient law, entry by entry: d_a L(T_alpha theta) = (1/t_a) d_a L(theta), that is
    (1/alpha) on the weights W_ij and alpha on the output weights v_j. *)
Theorem theorem3_gradient (a : coord) (th : param) (l : R) :
  partial (loss d h ell) a th l <->
  partial (loss d h ell) a (scale alpha th) (/ t_alpha alpha a * l).
Proof. apply gradient_law; [exact t_alpha_nz | exact loss_inv]. Qed.

Corollary theorem3_gradient_W (i j : nat) (th : param) (l : R) :
  partial (loss d h ell) (Wc i j) th l <->
  partial (loss d h ell) (Wc i j) (scale alpha th) (l / alpha).
Proof.
  replace (l / alpha) with (/ t_alpha alpha (Wc i j) * l) by (simpl; field; lra).
  apply theorem3_gradient.
Qed.

Corollary theorem3_gradient_v (j : nat) (th : param) (l : R) :
  partial (loss d h ell) (Vc j) th l <->
  partial (loss d h ell) (Vc j) (scale alpha th) (alpha * l).
Proof.
  replace (alpha * l) with (/ t_alpha alpha (Vc j) * l) by (simpl; rewrite Rinv_inv; ring).
  apply theorem3_gradient.
Qed.

(** L is differentiable along a at T_alpha theta exactly when at theta. *)
Theorem theorem3_differentiable (a : coord) (th : param) :
  (exists l, partial (loss d h ell) a th l) <->
  (exists m, partial (loss d h ell) a (scale alpha th) m).
Proof. apply differentiable_transport; [exact t_alpha_nz | exact loss_inv]. Qed.

(** The Hessian law, entry by entry: H_ab(T_alpha theta) = (1/t_a) H_ab(theta) (1/t_b), given
    L's a-partials Da near theta and Ea near T_alpha theta along the b-line. *)
Theorem theorem3_hessian (a b : coord) (th : param) (d1 d2 : R) (Da Ea : param -> R) (hh : R) :
  partial_near coord_eq_dec (loss d h ell) a b th d1 Da ->
  partial_near coord_eq_dec (loss d h ell) a b (scale alpha th) d2 Ea ->
  (partial Da b th hh <->
   partial Ea b (scale alpha th) (/ t_alpha alpha a * hh * / t_alpha alpha b)).
Proof. apply hessian_law; [exact t_alpha_nz | exact loss_inv]. Qed.

(** Such Ea exist near T_alpha theta as soon as Da exist near theta. *)
Theorem theorem3_hessian_exists (a b : coord) (th : param) (d0 : R) (Da : param -> R) :
  partial_near coord_eq_dec (loss d h ell) a b th d0 Da ->
  exists d2 Ea, partial_near coord_eq_dec (loss d h ell) a b (scale alpha th) d2 Ea.
Proof.
  intros H. exists (Rabs (t_alpha alpha b) * d0). eexists.
  apply (partial_near_transport coord_eq_dec (t_alpha alpha) t_alpha_nz); [exact loss_inv | exact H].
Qed.

(** The forms: DL(T_alpha theta)[u] = DL(theta)[S u] over any list of coordinates (for instance
    all d h + h of them), and H(T_alpha theta)[u, w] = H(theta)[S u, S w]. *)
Theorem theorem3_gradient_form (cs : list coord) (th : param) (g g' u : param) :
  (forall a, In a cs -> partial (loss d h ell) a th (g a)) ->
  (forall a, In a cs -> partial (loss d h ell) a (scale alpha th) (g' a)) ->
  DL cs g' u = DL cs g (Sdiag (t_alpha alpha) u).
Proof. apply gradient_form; [exact t_alpha_nz | exact loss_inv]. Qed.

Theorem theorem3_hessian_form (cs : list coord) (th : param) (D E : coord -> param -> R)
    (H H' : coord -> coord -> R) (u w : param) :
  (forall a b, In a cs -> In b cs -> exists d0, partial_near coord_eq_dec (loss d h ell) a b th d0 (D a)) ->
  (forall a b, In a cs -> In b cs ->
     exists d0, partial_near coord_eq_dec (loss d h ell) a b (scale alpha th) d0 (E a)) ->
  (forall a b, In a cs -> In b cs -> partial (D a) b th (H a b)) ->
  (forall a b, In a cs -> In b cs -> partial (E a) b (scale alpha th) (H' a b)) ->
  HL cs H' u w = HL cs H (Sdiag (t_alpha alpha) u) (Sdiag (t_alpha alpha) w).
Proof. apply hessian_form; [exact t_alpha_nz | exact loss_inv]. Qed.

End Theorem3.

(** ** Per-neuron rescaling: W_ij -> c_j W_ij, v_j -> v_j / c_j, every c_j > 0 *)

Section PerNeuron.
Variables (d h : nat) (ell : ((nat -> R) -> R) -> R) (c : nat -> R).
Hypothesis c_pos : forall j, 0 < c j.

Definition t_neuron (a : coord) : R :=
  match a with
  | Wc _ j => c j
  | Vc j => / c j
  end.

Lemma t_neuron_nz (a : coord) : t_neuron a <> 0.
Proof.
  destruct a as [i j | j]; simpl; specialize (c_pos j); [lra | apply Rinv_neq_0_compat; lra].
Qed.

Theorem per_neuron_prediction (th : param) :
  predict d h (T t_neuron th) = predict d h th.
Proof.
  apply functional_extensionality. intros x.
  unfold predict, T, t_neuron. apply sum_ext. intros j _.
  (* the pre-activation of unit j is c_j times the original one *)
  rewrite (sum_ext d _ (fun i => c j * (x i * th (Wc i j)))) by (intros; ring).
  rewrite sum_factor.
  (* pull c_j out of the rectifier, then c_j / c_j = 1 *)
  rewrite relu_pos_hom by apply c_pos.
  field. specialize (c_pos j). lra.
Qed.

Theorem per_neuron_loss (th : param) : loss d h ell (T t_neuron th) = loss d h ell th.
Proof. unfold loss. rewrite per_neuron_prediction. reflexivity. Qed.

(** Its gradient and Hessian laws, S = diag(1/c_j on W_ij, c_j on v_j). *)
Theorem per_neuron_gradient (a : coord) (th : param) (l : R) :
  partial (loss d h ell) a th l <->
  partial (loss d h ell) a (T t_neuron th) (/ t_neuron a * l).
Proof. apply gradient_law; [exact t_neuron_nz | exact per_neuron_loss]. Qed.

Theorem per_neuron_hessian (a b : coord) (th : param) (d1 d2 : R) (Da Ea : param -> R) (hh : R) :
  partial_near coord_eq_dec (loss d h ell) a b th d1 Da ->
  partial_near coord_eq_dec (loss d h ell) a b (T t_neuron th) d2 Ea ->
  (partial Da b th hh <-> partial Ea b (T t_neuron th) (/ t_neuron a * hh * / t_neuron b)).
Proof. apply hessian_law; [exact t_neuron_nz | exact per_neuron_loss]. Qed.

End PerNeuron.
