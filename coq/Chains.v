(** * Chains: the rules the kernel's exported chains cite beyond the prelude's, and the tactics
    that close one step of a chain.

    A chain t_0 = t_1 = ... = t_m of the kernel (symbolic/kernel/chains.py) is exported as one
    lemma per step and their composition.  A step rewrites one subterm by one rule: its proof
    goes down to that subterm by congruence ([f_equal] with a hole, [sum_ext] under a sum) and
    closes the leaf with the rule's lemma, proved here or in the prelude for every size, or with
    [field] for a step of arithmetic. *)
Require Import Reals Lra Lia List Permutation.
Require Import Sharp.Prelude.
Import ListNotations.
Open Scope R_scope.

(** ** Rules *)

(** Rule "activation homogeneity" for the absolute value: |c s| = c |s| for c > 0. *)
Lemma abs_pos_hom (c s : R) : 0 < c -> Rabs (c * s) = c * Rabs s.
Proof.
  intros Hc. rewrite Rabs_mult.
  (* |c| = c since c > 0 *)
  rewrite (Rabs_pos_eq c) by lra. reflexivity.
Qed.

(** Rule "absolute value of a sign": |c s| = |s| for a real c with c c = 1. *)
Lemma abs_sign (c s : R) : c * c = 1 -> Rabs (c * s) = Rabs s.
Proof.
  intros Hc. rewrite Rabs_mult.
  (* |c| is the non-negative number whose square is c c = 1, so it is 1 *)
  assert (Hsquare : Rabs c * Rabs c = 1) by (rewrite <- Rabs_mult, Hc; apply Rabs_R1).
  assert (Hpos : 0 <= Rabs c) by apply Rabs_pos.
  assert (Hone : Rabs c = 1) by nra.
  rewrite Hone. ring.
Qed.

(** A power of -1 is a sign: its square is 1, and it is not 0. *)
Lemma sign_square (e : nat) : (-1) ^ e * (-1) ^ e = 1.
Proof.
  rewrite <- Rpow_mult_distr.
  (* (-1) (-1) = 1, and 1 ^ e = 1 *)
  replace (-1 * -1) with 1 by ring. apply pow1.
Qed.

Lemma sign_nonzero (e : nat) : (-1) ^ e <> 0.
Proof. apply pow_nonzero. lra. Qed.

(** A sign (-1)^e for an integer e (negative e included, as [powerRZ] reads it). *)
Lemma signZ_square (e : Z) : powerRZ (-1) e * powerRZ (-1) e = 1.
Proof.
  destruct e as [|p|p]; simpl.
  - (* e = 0 *) ring.
  - (* e > 0: a power of -1 *) apply sign_square.
  - (* e < 0: the inverse of a power of -1 *)
    rewrite <- Rinv_mult, sign_square. apply Rinv_1.
Qed.

Lemma signZ_cases (e : Z) : powerRZ (-1) e = 1 \/ powerRZ (-1) e = -1.
Proof.
  (* a real whose square is 1 is 1 or -1 *)
  pose proof (signZ_square e) as H. nra.
Qed.

Lemma signZ_nonzero (e : Z) : powerRZ (-1) e <> 0.
Proof. apply powerRZ_NOR. lra. Qed.

