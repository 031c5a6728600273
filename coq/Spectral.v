(** * The spectral norm: the rules the kernel checks on instances, for every size.

    The spectral norm of an m x n matrix A is the least s >= 0 with |A x| <= s |x| for every x
    (Euclidean norms; squared here, so that no square root is needed): [spectral_norm m n A s].
    For every m and n: |(c A_ab)| = c |A| for c > 0 ([spectral_scale]); a sign s_a (s_a^2 = 1) on the
    rows or s_b on the columns leaves it alone ([spectral_sign_rows], [spectral_sign_columns]); so
    does a permutation of the rows or of the columns ([spectral_permute_rows],
    [spectral_permute_columns]). *)
Require Import Reals Lra Lia List FunctionalExtensionality.
Require Import Sharp.Prelude Sharp.Chains.
Open Scope R_scope.

(** A x, and the squared Euclidean norm of a vector of n entries *)
Definition mv (n : nat) (A : nat -> nat -> R) (x : nat -> R) : nat -> R :=
  fun a => sum n (fun b => A a b * x b).

Definition sq (n : nat) (x : nat -> R) : R := sum n (fun b => x b * x b).

(** s bounds A: |A x|^2 <= s^2 |x|^2 for every x *)
Definition bounds (m n : nat) (A : nat -> nat -> R) (s : R) : Prop :=
  forall x, sq m (mv n A x) <= s ^ 2 * sq n x.

Definition spectral_norm (m n : nat) (A : nat -> nat -> R) (s : R) : Prop :=
  0 <= s /\ bounds m n A s /\ forall t, 0 <= t -> bounds m n A t -> s <= t.

(** Two matrices with the same bounds have the same spectral norm. *)
Lemma spectral_same_bounds (m n : nat) (A B : nat -> nat -> R) (s : R) :
  (forall t, bounds m n A t <-> bounds m n B t) -> spectral_norm m n A s -> spectral_norm m n B s.
Proof.
  intros E [Hs [Hb Hl]]. split; [exact Hs|]. split; [apply E, Hb|].
  intros t Ht Hbt. apply Hl; [exact Ht | apply E, Hbt].
Qed.

(** ** A positive factor *)

Theorem spectral_scale (m n : nat) (A : nat -> nat -> R) (c s : R) :
  0 < c -> spectral_norm m n A s -> spectral_norm m n (fun a b => c * A a b) (c * s).
