(** * Prelude: finite sums, the rectifier and its step, derivatives that only look near the point.

    Every index set of the paper is finite: 0, ..., n - 1 for a width n.  A sum over it is a
    two-line [Fixpoint] (empty for n = 0), so the widths d, h, n_k stay ordinary variables and
    every theorem below holds for every size. *)
Require Import Reals Lra Lia.
Open Scope R_scope.

(** ** Finite sums over 0, ..., n - 1 *)

Fixpoint sum (n : nat) (f : nat -> R) : R :=
  match n with
  | O => 0
  | S m => sum m f + f m
  end.

(** Sums only read the terms inside their range. *)
Lemma sum_ext (n : nat) (f g : nat -> R) :
  (forall i, (i < n)%nat -> f i = g i) -> sum n f = sum n g.
Proof.
  induction n as [|n IH]; simpl; intros H; [reflexivity|].
  (* the first n terms by induction, the last one by hypothesis *)
  rewrite IH by (intros; apply H; lia). rewrite (H n) by lia. reflexivity.
Qed.

(** Rule "sum factor": a constant factor leaves the sum. *)
Lemma sum_factor (n : nat) (c : R) (f : nat -> R) :
  sum n (fun i => c * f i) = c * sum n f.
Proof.
  induction n as [|n IH]; simpl; [ring|].
  (* distribute c over the last term *)
  rewrite IH. ring.
Qed.

(** Rule "sum of terms": the sum of a sum of two terms is the sum of the sums. *)
Lemma sum_plus (n : nat) (f g : nat -> R) :
  sum n (fun i => f i + g i) = sum n f + sum n g.
Proof.
  induction n as [|n IH]; simpl; [ring|].
  rewrite IH. ring.
Qed.

(** A sum of zeros is zero. *)
Lemma sum_zero (n : nat) (f : nat -> R) :
  (forall i, (i < n)%nat -> f i = 0) -> sum n f = 0.
Proof.
  intros H. rewrite (sum_ext n f (fun _ => 0)) by exact H.
  induction n as [|n IH]; simpl; [reflexivity|].
  rewrite IH by (intros; apply H; lia). ring.
Qed.

