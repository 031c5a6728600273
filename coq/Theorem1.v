(** * Theorem 1 and Definition 5: the alpha-scale transformation leaves the network unchanged.

    One hidden layer, f_theta(x) = sum_j relu (sum_i x_i W_ij) v_j, for every input dimension d
    and hidden width h.  A parameter gives a real number to each coordinate W_ij and v_j. *)
Require Import Reals Lra Lia FunctionalExtensionality.
Require Import Sharp.Prelude.
Open Scope R_scope.

(** ** The network *)

(** The coordinates of a parameter: the weights W_ij into the hidden layer, v_j out of it. *)
Inductive coord : Type :=
  | Wc (i j : nat)
  | Vc (j : nat).

Lemma coord_eq_dec (a b : coord) : {a = b} + {a <> b}.
Proof. decide equality; apply Nat.eq_dec. Qed.

Definition param : Type := coord -> R.

(** f_theta(x) = sum_{j < h} relu (sum_{i < d} x_i W_ij) v_j. *)
Definition predict (d h : nat) (th : param) (x : nat -> R) : R :=
  sum h (fun j => relu (sum d (fun i => x i * th (Wc i j))) * th (Vc j)).

(** A loss of the prediction function: L(theta) = ell(f_theta), for any ell whatsoever (an
    empirical loss over N data points is one of them). *)
Definition loss (d h : nat) (ell : ((nat -> R) -> R) -> R) (th : param) : R :=
  ell (predict d h th).

(** ** Definition 5: T_alpha (W, v) = (alpha W, v / alpha), a diagonal map *)

Definition t_alpha (alpha : R) (a : coord) : R :=
  match a with
  | Wc _ _ => alpha
  | Vc _ => / alpha
  end.

Definition scale (alpha : R) (th : param) : param := fun a => t_alpha alpha a * th a.

(** ** Theorem 1 (a): f_{T_alpha theta} = f_theta *)

Theorem theorem1_prediction (d h : nat) (alpha : R) (th : param) :
  0 < alpha -> predict d h (scale alpha th) = predict d h th.
Proof.
  intros Ha. apply functional_extensionality. intros x.
  unfold predict, scale, t_alpha. apply sum_ext. intros j _.
  (* the pre-activation of unit j is alpha times the original one *)
  rewrite (sum_ext d _ (fun i => alpha * (x i * th (Wc i j)))) by (intros; ring).
  rewrite sum_factor.
  (* pull alpha out of the rectifier (Theorem 1 of the paper), then alpha / alpha = 1 *)
  rewrite relu_pos_hom by exact Ha.
  field. lra.
Qed.

(** ** Theorem 1 (b): L(T_alpha theta) = L(theta) for every loss ell of the prediction *)

Theorem theorem1_loss (d h : nat) (ell : ((nat -> R) -> R) -> R) (alpha : R) (th : param) :
  0 < alpha -> loss d h ell (scale alpha th) = loss d h ell th.
Proof.
  intros Ha. unfold loss.
  (* the loss sees the same prediction function *)
  rewrite theorem1_prediction by exact Ha. reflexivity.
Qed.

(** ** Theorem 1 (c): T_alpha theta is a local minimum exactly when theta is *)

(** The box of radius eps around theta (the sup distance over the d h + h coordinates; every
    norm on R^(dh+h) gives the same local minima). *)