Proof.
  intros Hc [Hs [Hb Hl]].
  (* |c A x|^2 = c^2 |A x|^2 *)
  assert (E : forall x, sq m (mv n (fun a b => c * A a b) x) = c ^ 2 * sq m (mv n A x)).
  { intros x. unfold sq, mv. rewrite <- sum_factor. apply sum_ext. intros a _.
    rewrite (sum_ext n _ (fun b => c * (A a b * x b))) by (intros; ring). rewrite sum_factor. ring. }
  split; [nra|]. split.
  - intros x. rewrite E. specialize (Hb x). pose proof (pow2_ge_0 c). nra.
  - (* a bound t of c A gives the bound t / c of A *)
    intros t Ht Hbt.
    assert (Hb' : bounds m n A (t / c)).
    { intros x. specialize (Hbt x). rewrite E in Hbt.
      apply (Rmult_le_reg_l (c ^ 2)); [apply pow_lt; exact Hc|].
      replace (c ^ 2 * ((t / c) ^ 2 * sq n x)) with (t ^ 2 * sq n x) by (field; lra). exact Hbt. }
    assert (Htc : 0 <= t / c) by (apply Rmult_le_pos; [exact Ht | apply Rlt_le, Rinv_0_lt_compat, Hc]).
    assert (H := Hl (t / c) Htc Hb').
    apply (Rmult_le_compat_l c) in H; [|lra]. replace (c * (t / c)) with t in H by (field; lra). exact H.
Qed.

(** ** Signs on the rows or the columns *)

Theorem spectral_sign_rows (m n : nat) (A : nat -> nat -> R) (sigma : nat -> R) (s : R) :
  (forall a, sigma a * sigma a = 1) -> spectral_norm m n A s -> spectral_norm m n (fun a b => sigma a * A a b) s.
Proof.
  intros Hsig. apply spectral_same_bounds. intros t. unfold bounds.
  (* |S A x|^2 = |A x|^2 entry by entry *)
  assert (E : forall x, sq m (mv n (fun a b => sigma a * A a b) x) = sq m (mv n A x)).
  { intros x. unfold sq, mv. apply sum_ext. intros a _.
    rewrite (sum_ext n _ (fun b => sigma a * (A a b * x b))) by (intros; ring). rewrite sum_factor.
    replace (sigma a * sum n (fun b => A a b * x b) * (sigma a * sum n (fun b => A a b * x b)))
      with (sigma a * sigma a * (sum n (fun b => A a b * x b) * sum n (fun b => A a b * x b))) by ring.
    rewrite Hsig. ring. }
  split; intros H x; [rewrite E | rewrite <- E]; apply H.
Qed.

Theorem spectral_sign_columns (m n : nat) (A : nat -> nat -> R) (sigma : nat -> R) (s : R) :
  (forall b, sigma b * sigma b = 1) -> spectral_norm m n A s -> spectral_norm m n (fun a b => sigma b * A a b) s.
Proof.
  intros Hsig. apply spectral_same_bounds. intros t. unfold bounds.
  (* A S x = A (S x), and |S x| = |x|, S S = I *)
  set (S x := fun b => sigma b * x b).
  assert (E1 : forall x, mv n (fun a b => sigma b * A a b) x = mv n A (S x)).
  { intros x. unfold mv, S. apply FunctionalExtensionality.functional_extensionality. intros a. apply sum_ext. intros; ring. }
  assert (E2 : forall x, sq n (S x) = sq n x).
  { intros x. unfold sq, S. apply sum_ext. intros b _.
    replace (sigma b * x b * (sigma b * x b)) with (sigma b * sigma b * (x b * x b)) by ring. rewrite Hsig. ring. }
  assert (E3 : forall x, S (S x) = x).
  { intros x. unfold S. apply FunctionalExtensionality.functional_extensionality. intros b.
    rewrite <- Rmult_assoc, Hsig. ring. }
  split; intros H x.
  - rewrite E1, <- E2. apply H.
  - rewrite <- (E3 x), <- E1, E2. apply H.
Qed.

(** ** Permutations of the rows or the columns *)

Theorem spectral_permute_rows (m n : nat) (A : nat -> nat -> R) (pi : nat -> nat) (s : R) :
  permutation m pi -> spectral_norm m n A s -> spectral_norm m n (fun a b => A (pi a) b) s.
Proof.
  intros Hpi. apply spectral_same_bounds. intros t. unfold bounds.
  (* |P A x|^2 is |A x|^2 with its terms reordered *)
  assert (E : forall x, sq m (mv n (fun a b => A (pi a) b) x) = sq m (mv n A x)).
  { intros x. unfold sq. exact (sum_reindex m pi (fun a => mv n A x a * mv n A x a) Hpi). }
  split; intros H x; [rewrite E | rewrite <- E]; apply H.
Qed.

(* the inverse of a permutation of 0..n-1, by search: the last b < k with pi b = c *)
Fixpoint search (pi : nat -> nat) (c k : nat) : nat :=
  match k with
  | O => O
  | S k' => if Nat.eqb (pi k') c then k' else search pi c k'
  end.

Lemma search_spec (pi : nat -> nat) (c k : nat) :
  (exists b, (b < k)%nat /\ pi b = c) -> (search pi c k < k)%nat /\ pi (search pi c k) = c.
Proof.
  induction k as [|k IH]; intros [b [Hb Hc]]; [lia|]. simpl.
  destruct (Nat.eqb (pi k) c) eqn:E.
  - apply Nat.eqb_eq in E. split; [lia | exact E].
  - (* b is not k, so b < k *)
    apply Nat.eqb_neq in E. assert (b <> k) by (intros ->; contradiction).
    destruct IH as [H1 H2]; [exists b; split; [lia | exact Hc]|]. split; [lia | exact H2].
Qed.

(* every c < n is pi of some b < n: map pi (seq 0 n) is a permutation of seq 0 n *)
Lemma permutation_onto (n : nat) (pi : nat -> nat) :
  permutation n pi -> forall c, (c < n)%nat -> exists b, (b < n)%nat /\ pi b = c.
Proof.
  intros [Hin Hinj] c Hc.
  assert (Hnodup : NoDup (map pi (seq 0 n))).
  { apply NoDup_map_injective_on; [apply seq_NoDup|].
    intros i j Hi Hj. apply in_seq in Hi. apply in_seq in Hj. apply Hinj; lia. }
  assert (Hincl : incl (map pi (seq 0 n)) (seq 0 n)).
  { intros a Ha. apply in_map_iff in Ha. destruct Ha as [j [<- Hj]].
    apply in_seq in Hj. apply in_seq. pose proof (Hin j ltac:(lia)). lia. }
  assert (Hall : incl (seq 0 n) (map pi (seq 0 n))).
  { apply NoDup_length_incl; [exact Hnodup | rewrite map_length; lia | exact Hincl]. }
  assert (Hcin : In c (seq 0 n)) by (apply in_seq; lia).
  apply Hall, in_map_iff in Hcin. destruct Hcin as [b [Hb Hbin]]. apply in_seq in Hbin.
  exists b. split; [lia | exact Hb].
Qed.

Theorem spectral_permute_columns (m n : nat) (A : nat -> nat -> R) (pi : nat -> nat) (s : R) :
  permutation n pi -> spectral_norm m n A s -> spectral_norm m n (fun a b => A a (pi b)) s.
Proof.
  intros Hpi. apply spectral_same_bounds. intros t. unfold bounds.
  (* A P x = A y and |y| = |x| for y = x o pi^-1; conversely y o pi for a given y *)
  assert (Forward : forall y, mv n (fun a b => A a (pi b)) (fun b => y (pi b)) = mv n A y
                              /\ sq n (fun b => y (pi b)) = sq n y).
  { intros y. split.
    - apply FunctionalExtensionality.functional_extensionality. intros a. unfold mv.
      exact (sum_reindex n pi (fun c => A a c * y c) Hpi).
    - unfold sq. exact (sum_reindex n pi (fun c => y c * y c) Hpi). }
  set (inv c := search pi c n).
  assert (Back : forall (x : nat -> R) (b : nat), (b < n)%nat -> x (inv (pi b)) = x b).
  { intros x b Hb. destruct Hpi as [Hin Hinj].
    destruct (search_spec pi (pi b) n) as [H1 H2]; [exists b; split; [exact Hb | reflexivity]|].
    unfold inv. rewrite (Hinj _ _ H1 Hb H2). reflexivity. }
  split; intros H x.
  - (* x = (x o inv) o pi on 0..n-1 *)
    specialize (Forward (fun c => x (inv c))). destruct Forward as [F1 F2].
    assert (Ex : mv n (fun a b => A a (pi b)) x = mv n (fun a b => A a (pi b)) (fun b => x (inv (pi b)))).
    { apply FunctionalExtensionality.functional_extensionality. intros a. unfold mv.
      apply sum_ext. intros b Hb. rewrite Back by exact Hb. reflexivity. }
    assert (Sx : sq n x = sq n (fun b => x (inv (pi b)))).
    { unfold sq. apply sum_ext. intros b Hb. rewrite Back by exact Hb. reflexivity. }
    rewrite Ex, Sx, F1, F2. apply H.
  - destruct (Forward x) as [F1 F2]. rewrite <- F1, <- F2. apply H.
Qed.