(** A square root: any function that is the non-negative root of every t >= 0 and 0 below, as
    Coq's [sqrt] is.  The rules are proved for every such function, so they rest on no property of
    the standard library's [sqrt] (whose construction uses a third axiom of the reals). *)
Definition is_root (root : R -> R) : Prop :=
  (forall t, 0 <= t -> 0 <= root t /\ root t * root t = t) /\ (forall t, t < 0 -> root t = 0).

(** Rule "root homogeneity" for the square root: root (k s) = m root s for m > 0 with m m = k,
    every s (below 0 both sides are 0). *)
Lemma root_hom (root : R -> R) (k m s : R) :
  is_root root -> 0 < m -> m * m = k -> root (k * s) = m * root s.
Proof.
  intros [Hpos Hneg] Hm Hk. subst k.
  destruct (Rlt_or_le s 0) as [Hs|Hs].
  - (* s < 0: k s < 0 too, and both roots are 0 *)
    assert (Hmm : 0 < m * m) by (apply Rmult_lt_0_compat; lra).
    assert (Hks : m * m * s < 0) by nra.
    rewrite (Hneg s Hs), (Hneg (m * m * s) Hks). ring.
  - (* s >= 0: root (k s) and m root s are non-negative with the same square k s, so equal *)
    destruct (Hpos s Hs) as [H0 H2].
    assert (Hmm : 0 <= m * m) by nra.
    destruct (Hpos (m * m * s)) as [H0' H2']; [apply Rmult_le_pos; lra|].
    apply Rsqr_inj; [exact H0' | apply Rmult_le_pos; lra |].
    unfold Rsqr. rewrite H2'.
    replace (m * root s * (m * root s)) with (m * m * (root s * root s)) by ring.
    rewrite H2. reflexivity.
Qed.

(** Rule "root homogeneity" for the reciprocal square root / root: / root (k s) = m / root s for
    m > 0 with m m k = 1, every s (both sides 0 where root s = 0, Coq's / 0 being 0). *)
Lemma rroot_hom_inv (root : R -> R) (k m s : R) :
  is_root root -> 0 < m -> m * m * k = 1 -> / root (k * s) = m * / root s.
Proof.
  intros Hroot Hm Hk.
  (* k = (1/m)(1/m), so root (k s) = (1/m) root s *)
  assert (Hk' : / m * / m = k) by (apply (Rmult_eq_reg_l (m * m)); [rewrite Hk; field; lra | nra]).
  rewrite (root_hom root k (/ m) s Hroot) by (try apply Rinv_0_lt_compat; lra).
  destruct (Req_dec (root s) 0) as [H0|H0].
  - rewrite H0, Rmult_0_r, Rinv_0. ring.
  - field. split; lra.
Qed.

(** The same, for the reciprocal root as a function of its own (an atom of the arithmetic). *)
Lemma rroot_hom (root rroot : R -> R) (k m s : R) :
  is_root root -> (forall t, rroot t = / root t) -> 0 < m -> m * m * k = 1 -> rroot (k * s) = m * rroot s.
Proof. intros Hroot Hr Hm Hk. rewrite !Hr. apply rroot_hom_inv; assumption. Qed.

(** Rule "reindexing": a sum over 0..m-1 read through a permutation pi of 0..m-1 is the same sum;
    proved through lists, where a permutation is [Permutation] of the standard library. *)
Definition permutation (m : nat) (pi : nat -> nat) : Prop :=
  (forall j, (j < m)%nat -> (pi j < m)%nat) /\
  (forall i j, (i < m)%nat -> (j < m)%nat -> pi i = pi j -> i = j).

Definition sum_list (l : list nat) (f : nat -> R) : R := fold_right (fun j total => f j + total) 0 l.

Lemma sum_list_app (l l' : list nat) (f : nat -> R) : sum_list (l ++ l') f = sum_list l f + sum_list l' f.
Proof. induction l as [|j l IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sum_as_list (m : nat) (f : nat -> R) : sum m f = sum_list (seq 0 m) f.
Proof.
  induction m as [|m IH]; [reflexivity|].
  rewrite seq_S, sum_list_app. simpl. rewrite IH. ring.
Qed.

Lemma sum_list_perm (l l' : list nat) (f : nat -> R) : Permutation l l' -> sum_list l f = sum_list l' f.
Proof. intros H. induction H; simpl; try rewrite IHPermutation; try ring. congruence. Qed.

Lemma sum_list_map (pi : nat -> nat) (l : list nat) (f : nat -> R) :
  sum_list (map pi l) f = sum_list l (fun j => f (pi j)).
Proof. induction l as [|j l IH]; simpl; [reflexivity|]. rewrite IH. reflexivity. Qed.

(** A map injective on the elements of a list without repetitions keeps it without repetitions. *)
Lemma NoDup_map_injective_on (pi : nat -> nat) (l : list nat) :
  NoDup l -> (forall i j, In i l -> In j l -> pi i = pi j -> i = j) -> NoDup (map pi l).
Proof.
  induction l as [|a l IH]; intros Hl Hinj; simpl; [constructor|].
  inversion Hl as [|? ? Ha Hl']. subst.
  constructor.
  - (* pi a is no pi b for b in l, since a is not in l *)
    intros Hin. apply in_map_iff in Hin. destruct Hin as [b [Hb Hbl]].
    assert (b = a) by (apply Hinj; simpl; auto). subst. contradiction.
  - apply IH; [exact Hl'|]. intros i j Hi Hj. apply Hinj; simpl; auto.
Qed.

Lemma sum_reindex (m : nat) (pi : nat -> nat) (f : nat -> R) :
  permutation m pi -> sum m (fun j => f (pi j)) = sum m f.
Proof.
  intros [Hin Hinj].
  rewrite !sum_as_list, <- sum_list_map.
  apply sum_list_perm.
  assert (Hnodup : NoDup (map pi (seq 0 m))).
  { apply NoDup_map_injective_on; [apply seq_NoDup|].
    intros i j Hi Hj. apply in_seq in Hi. apply in_seq in Hj. apply Hinj; lia. }
  assert (Hincl : incl (map pi (seq 0 m)) (seq 0 m)).
  { intros a Ha. apply in_map_iff in Ha. destruct Ha as [j [<- Hj]].
    apply in_seq in Hj. apply in_seq. pose proof (Hin j ltac:(lia)). lia. }
  apply NoDup_Permutation; [exact Hnodup | apply seq_NoDup |].
  intros a. split; [apply Hincl|].
  apply (NoDup_length_incl Hnodup); [rewrite map_length; lia | exact Hincl].
Qed.

(** Rule "interchange of sums": sum_i sum_j F i j = sum_j sum_i F i j, for every m and n (by
    induction on m: the new row of terms comes out of the sum over j by the sum of terms). *)
Lemma sum_swap (m n : nat) (F : nat -> nat -> R) :
  sum m (fun i => sum n (fun j => F i j)) = sum n (fun j => sum m (fun i => F i j)).
Proof.
  induction m as [|m IH]; simpl.
  - (* no row: both sides are 0 *)
    symmetry. apply sum_zero. intros; reflexivity.
  - rewrite IH. rewrite <- sum_plus. reflexivity.
Qed.

(** ** Tactics that close a step *)

(** A scalar is positive: from the hypotheses (a positive symbol, a positive family c_j, a
    size at least 1), through products, inverses and powers. *)
Ltac pos :=
  repeat match goal with
  | |- 0 < _ * _ => apply Rmult_lt_0_compat
  | |- 0 < / _ => apply Rinv_0_lt_compat
  | |- 0 < _ ^ _ => apply pow_lt
  | |- 0 < INR _ => apply lt_0_INR; lia
  | H : forall _, 0 < ?f _ |- 0 < ?f _ => apply H
  | H : forall _ _, 0 < ?f _ _ |- 0 < ?f _ _ => apply H
  | |- _ => first [assumption | lra]
  end.

(** A scalar is not 0: positive, or a sign (-1)^e, or a product or power of such. *)
Ltac nonzero :=
  repeat match goal with
  | |- _ /\ _ => split
  | |- _ * _ <> 0 => apply Rmult_integral_contrapositive_currified
  | |- (-1) ^ _ <> 0 => apply sign_nonzero
  | |- powerRZ (-1) _ <> 0 => apply signZ_nonzero
  | |- _ ^ _ <> 0 => apply pow_nonzero
  | |- _ <> 0 => apply Rgt_not_eq; unfold Rgt; pos
  end.

(** A step of arithmetic: an identity of the commutative field, every other subterm an atom; a
    sign (-1)^e is 1 or -1, and the identity is checked in each case (the kernel's arithmetic reads
    ((-1)^e)^2 = 1 for an integer e). *)
Ltac arithmetic :=
  first [ field; nonzero
        | repeat match goal with
                 | |- context [powerRZ (-1) ?e] =>
                     let Hs := fresh "Hs" in destruct (signZ_cases e) as [Hs|Hs]; rewrite Hs
                 end; field; nonzero ].

(** A scalar whose square is 1: a power of -1, or a number. *)
Ltac square_one := first [apply sign_square | apply signZ_square | ring].