Definition near (d h : nat) (eps : R) (th th' : param) : Prop :=
  (forall i j, (i < d)%nat -> (j < h)%nat -> Rabs (th' (Wc i j) - th (Wc i j)) < eps) /\
  (forall j, (j < h)%nat -> Rabs (th' (Vc j) - th (Vc j)) < eps).

Definition local_min (d h : nat) (G : param -> R) (th : param) : Prop :=
  exists eps, 0 < eps /\ forall th', near d h eps th th' -> G th <= G th'.

(** T_{1/alpha} undoes T_alpha. *)
Lemma scale_inverse (alpha : R) (th : param) :
  0 < alpha -> scale (/ alpha) (scale alpha th) = th.
Proof.
  intros Ha. apply functional_extensionality. intros [i j | j];
    unfold scale, t_alpha; [|rewrite Rinv_inv]; field; lra.
Qed.

(** T_alpha undoes T_{1/alpha}. *)
Lemma scale_inverse' (alpha : R) (th : param) :
  0 < alpha -> scale alpha (scale (/ alpha) th) = th.
Proof.
  intros Ha. apply functional_extensionality. intros [i j | j];
    unfold scale, t_alpha; [|rewrite Rinv_inv]; field; lra.
Qed.

(** T_{1/alpha} maps the box of radius eps min(alpha, 1/alpha) around T_alpha theta into the
    box of radius eps around theta. *)
Lemma near_unscale (d h : nat) (alpha eps : R) (th th' : param) :
  0 < alpha -> 0 < eps ->
  near d h (eps * Rmin alpha (/ alpha)) (scale alpha th) th' ->
  near d h eps th (scale (/ alpha) th').
Proof.
  intros Ha He [HW Hv].
  assert (Hia : 0 < / alpha) by (apply Rinv_0_lt_compat; exact Ha).
  assert (Hm1 : Rmin alpha (/ alpha) <= alpha) by apply Rmin_l.
  assert (Hm2 : Rmin alpha (/ alpha) <= / alpha) by apply Rmin_r.
  unfold scale, t_alpha in *. split.
  - (* a weight: W'/alpha - W = (W' - alpha W)/alpha, and eps min(..)/alpha <= eps *)
    intros i j Hi Hj. specialize (HW i j Hi Hj).
    replace (/ alpha * th' (Wc i j) - th (Wc i j))
      with (/ alpha * (th' (Wc i j) - alpha * th (Wc i j))) by (field; lra).
    rewrite Rabs_mult, (Rabs_right (/ alpha)) by lra.
    apply Rlt_le_trans with (/ alpha * (eps * Rmin alpha (/ alpha))).
    + apply Rmult_lt_compat_l; assumption.
    + apply Rle_trans with (/ alpha * (eps * alpha)); [|right; field; lra].
      apply Rmult_le_compat_l; [lra|]. apply Rmult_le_compat_l; lra.
  - (* an output weight: alpha v' - v = alpha (v' - v/alpha), and alpha eps min(..) <= eps *)
    intros j Hj. specialize (Hv j Hj).
    rewrite Rinv_inv.
    replace (alpha * th' (Vc j) - th (Vc j))
      with (alpha * (th' (Vc j) - / alpha * th (Vc j))) by (field; lra).
    rewrite Rabs_mult, (Rabs_right alpha) by lra.
    apply Rlt_le_trans with (alpha * (eps * Rmin alpha (/ alpha))).
    + apply Rmult_lt_compat_l; assumption.
    + apply Rle_trans with (alpha * (eps * / alpha)); [|right; field; lra].
      apply Rmult_le_compat_l; [lra|]. apply Rmult_le_compat_l; lra.
Qed.

(** A local minimum moves to a local minimum under T_alpha. *)
Lemma local_min_scale (d h : nat) (ell : ((nat -> R) -> R) -> R) (alpha : R) (th : param) :
  0 < alpha -> local_min d h (loss d h ell) th ->
  local_min d h (loss d h ell) (scale alpha th).
Proof.
  intros Ha [eps [He Hmin]].
  assert (Hr : 0 < Rmin alpha (/ alpha))
    by (apply Rmin_pos; [exact Ha | apply Rinv_0_lt_compat; exact Ha]).
  (* the radius eps min(alpha, 1/alpha) works at T_alpha theta *)
  exists (eps * Rmin alpha (/ alpha)). split; [apply Rmult_lt_0_compat; assumption|].
  intros th' Hnear.
  (* L(T theta) = L(theta) <= L(T^-1 theta') = L(theta') *)
  rewrite theorem1_loss by exact Ha.
  rewrite <- (scale_inverse' alpha th') by exact Ha.
  rewrite theorem1_loss by exact Ha.
  apply Hmin. apply near_unscale with (alpha := alpha); assumption.
Qed.

Theorem theorem1_local_min (d h : nat) (ell : ((nat -> R) -> R) -> R) (alpha : R) (th : param) :
  0 < alpha ->
  (local_min d h (loss d h ell) (scale alpha th) <-> local_min d h (loss d h ell) th).
Proof.
  intros Ha. split; [|apply local_min_scale; exact Ha].
  (* the converse: apply the forward direction with 1/alpha, which undoes T_alpha *)
  intros H. rewrite <- (scale_inverse alpha th) by exact Ha.
  apply local_min_scale; [apply Rinv_0_lt_compat; exact Ha | exact H].
Qed.

(** All three together, as the paper states Theorem 1 with Definition 5. *)
Theorem theorem1 (d h : nat) (ell : ((nat -> R) -> R) -> R) (alpha : R) (th : param) :
  0 < alpha ->
  predict d h (scale alpha th) = predict d h th /\
  loss d h ell (scale alpha th) = loss d h ell th /\
  (local_min d h (loss d h ell) (scale alpha th) <-> local_min d h (loss d h ell) th).
Proof.
  intros Ha. split; [|split].
  - apply theorem1_prediction; exact Ha.
  - apply theorem1_loss; exact Ha.
  - apply theorem1_local_min; exact Ha.
Qed.
