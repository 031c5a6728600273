(** * Many layers: the multi-layer law (prod alpha_k = 1), per-neuron rescaling at every depth,
    and the biases of Appendix B.

    A network of depth K >= 1 with widths n_0 (the input), n_1, ..., n_K (the output), weights
    theta^(k)_ij from unit i of layer k - 1 to unit j of layer k, and biases b^(k)_j:
      act_0 = x,  pre_k j = sum_{i < n_(k-1)} act_(k-1) i theta^(k)_ij + b^(k)_j,
      act_k = relu (pre_k) for k < K,  and the output is pre_K.
    Every depth K and every list of widths n : nat -> nat. *)
Require Import Reals Lra Lia FunctionalExtensionality List.
Require Import Sharp.Prelude Sharp.Partials Sharp.Diagonal.
Open Scope R_scope.

(** ** The network *)

Inductive dcoord : Type :=
  | Wt (k i j : nat)
  | Bs (k j : nat).

Lemma dcoord_eq_dec (a b : dcoord) : {a = b} + {a <> b}.
Proof. decide equality; apply Nat.eq_dec. Qed.

Definition dparam : Type := dcoord -> R.

Section Network.
Variable n : nat -> nat.

(** The activations of layer k (the input at k = 0). *)
Fixpoint act (th : dparam) (x : nat -> R) (k : nat) : nat -> R :=
  match k with
  | O => x
  | S k' => fun j => relu (sum (n k') (fun i => act th x k' i * th (Wt k i j)) + th (Bs k j))
  end.

(** The pre-activation of layer k + 1. *)
Definition pre (th : dparam) (x : nat -> R) (k : nat) (j : nat) : R :=
  sum (n k) (fun i => act th x k i * th (Wt (S k) i j)) + th (Bs (S k) j).

(** The output of a network of depth K = K' + 1: the pre-activation of its last layer. *)
Definition net (K' : nat) (th : dparam) (x : nat -> R) : nat -> R := pre th x K'.

Definition dloss (K' : nat) (ell : ((nat -> R) -> nat -> R) -> R) (th : dparam) : R :=
  ell (net K' th).

(** The network without biases is the network whose biases are 0. *)
Definition nobias (th : dparam) : dparam :=
  fun a => match a with Bs _ _ => 0 | _ => th a end.

Definition net0 (K' : nat) (th : dparam) : (nat -> R) -> nat -> R := net K' (nobias th).
Definition dloss0 (K' : nat) (ell : ((nat -> R) -> nat -> R) -> R) (th : dparam) : R :=
  ell (net0 K' th).

(** ** Per-neuron rescaling at every depth, with biases

    c^(k)_j > 0 for each unit, c^(0) = 1 on the inputs and c^(K) = 1 on the outputs:
    theta^(k)_ij -> c^(k)_j theta^(k)_ij / c^(k-1)_i and b^(k)_j -> c^(k)_j b^(k)_j. *)
Variable K' : nat.
Variable c : nat -> nat -> R.
Hypothesis c_pos : forall k j, 0 < c k j.
Hypothesis c_in : forall i, c O i = 1.
Hypothesis c_out : forall j, c (S K') j = 1.

Definition t_unit (a : dcoord) : R :=
  match a with
  | Wt (S k) i j => c (S k) j / c k i
  | Wt O _ _ => 1
  | Bs k j => c k j
  end.

Lemma t_unit_nz (a : dcoord) : t_unit a <> 0.
Proof.
  destruct a as [[|k] i j | k j]; simpl.
  - lra.
  - assert (H1 := c_pos (S k) j). assert (H2 := c_pos k i).
    apply Rgt_not_eq. apply Rdiv_lt_0_compat; assumption.
  - assert (H := c_pos k j). lra.
Qed.

(** A layer whose inputs are rescaled unit by unit, c^(k)_i, has its pre-activations rescaled
    unit by unit, c^(k+1)_j. *)
Lemma pre_unit_of_act (th : dparam) (x : nat -> R) (k : nat) :
  (forall i, act (T t_unit th) x k i = c k i * act th x k i) ->
  forall j, pre (T t_unit th) x k j = c (S k) j * pre th x k j.
Proof.
  intros Hact j. unfold pre, T. simpl.
  (* each term: c^(k)_i act_k i (c^(k+1)_j / c^(k)_i) theta_ij = c^(k+1)_j act_k i theta_ij *)
  rewrite (sum_ext (n k) _ (fun i => c (S k) j * (act th x k i * th (Wt (S k) i j)))).
  - rewrite sum_factor. ring.
  - intros i _. rewrite Hact. assert (H := c_pos k i). field. lra.
Qed.

(** Every layer's activations are rescaled unit by unit: act_k(T theta) j = c^(k)_j act_k(theta) j,
    by induction on the layer k. *)
Lemma act_unit (th : dparam) (x : nat -> R) (k : nat) :
  (k <= S K')%nat -> forall j, act (T t_unit th) x k j = c k j * act th x k j.
Proof.
  induction k as [|k IH]; intros Hk j.
  - (* the inputs are not rescaled: c^(0) = 1 *)
    simpl. rewrite c_in. ring.
  - (* act_(k+1) = relu (pre_k): the pre-activations scale by the induction hypothesis, and the
       positive c^(k+1)_j leaves the rectifier *)
    assert (E : forall p, act p x (S k) j = relu (pre p x k j)) by reflexivity.
    rewrite !E. rewrite (pre_unit_of_act th x k) by (apply IH; lia).
    apply relu_pos_hom. apply c_pos.
Qed.

Lemma pre_unit (th : dparam) (x : nat -> R) (k : nat) :
  (k <= K')%nat -> forall j, pre (T t_unit th) x k j = c (S k) j * pre th x k j.
Proof. intros Hk. apply pre_unit_of_act. apply act_unit. lia. Qed.

(** The output is unchanged: f_(T theta) = f_theta, at every depth. *)
Theorem per_unit_prediction (th : dparam) : net K' (T t_unit th) = net K' th.
Proof.
  apply functional_extensionality. intros x. apply functional_extensionality. intros j.
  unfold net. rewrite pre_unit by lia.
  (* the output units are not rescaled: c^(K) = 1 *)
  rewrite c_out. ring.
Qed.

Theorem per_unit_loss (ell : ((nat -> R) -> nat -> R) -> R) (th : dparam) :
  dloss K' ell (T t_unit th) = dloss K' ell th.
Proof. unfold dloss. rewrite per_unit_prediction. reflexivity. Qed.

(** Without biases: the biases 0 stay 0. *)
Lemma nobias_T (th : dparam) : nobias (T t_unit th) = T t_unit (nobias th).
Proof.
  apply functional_extensionality. intros [k i j | k j]; unfold nobias, T; [reflexivity | ring].
Qed.

Theorem per_unit_prediction0 (th : dparam) : net0 K' (T t_unit th) = net0 K' th.
Proof. unfold net0. rewrite nobias_T. apply per_unit_prediction. Qed.

Theorem per_unit_loss0 (ell : ((nat -> R) -> nat -> R) -> R) (th : dparam) :
  dloss0 K' ell (T t_unit th) = dloss0 K' ell th.
Proof. unfold dloss0. rewrite per_unit_prediction0. reflexivity. Qed.

(** The congruence laws, S = diag(c^(k-1)_i / c^(k)_j on theta^(k)_ij, 1 / c^(k)_j on b^(k)_j). *)
Theorem per_unit_gradient (ell : ((nat -> R) -> nat -> R) -> R) (a : dcoord) (th : dparam) (l : R) :
  partial dcoord_eq_dec (dloss K' ell) a th l <->
  partial dcoord_eq_dec (dloss K' ell) a (T t_unit th) (/ t_unit a * l).
Proof. apply gradient_law; [exact t_unit_nz | apply per_unit_loss]. Qed.

Theorem per_unit_hessian (ell : ((nat -> R) -> nat -> R) -> R) (a b : dcoord) (th : dparam)
    (d1 d2 : R) (Da Ea : dparam -> R) (hh : R) :
  partial_near dcoord_eq_dec (dloss K' ell) a b th d1 Da ->
  partial_near dcoord_eq_dec (dloss K' ell) a b (T t_unit th) d2 Ea ->
  (partial dcoord_eq_dec Da b th hh <->
   partial dcoord_eq_dec Ea b (T t_unit th) (/ t_unit a * hh * / t_unit b)).
Proof. apply hessian_law; [exact t_unit_nz | apply per_unit_loss]. Qed.

Theorem per_unit_gradient0 (ell : ((nat -> R) -> nat -> R) -> R) (a : dcoord) (th : dparam) (l : R) :
  partial dcoord_eq_dec (dloss0 K' ell) a th l <->
  partial dcoord_eq_dec (dloss0 K' ell) a (T t_unit th) (/ t_unit a * l).
Proof. apply gradient_law; [exact t_unit_nz | apply per_unit_loss0]. Qed.

Theorem per_unit_hessian0 (ell : ((nat -> R) -> nat -> R) -> R) (a b : dcoord) (th : dparam)
    (d1 d2 : R) (Da Ea : dparam -> R) (hh : R) :
  partial_near dcoord_eq_dec (dloss0 K' ell) a b th d1 Da ->
  partial_near dcoord_eq_dec (dloss0 K' ell) a b (T t_unit th) d2 Ea ->
  (partial dcoord_eq_dec Da b th hh <->
   partial dcoord_eq_dec Ea b (T t_unit th) (/ t_unit a * hh * / t_unit b)).
Proof. apply hessian_law; [exact t_unit_nz | apply per_unit_loss0]. Qed.

End Network.

(** ** The multi-layer law: theta_k -> alpha_k theta_k with prod alpha_k = 1

    and, with biases (Appendix B), b_k -> P_k b_k with P_k = alpha_1 ... alpha_k.  It is the
    per-neuron rescaling with c^(k)_j = P_k for every unit j of layer k. *)
Section Layers.
Variable n : nat -> nat.
Variable K' : nat.
Variable alpha : nat -> R.
Hypothesis alpha_pos : forall k, 0 < alpha k.

(** P_k = alpha_1 ... alpha_k (P_0 = 1). *)
Fixpoint P (k : nat) : R :=
  match k with
  | O => 1
  | S k' => P k' * alpha k
  end.

Hypothesis prod_one : P (S K') = 1.

Lemma P_pos (k : nat) : 0 < P k.
Proof. induction k as [|k IH]; simpl; [lra | apply Rmult_lt_0_compat; [exact IH | apply alpha_pos]]. Qed.

Definition t_layer (a : dcoord) : R :=
  match a with
  | Wt O _ _ => 1
  | Wt k _ _ => alpha k
  | Bs k _ => P k
  end.

Lemma t_layer_nz (a : dcoord) : t_layer a <> 0.
Proof.
  destruct a as [[|k] i j | k j]; simpl.
  - lra.
  - assert (H := alpha_pos (S k)). lra.
  - assert (H := P_pos k). lra.
Qed.

(** The layer-wise map is the per-neuron one with c^(k)_j = P_k. *)
Lemma t_layer_unit : t_layer = t_unit (fun k _ => P k).
Proof.
  apply functional_extensionality. intros [[|k] i j | k j]; simpl; try reflexivity.
  (* P_(k+1) / P_k = alpha_(k+1) *)
  assert (H := P_pos k). field. lra.
Qed.

Theorem layers_prediction (th : dparam) : net n K' (T t_layer th) = net n K' th.
Proof.
  rewrite t_layer_unit. apply per_unit_prediction.
  - intros; apply P_pos.
  - intros; reflexivity.
  - intros; exact prod_one.
Qed.

Theorem layers_loss (ell : ((nat -> R) -> nat -> R) -> R) (th : dparam) :
  dloss n K' ell (T t_layer th) = dloss n K' ell th.
Proof. unfold dloss. rewrite layers_prediction. reflexivity. Qed.

(** Without biases: the paper's multi-layer T_alpha. *)
Theorem layers_prediction0 (th : dparam) : net0 n K' (T t_layer th) = net0 n K' th.
Proof.
  rewrite t_layer_unit. apply per_unit_prediction0.
  - intros; apply P_pos.
  - intros; reflexivity.
  - intros; exact prod_one.
Qed.

Theorem layers_loss0 (ell : ((nat -> R) -> nat -> R) -> R) (th : dparam) :
  dloss0 n K' ell (T t_layer th) = dloss0 n K' ell th.
Proof. unfold dloss0. rewrite layers_prediction0. reflexivity. Qed.

(** The congruence laws, D = diag(1/alpha_k on theta_k, 1/P_k on b_k). *)
Theorem layers_gradient (ell : ((nat -> R) -> nat -> R) -> R) (a : dcoord) (th : dparam) (l : R) :
  partial dcoord_eq_dec (dloss n K' ell) a th l <->
  partial dcoord_eq_dec (dloss n K' ell) a (T t_layer th) (/ t_layer a * l).
Proof. apply gradient_law; [exact t_layer_nz | apply layers_loss]. Qed.

Theorem layers_hessian (ell : ((nat -> R) -> nat -> R) -> R) (a b : dcoord) (th : dparam)
    (d1 d2 : R) (Da Ea : dparam -> R) (hh : R) :
  partial_near dcoord_eq_dec (dloss n K' ell) a b th d1 Da ->
  partial_near dcoord_eq_dec (dloss n K' ell) a b (T t_layer th) d2 Ea ->
  (partial dcoord_eq_dec Da b th hh <->
   partial dcoord_eq_dec Ea b (T t_layer th) (/ t_layer a * hh * / t_layer b)).
Proof. apply hessian_law; [exact t_layer_nz | apply layers_loss]. Qed.

Theorem layers_gradient0 (ell : ((nat -> R) -> nat -> R) -> R) (a : dcoord) (th : dparam) (l : R) :
  partial dcoord_eq_dec (dloss0 n K' ell) a th l <->
  partial dcoord_eq_dec (dloss0 n K' ell) a (T t_layer th) (/ t_layer a * l).
Proof. apply gradient_law; [exact t_layer_nz | apply layers_loss0]. Qed.

Theorem layers_hessian0 (ell : ((nat -> R) -> nat -> R) -> R) (a b : dcoord) (th : dparam)
    (d1 d2 : R) (Da Ea : dparam -> R) (hh : R) :
  partial_near dcoord_eq_dec (dloss0 n K' ell) a b th d1 Da ->
  partial_near dcoord_eq_dec (dloss0 n K' ell) a b (T t_layer th) d2 Ea ->
  (partial dcoord_eq_dec Da b th hh <->
   partial dcoord_eq_dec Ea b (T t_layer th) (/ t_layer a * hh * / t_layer b)).
Proof. apply hessian_law; [exact t_layer_nz | apply layers_loss0]. Qed.

End Layers.