(** Kronecker's delta on indices. *)
Definition delta (i l : nat) : R := if Nat.eq_dec i l then 1 else 0.

(** Rule "delta contraction": sum_i delta_il f_i = f_l, for an index l inside the range. *)
Lemma sum_delta (m l : nat) (f : nat -> R) :
  (l < m)%nat -> sum m (fun i => delta i l * f i) = f l.
Proof.
  induction m as [|m IH]; intros Hl; [lia|]. simpl. unfold delta at 2.
  destruct (Nat.eq_dec m l) as [->|Hne].
  - (* l is the last index: every earlier term vanishes *)
    rewrite sum_zero; [ring|].
    intros i Hi. unfold delta. destruct (Nat.eq_dec i l); [lia|ring].
  - (* l is an earlier index: induction, and the last term vanishes *)
    rewrite IH by lia. ring.
Qed.

(** ** The rectifier and its step *)

Definition relu (z : R) : R := Rmax z 0.

(** Rule "ReLU homogeneity" (Theorem 1 of the paper): relu (a z) = a relu z for a > 0. *)
Lemma relu_pos_hom (a z : R) : 0 < a -> relu (a * z) = a * relu z.
Proof.
  intros Ha. unfold relu, Rmax.
  (* the sign of a z is the sign of z since a > 0 *)
  destruct (Rle_dec (a * z) 0), (Rle_dec z 0); nra.
Qed.

(** The leaky rectifier with slope s, positively homogeneous as well. *)
Definition leaky (s z : R) : R := Rmax z (s * z).

Lemma leaky_pos_hom (s a z : R) : 0 <= s <= 1 -> 0 < a -> leaky s (a * z) = a * leaky s z.
Proof.
  intros Hs Ha. unfold leaky, Rmax.
  destruct (Rle_dec (a * z) (s * (a * z))), (Rle_dec z (s * z)); nra.
Qed.

(** The step (indicator of z > 0), the rectifier's derivative away from 0. *)
Definition step (z : R) : R := if Rle_dec z 0 then 0 else 1.

(** Rule "indicator homogeneity": step (a z) = step z for a > 0. *)
Lemma step_pos_hom (a z : R) : 0 < a -> step (a * z) = step z.
Proof.
  intros Ha. unfold step.
  destruct (Rle_dec (a * z) 0), (Rle_dec z 0); try reflexivity; exfalso; nra.
Qed.

(** ** Derivatives only look near the point *)

(** Two functions equal near x have the same derivative at x. *)
Lemma derivable_pt_lim_local (f g : R -> R) (x l delta0 : R) :
  0 < delta0 -> (forall y, Rabs (y - x) < delta0 -> f y = g y) ->
  derivable_pt_lim f x l -> derivable_pt_lim g x l.
Proof.
  intros Hd Hfg Hf eps Heps.
  destruct (Hf eps Heps) as [d' Hd'].
  (* shrink the radius to the region where f and g agree *)
  assert (Hpos : 0 < Rmin delta0 d') by (apply Rmin_pos; [exact Hd | apply cond_pos]).
  exists (mkposreal _ Hpos). intros hh Hh0 Hh. simpl in Hh.
  rewrite <- (Hfg (x + hh)), <- (Hfg x).
  - apply Hd'; [exact Hh0|]. eapply Rlt_le_trans; [exact Hh | apply Rmin_r].
  - rewrite Rminus_diag_eq, Rabs_R0 by reflexivity. exact Hd.
  - replace (x + hh - x) with hh by ring.
    eapply Rlt_le_trans; [exact Hh | apply Rmin_l].
Qed.

(** Two functions equal everywhere have the same derivative. *)
Lemma derivable_pt_lim_ext (f g : R -> R) (x l : R) :
  (forall y, f y = g y) -> derivable_pt_lim f x l -> derivable_pt_lim g x l.
Proof.
  intros H. apply (derivable_pt_lim_local f g x l 1); [lra | intros; apply H].
Qed.

(** Rule "ReLU derivative": relu' z = 1 for z > 0 and 0 for z < 0 (none at 0). *)
Lemma relu_derivative_pos (z : R) : 0 < z -> derivable_pt_lim relu z 1.
Proof.
  intros Hz. apply (derivable_pt_lim_local id relu z 1 z Hz).
  - (* near a positive z the rectifier is the identity *)
    intros y Hy. unfold relu, Rmax, id. apply Rabs_def2 in Hy.
    destruct (Rle_dec y 0); lra.
  - apply derivable_pt_lim_id.
Qed.

Lemma relu_derivative_neg (z : R) : z < 0 -> derivable_pt_lim relu z 0.
Proof.
  intros Hz. apply (derivable_pt_lim_local (fct_cte 0) relu z 0 (- z)); [lra| |].
  - (* near a negative z the rectifier is the constant 0 *)
    intros y Hy. unfold relu, Rmax, fct_cte. apply Rabs_def2 in Hy.
    destruct (Rle_dec y 0); lra.
  - apply derivable_pt_lim_const.
Qed.

(** Rule "indicator derivative": step' z = 0 for z <> 0. *)
Lemma step_derivative (z : R) : z <> 0 -> derivable_pt_lim step z 0.
Proof.
  intros Hz. apply (derivable_pt_lim_local (fct_cte (step z)) step z 0 (Rabs z)).
  - apply Rabs_pos_lt. exact Hz.
  - (* the step is constant near a non-zero z: y has the sign of z *)
    intros y Hy. unfold fct_cte, step.
    destruct (Rcase_abs z); [rewrite (Rabs_left z) in Hy by lra | rewrite (Rabs_right z) in Hy by lra];
      apply Rabs_def2 in Hy; destruct (Rle_dec z 0), (Rle_dec y 0); lra.
  - apply derivable_pt_lim_const.
Qed.
