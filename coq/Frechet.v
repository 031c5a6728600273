(** * Theorem 3 with Fréchet derivatives, and Theorem 1 (c) for the Euclidean norm (Coquelicot).

    Seed 001 states Theorem 3 with Fréchet derivatives on the Euclidean parameter space: L Fréchet
    differentiable on a neighbourhood of theta and z |-> DL(z) Fréchet differentiable at theta give
    the same regularity at T_alpha theta, DL(T_alpha theta)[u] = DL(theta)[T_{1/alpha} u] and
    H(T_alpha theta)[u, w] = H(theta)[T_{1/alpha} u, T_{1/alpha} w].  Here the derivative is
    Coquelicot's [filterdiff] (the Fréchet derivative on a normed module over R), proved unique; the
    transport holds for every invertible linear S^-1 = T with L o T = L, on any normed module
    ([regularity_transport], [gradient_transport], [hessian_transport], [local_min_transport]); the
    parameter space of the network of Theorem 1 is R^(d h + h) with the Euclidean norm
    ([euclidean_norm]), and T_alpha is its diagonal map ([theorem3_frechet], [theorem1_local_min]).
    Theorem 4 follows for the norm of the Hessian form as seed 001 defines it, a supremum over unit
    vectors ([theorem4_frechet]).  The partial-derivative form of [Theorem3] is kept beside it. *)
Set Warnings "-ambiguous-paths,-notation-overridden".
Require Import Reals Lra Lia.
Require Import Sharp.Prelude Sharp.Theorem1.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** ** The Fréchet derivative of a real function on a normed module is unique *)

Section Unique.
Context {V : NormedModule R_AbsRing}.

Lemma frechet_unique (f : V -> R) (x : V) (l1 l2 : V -> R) :
  filterdiff f (locally x) l1 -> filterdiff f (locally x) l2 -> forall u, l1 u = l2 u.
Proof.
  intros [L1 D1] [L2 D2] u.
  (* d = l1 - l2 is linear, and |d (y - x)| <= eps ||y - x|| near x for every eps *)
  assert (Hx : is_filter_lim (locally x) x) by (intros P HP; exact HP).
  assert (small : forall eps : posreal, Rabs (l1 u - l2 u) <= eps * norm u).
  { intros eps.
    assert (He : 0 < eps / 2) by (apply Rdiv_lt_0_compat; [apply cond_pos | lra]).
    destruct (filter_and _ _ (D1 x Hx (mkposreal _ He)) (D2 x Hx (mkposreal _ He))) as [delta Hd].
    destruct (Req_dec (norm u) 0) as [Z | NZ].
    - (* u = 0: both sides are 0 *)
      apply norm_eq_zero in Z. subst u. rewrite !linear_zero by assumption.
      rewrite Rminus_diag_eq, Rabs_R0 by reflexivity. apply Rmult_le_pos; [apply Rlt_le, cond_pos | apply norm_ge_0].
    - (* y = x + t u with t > 0 small enough to stay in the ball *)
      assert (Hu : 0 < norm u) by (destruct (norm_ge_0 u); [assumption | congruence]).
      set (t := delta / (2 * norm u)).
      assert (Ht : 0 < t) by (apply Rdiv_lt_0_compat; [apply cond_pos | lra]).
      assert (Hy : ball x delta (plus x (scal t u))).
      { apply norm_compat1.
        replace (minus (plus x (scal t u)) x) with (scal t u)
          by (unfold minus; rewrite plus_comm, plus_assoc, plus_opp_l, plus_zero_l; reflexivity).
        eapply Rle_lt_trans; [exact (@norm_scal R_AbsRing V t u)|]. unfold abs; simpl. rewrite Rabs_pos_eq by lra.
        unfold t. field_simplify; [|lra]. destruct delta as [dl dp]; simpl. lra. }
      destruct (Hd _ Hy) as [A B].
      replace (minus (plus x (scal t u)) x) with (scal t u) in A, B
        by (unfold minus; rewrite plus_comm, plus_assoc, plus_opp_l, plus_zero_l; reflexivity).
      rewrite (linear_scal _ L1) in A. rewrite (linear_scal _ L2) in B.
      (* ||t u|| <= t ||u|| *)
      assert (N : norm (scal t u) <= t * norm u)
        by (eapply Rle_trans; [exact (@norm_scal R_AbsRing V t u)|]; unfold abs; simpl; rewrite Rabs_pos_eq by lra; lra).
      assert (A' : norm (minus (minus (f (plus x (scal t u))) (f x)) (scal t (l1 u))) <= eps / 2 * (t * norm u))
        by (eapply Rle_trans; [exact A | apply Rmult_le_compat_l; [lra | exact N]]).
      assert (B' : norm (minus (minus (f (plus x (scal t u))) (f x)) (scal t (l2 u))) <= eps / 2 * (t * norm u))
        by (eapply Rle_trans; [exact B | apply Rmult_le_compat_l; [lra | exact N]]).
      clear A B. rename A' into A. rename B' into B.
      unfold minus, plus, opp, scal in A, B; simpl in A, B.
      unfold mult in A, B; simpl in A, B.
      (* t |l1 u - l2 u| <= t eps ||u|| *)
      assert (C : t * Rabs (l1 u - l2 u) <= t * (eps * norm u)).
      { replace (t * Rabs (l1 u - l2 u))
          with (Rabs ((f (plus x (scal t u)) + - f x + - (t * l2 u)) - (f (plus x (scal t u)) + - f x + - (t * l1 u))))
          by (replace ((f (plus x (scal t u)) + - f x + - (t * l2 u)) - (f (plus x (scal t u)) + - f x + - (t * l1 u)))
                 with (t * (l1 u - l2 u)) by ring; rewrite Rabs_mult, Rabs_pos_eq by lra; reflexivity).
        eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_Ropp.
        eapply Rle_trans; [apply Rplus_le_compat; [exact B | exact A]|].
        right. field. }
      apply Rmult_le_reg_l with t; assumption. }
  (* |d u| <= eps ||u|| for every eps > 0: d u = 0 *)
  destruct (Req_dec (l1 u - l2 u) 0) as [E | E]; [lra|].
  exfalso.
  assert (Hd : 0 < Rabs (l1 u - l2 u)) by (apply Rabs_pos_lt; exact E).
  assert (Hn : 0 < norm u + 1) by (pose proof (norm_ge_0 u); lra).
  set (e := Rabs (l1 u - l2 u) / (2 * (norm u + 1))).
  assert (He : 0 < e) by (apply Rdiv_lt_0_compat; lra).
  specialize (small (mkposreal e He)). simpl in small.
  assert (e * norm u < Rabs (l1 u - l2 u)).
  { unfold e. apply Rlt_le_trans with (Rabs (l1 u - l2 u) / 2).
    - apply Rmult_lt_reg_r with (2 * (norm u + 1)); [lra|].
      pose proof (norm_ge_0 u). field_simplify; nra.
    - lra. }
  lra.
Qed.

End Unique.

(** ** Regularity and the derivative laws carried by an invertible linear map that leaves L alone *)

Section Transport.
Context {V : NormedModule R_AbsRing}.

(** The local regularity condition of Theorem 3 at th: L is Fréchet differentiable at every point z
    of a neighbourhood of th with derivative DL z, and z |-> DL z is Fréchet differentiable at th,
    direction by direction: z |-> DL z w has the derivative u |-> H u w (in finite dimension this is
    the Fréchet differentiability of z |-> DL z into the dual space; H th is the Hessian form). *)
Definition twice_at (L : V -> R) (DL : V -> V -> R) (H : V -> V -> R) (th : V) : Prop :=
  locally th (fun z => filterdiff L (locally z) (DL z)) /\
  forall w, filterdiff (fun z => DL z w) (locally th) (fun u => H u w).

Variables (L : V -> R) (T S : V -> V).
Hypotheses (S_linear : is_linear S)
  (TS : forall x, T (S x) = x) (ST : forall x, S (T x) = x)
  (invariant : forall x, L (T x) = L x).

(* L = L o S: L z = L (T (S z)) = L (S z) *)
Lemma L_through_S (z : V) : L (S z) = L z.
Proof. rewrite <- (TS z) at 2. symmetry. apply invariant. Qed.

(* S is continuous: what holds near th holds at S z for z near T th *)
Lemma near_through_S (th : V) (P : V -> Prop) :
  locally th P -> locally (T th) (fun z => P (S z)).
Proof.
  intros HP.
  assert (C : continuous S (T th)) by (apply filterdiff_continuous; exists S; apply filterdiff_linear, S_linear).
  unfold continuous in C. rewrite (ST th) in C. exact (C P HP).
Qed.

(* a derivative of L at S z, composed with S, is a derivative of L at z *)
Lemma derivative_through_S (z : V) (l : V -> R) :
  filterdiff L (locally (S z)) l -> filterdiff L (locally z) (fun u => l (S u)).
Proof.
  intros D.
  apply (filterdiff_ext (fun y => L (S y)) L); [exact L_through_S|].
  apply (filterdiff_comp' S L z S l); [apply filterdiff_linear, S_linear | exact D].
Qed.

Theorem regularity_transport (DL : V -> V -> R) (H : V -> V -> R) (th : V) :
  twice_at L DL H th ->
  twice_at L (fun z u => DL (S z) (S u)) (fun u w => H (S u) (S w)) (T th).
Proof.
  intros [near second]. split.
  - (* differentiable near T th: z near T th has S z near th *)
    apply (filter_imp (fun z => filterdiff L (locally (S z)) (DL (S z)))).
    + intros z D. exact (derivative_through_S z (DL (S z)) D).
    + exact (near_through_S th _ near).
  - (* z |-> DL (S z) (S w) is (y |-> DL y (S w)) o S, differentiable at T th *)
    intros w.
    apply (filterdiff_comp' S (fun y => DL y (S w)) (T th) S (fun u => H u (S w))).
    + apply filterdiff_linear, S_linear.
    + rewrite ST. exact (second (S w)).
Qed.

(** The gradient law: every derivative of L at T th is u |-> DL th (S u). *)
Theorem gradient_transport (DL H : V -> V -> R) (th : V) (l : V -> R) :
  twice_at L DL H th -> filterdiff L (locally (T th)) l -> forall u, l u = DL th (S u).
Proof.
  intros [near _] D u.
  apply (frechet_unique L (T th) l (fun u => DL th (S u)) D).
  apply derivative_through_S. rewrite ST. exact (locally_singleton _ _ near).
Qed.

(** The Hessian law: whatever the derivatives DL2, H2 of the condition at T th, H2 u w = H (S u) (S w). *)
Theorem hessian_transport (DL H DL2 H2 : V -> V -> R) (th : V) :
  twice_at L DL H th -> twice_at L DL2 H2 (T th) -> forall u w, H2 u w = H (S u) (S w).
Proof.
  intros R1 [near2 second2] u w.
  destruct (regularity_transport DL H th R1) as [near1 second1].
  (* near T th, DL2 z = DL (S z) o S, both being derivatives of L at z *)
  assert (E : locally (T th) (fun z => DL (S z) (S w) = DL2 z w)).
  { apply (filter_imp (fun z => filterdiff L (locally z) (fun u => DL (S z) (S u))
                              /\ filterdiff L (locally z) (DL2 z))).
    - intros z [D1 D2]. exact (frechet_unique L z _ _ D1 D2 w).
    - exact (filter_and _ _ near1 near2). }
  apply (frechet_unique (fun z => DL2 z w) (T th) (fun u => H2 u w) (fun u => H (S u) (S w)) (second2 w)).
  apply (filterdiff_ext_locally (fun z => DL (S z) (S w)) (fun z => DL2 z w) (T th)); [exact E|].
  exact (second1 w).
Qed.

(** The Hessian form of the condition is linear in its first argument (a derivative) and in its
    second (DL z is linear near th, and derivatives are unique). *)
Lemma hessian_scal_first (DL H : V -> V -> R) (th : V) (c : R) (u w : V) :
  twice_at L DL H th -> H (scal c u) w = c * H u w.
Proof.
  intros [_ second]. destruct (second w) as [Hlin _].
  rewrite (linear_scal _ Hlin). reflexivity.
Qed.

Lemma hessian_scal_second (DL H : V -> V -> R) (th : V) (c : R) (u w : V) :
  twice_at L DL H th -> H u (scal c w) = c * H u w.
Proof.
  intros [near second].
  (* near th, DL z (c w) = c DL z w; both sides' derivatives at th, by uniqueness *)
  assert (E : locally th (fun z => c * DL z w = DL z (scal c w))).
  { apply (filter_imp (fun z => filterdiff L (locally z) (DL z))); [|exact near].
    intros z [Hlin _]. rewrite (linear_scal _ Hlin). reflexivity. }
  assert (D : filterdiff (fun z => c * DL z w) (locally th) (fun u => c * H u w)).
  { exact (@filterdiff_scal_r_fct R_AbsRing V R_NormedModule _ _ c (fun z => DL z w) (fun u => H u w)
             Rmult_comm (second w)). }
  apply (frechet_unique (fun z => DL z (scal c w)) th (fun u => H u (scal c w)) (fun u => c * H u w));
    [exact (second (scal c w))|].
  exact (filterdiff_ext_locally _ _ th _ E D).
Qed.

(** ** Local minima for the norm's balls *)

(** x is a local minimum of L: L x <= L y for every y with ||y - x|| < eps, for some eps > 0 *)
Definition local_min (x : V) : Prop :=
  exists eps : posreal, forall y, norm (minus y x) < eps -> L x <= L y.

(* S (y - T th) = S y - th *)
Lemma S_minus (y th : V) : S (minus y (T th)) = minus (S y) th.
Proof.
  unfold minus. rewrite (linear_plus _ S_linear), (linear_opp _ _ S_linear), ST. reflexivity.
Qed.

(** a local minimum at th is one at T th: the ball of radius eps / M around T th is carried by S
    into the ball of radius eps around th (||S u|| <= M ||u||) *)
Theorem local_min_forward (th : V) : local_min th -> local_min (T th).
Proof.
  intros [eps Hmin].
  destruct (linear_norm _ S_linear) as [M [HM Hbound]].
  assert (He : 0 < eps / M) by (apply Rdiv_lt_0_compat; [apply cond_pos | exact HM]).
  exists (mkposreal _ He). intros y Hy. simpl in Hy.
  rewrite invariant, <- (L_through_S y).
  apply Hmin. rewrite <- S_minus.
  eapply Rle_lt_trans; [apply Hbound|].
  apply Rmult_lt_reg_r with (/ M); [apply Rinv_0_lt_compat, HM|].
  replace (M * norm (minus y (T th)) * / M) with (norm (minus y (T th))) by (field; lra).
  exact Hy.
Qed.

End Transport.

(** Theorem 1 (c) for the norm of the space: th is a local minimum exactly when T th is, for every
    invertible linear T with L o T = L (applied to T and to its inverse). *)
Theorem local_min_transport {V : NormedModule R_AbsRing} (L : V -> R) (T S : V -> V) :
  is_linear T -> is_linear S -> (forall x, T (S x) = x) -> (forall x, S (T x) = x) -> (forall x, L (T x) = L x) ->
  forall th, local_min L th <-> local_min L (T th).
Proof.
  intros TL SL TS ST inv th. split.
  - apply (local_min_forward L T S SL TS ST inv).
  - (* L o S = L as well, so the forward direction for S carries T th back to S (T th) = th *)
    intros H. rewrite <- (ST th).
    assert (invS : forall x, L (S x) = L x) by (intros x; rewrite <- (TS x) at 2; symmetry; apply inv).
    apply (local_min_forward L S T TL ST TS invS (T th) H).
Qed.

(** ** The chain rule through a mixing map

    The rule the kernel checks on instances ("chain rule through a mixing map"): for a linear T that
    mixes coordinates, T e_r = sum_m M_rm e_m on the coordinate vectors e_r of the mixed index, and
    g Fréchet differentiable at T theta, every derivative of g o T at theta takes e_r to
    sum_m M_rm Dg(T theta)[e_m]: the partial derivative of g o T along theta_r is
    sum_m M_rm (d_m g)(T theta).  For every normed module, every number K of mixed coordinates. *)

Fixpoint vsum {V : NormedModule R_AbsRing} (K : nat) (f : nat -> V) : V :=
  match K with
  | O => zero
  | S k => plus (vsum k f) (f k)
  end.

(* a linear map takes a finite sum of multiples to the sum of the multiples of its images *)
Lemma linear_vsum {V : NormedModule R_AbsRing} (l : V -> R) (K : nat) (c : nat -> R) (e : nat -> V) :
  is_linear l -> l (vsum K (fun m => scal (c m) (e m))) = sum K (fun m => c m * l (e m)).
Proof.
  intros Hl. induction K as [|K IH]; simpl.
  - exact (linear_zero l Hl).
  - rewrite (linear_plus _ Hl), IH, (linear_scal _ Hl). reflexivity.
Qed.

Theorem mixing_chain_rule {V : NormedModule R_AbsRing} (g : V -> R) (T : V -> V) (Dg : V -> R) (th : V)
    (K : nat) (M : nat -> nat -> R) (e : nat -> V) :
  is_linear T -> filterdiff g (locally (T th)) Dg ->
  (forall r, T (e r) = vsum K (fun m => scal (M r m) (e m))) ->
  forall l, filterdiff (fun x => g (T x)) (locally th) l ->
  forall r, l (e r) = sum K (fun m => M r m * Dg (e m)).
Proof.
  intros HT Dgth Hmix l Dl r.
  (* g o T has the derivative Dg o T at th (the chain rule), so l is Dg o T (uniqueness) *)
  assert (D : filterdiff (fun x => g (T x)) (locally th) (fun u => Dg (T u)))
    by (apply (filterdiff_comp' T g th T Dg); [apply filterdiff_linear, HT | exact Dgth]).
  rewrite (frechet_unique _ th l _ Dl D (e r)), Hmix.
  (* Dg is linear: the image of the mixed sum is the mixed sum of the images *)
  destruct Dgth as [HDg _]. apply linear_vsum, HDg.
Qed.

(** ** The parameter space R^(n+1) with the Euclidean norm *)

(** n + 1 real coordinates as nested pairs (x_0, (x_1, ... x_n)); Coquelicot's norm of a pair is
    sqrt(|a|^2 + |b|^2), so the norm is the Euclidean one ([euclidean_norm]). *)
Fixpoint Euclid (n : nat) : NormedModule R_AbsRing :=
  match n with
  | O => R_NormedModule
  | S m => prod_NormedModule R_AbsRing R_NormedModule (Euclid m)
  end.

(** the k-th coordinate (k <= n) *)
Fixpoint entry (n : nat) : Euclid n -> nat -> R :=
  match n return Euclid n -> nat -> R with
  | O => fun x _ => x
  | S m => fun x k => match k with O => fst x | S k' => entry m (snd x) k' end
  end.

Fixpoint squares (n : nat) : Euclid n -> R :=
  match n return Euclid n -> R with
  | O => fun x => x ^ 2
  | S m => fun x => fst x ^ 2 + squares m (snd x)
  end.

Lemma squares_nonneg (n : nat) (x : Euclid n) : 0 <= squares n x.
Proof.
  induction n as [|m IH]; simpl; [apply pow2_ge_0|].
  apply Rplus_le_le_0_compat; [apply pow2_ge_0 | apply IH].
Qed.

(** ||x|| = sqrt (x_0^2 + ... + x_n^2) *)
Theorem euclidean_norm (n : nat) (x : Euclid n) : norm x = sqrt (squares n x).
Proof.
  induction n as [|m IH]; simpl.
  - (* one coordinate: |x| = sqrt (x^2) *)
    unfold norm; simpl. unfold abs; simpl. rewrite <- sqrt_Rsqr_abs. unfold Rsqr. f_equal. ring.
  - (* a pair: sqrt (|a|^2 + ||b||^2), ||b||^2 = squares of b *)
    destruct x as [a b]. unfold norm at 1; simpl. unfold prod_norm; simpl.
    match goal with |- context [@norm _ ?E b] => replace (@norm _ E b) with (sqrt (squares m b)) by (symmetry; apply IH) end.
    rewrite Rmult_1_r, Rmult_1_r, sqrt_sqrt by apply squares_nonneg.
    f_equal. f_equal. unfold norm; simpl. unfold abs; simpl.
    rewrite Rmult_1_r, <- Rabs_mult, Rabs_pos_eq; [reflexivity | apply Rle_0_sqr].
Qed.

(** ** Diagonal maps x |-> (t_0 x_0, ..., t_n x_n) *)

Fixpoint diag (n : nat) : (nat -> R) -> Euclid n -> Euclid n :=
  match n return (nat -> R) -> Euclid n -> Euclid n with
  | O => fun t x => scal (t O) x
  | S m => fun t x => (scal (t O) (fst x), diag m (fun k => t (S k)) (snd x))
  end.

Lemma diag_linear (n : nat) (t : nat -> R) : is_linear (diag n t).
Proof.
  revert t. induction n as [|m IH]; intros t; simpl.
  - exact (@is_linear_scal_r R_AbsRing R_NormedModule (t O) Rmult_comm).
  - (* the pair of t_0 times the first coordinate and the diagonal map of the others *)
    apply (is_linear_prod (fun x : Euclid (S m) => scal (t O) (fst x))
                          (fun x : Euclid (S m) => diag m (fun k => t (S k)) (snd x))).
    + apply (is_linear_comp fst (fun y => scal (t O) y));
        [apply is_linear_fst | exact (@is_linear_scal_r R_AbsRing R_NormedModule (t O) Rmult_comm)].
    + apply (is_linear_comp snd (diag m (fun k => t (S k)))); [apply is_linear_snd | apply IH].
Qed.

(* two diagonal maps whose entries multiply to 1 are inverse to each other *)
Lemma diag_inverse (n : nat) (t s : nat -> R) :
  (forall k, t k * s k = 1) -> forall x, diag n t (diag n s x) = x.
Proof.
  revert t s. induction n as [|m IH]; intros t s Hts x; simpl.
  - unfold scal; simpl. unfold mult; simpl. rewrite <- Rmult_assoc, Hts. ring.
  - destruct x as [a b]. simpl. f_equal.
    + unfold scal; simpl. unfold mult; simpl. rewrite <- Rmult_assoc, Hts. ring.
    + apply IH. intros k. apply Hts.
Qed.

Lemma diag_entry (n : nat) (t : nat -> R) (x : Euclid n) (k : nat) :
  (k <= n)%nat -> entry n (diag n t x) k = t k * entry n x k.
Proof.
  revert t x k. induction n as [|m IH]; intros t x k Hk; simpl.
  - replace k with O by lia. reflexivity.
  - destruct k as [|k']; [reflexivity|]. apply (IH (fun k => t (S k))). lia.
Qed.

(** The zero vector and the unit vector along the k-th coordinate (k <= n) *)
Fixpoint zeros (n : nat) : Euclid n :=
  match n return Euclid n with
  | O => 0
  | S m => (0, zeros m)
  end.

Fixpoint basis (n : nat) : nat -> Euclid n :=
  match n return nat -> Euclid n with
  | O => fun k => match k with O => 1 | S _ => 0 end
  | S m => fun k => match k with O => (1, zeros m) | S k' => (0, basis m k') end
  end.

Lemma squares_zeros (n : nat) : squares n (zeros n) = 0.
Proof. induction n as [|m IH]; simpl; [ring | rewrite IH; ring]. Qed.

Lemma diag_zeros (n : nat) (t : nat -> R) : diag n t (zeros n) = zeros n.
Proof.
  revert t. induction n as [|m IH]; intros t; simpl.
  - unfold scal; simpl. unfold mult; simpl. ring.
  - f_equal; [unfold scal; simpl; unfold mult; simpl; ring | apply IH].
Qed.

Lemma basis_unit (n k : nat) : (k <= n)%nat -> norm (basis n k) = 1.
Proof.
  intros Hk. rewrite euclidean_norm. rewrite <- sqrt_1. f_equal.
  revert k Hk. induction n as [|m IH]; intros k Hk; simpl.
  - replace k with O by lia. ring.
  - destruct k as [|k']; simpl.
    + rewrite squares_zeros. ring.
    + rewrite IH by lia. ring.
Qed.

Lemma scal_zeros (n : nat) (c : R) : scal c (zeros n) = zeros n.
Proof.
  induction n as [|m IH]; simpl.
  - unfold scal; simpl. unfold mult; simpl. ring.
  - unfold scal; simpl. unfold prod_scal; simpl.
    f_equal; try exact IH; unfold scal; simpl; unfold mult; simpl; ring.
Qed.

Lemma diag_basis (n : nat) (t : nat -> R) (k : nat) :
  (k <= n)%nat -> diag n t (basis n k) = scal (t k) (basis n k).
Proof.
  revert t k. induction n as [|m IH]; intros t k Hk; simpl.
  - replace k with O by lia. reflexivity.
  - destruct k as [|k']; unfold scal at 2; simpl; unfold prod_scal; simpl.
    + (* the first coordinate: t_0 1, and the diagonal map of 0 is 0 *)
      rewrite diag_zeros. f_equal; try (symmetry; apply scal_zeros); unfold scal; simpl; unfold mult; simpl; ring.
    + f_equal; try (apply (IH (fun k => t (S k))); lia); unfold scal; simpl; unfold mult; simpl; ring.
Qed.

(** ** Theorem 3 for the network of Theorem 1, with Fréchet derivatives *)

Section Theorem3.
Variables (d h : nat) (ell : ((nat -> R) -> R) -> R) (alpha : R).
Hypotheses (d_pos : (0 < d)%nat) (h_pos : (0 < h)%nat) (alpha_pos : 0 < alpha).

(** the d h + h entries: W_ij at i h + j, v_j at d h + j *)
Definition n : nat := (d * h + h - 1)%nat.
Definition params : NormedModule R_AbsRing := Euclid n.

Definition weights (x : params) : param := fun a =>
  match a with
  | Wc i j => entry n x (i * h + j)
  | Vc j => entry n x (d * h + j)
  end.

(** L(theta) = ell(f_theta), on the Euclidean parameter space *)
Definition L (x : params) : R := loss d h ell (weights x).

(** T_alpha: alpha on the d h entries of W, 1 / alpha on the h entries of v *)
Definition t (k : nat) : R := if Nat.ltb k (d * h) then alpha else / alpha.
Definition T_alpha : params -> params := diag n t.
Definition T_inverse : params -> params := diag n (fun k => / t k).

Lemma t_nonzero (k : nat) : t k <> 0.
Proof. unfold t. destruct (Nat.ltb k (d * h)); [lra | apply Rinv_neq_0_compat; lra]. Qed.

(* the loss reads only the entries W_ij, i < d, j < h and v_j, j < h *)
Lemma predict_in_range (p q : param) :
  (forall i j, (i < d)%nat -> (j < h)%nat -> p (Wc i j) = q (Wc i j)) ->
  (forall j, (j < h)%nat -> p (Vc j) = q (Vc j)) -> predict d h p = predict d h q.
Proof.
  intros HW HV. unfold predict. apply FunctionalExtensionality.functional_extensionality. intros x.
  apply sum_ext. intros j Hj. rewrite HV by exact Hj. f_equal. f_equal.
  apply sum_ext. intros i Hi. rewrite HW by assumption. reflexivity.
Qed.

Lemma L_invariant (x : params) : L (T_alpha x) = L x.
Proof.
  unfold L. rewrite <- (theorem1_loss d h ell alpha (weights x) alpha_pos). unfold loss. f_equal.
  apply predict_in_range.
  - intros i j Hi Hj. unfold weights, scale, t_alpha, T_alpha.
    assert (Hk : (i * h + j < d * h)%nat) by nia.
    rewrite diag_entry by (unfold n; nia). unfold t. rewrite (proj2 (Nat.ltb_lt _ _) Hk). reflexivity.
  - intros j Hj. unfold weights, scale, t_alpha, T_alpha.
    rewrite diag_entry by (unfold n; nia). unfold t. rewrite (proj2 (Nat.ltb_ge _ _)) by lia. reflexivity.
Qed.

Lemma T_linear : is_linear T_alpha.
Proof. apply diag_linear. Qed.

Lemma S_linear : is_linear T_inverse.
Proof. apply diag_linear. Qed.

Lemma T_S (x : params) : T_alpha (T_inverse x) = x.
Proof. apply diag_inverse. intros k. apply Rinv_r, t_nonzero. Qed.

Lemma S_T (x : params) : T_inverse (T_alpha x) = x.
Proof. apply diag_inverse. intros k. apply Rinv_l, t_nonzero. Qed.

(** T_{1/alpha} is the inverse: 1/alpha on W, alpha on v *)
Lemma T_inverse_is_scale (x : params) (k : nat) :
  (k <= n)%nat -> entry n (T_inverse x) k = (if Nat.ltb k (d * h) then / alpha else alpha) * entry n x k.
Proof.
  intros Hk. unfold T_inverse. rewrite diag_entry by exact Hk. unfold t.
  destruct (Nat.ltb k (d * h)); [reflexivity | rewrite Rinv_inv; reflexivity].
Qed.

(** Theorem 3 (seed 001): L continuous, Fréchet differentiable near theta with DL Fréchet
    differentiable at theta (direction by direction) => the same at T_alpha theta, and
    DL(T_alpha theta)[u] = DL(theta)[T_{1/alpha} u], H(T_alpha theta)[u, w] = H(theta)[T_{1/alpha} u, T_{1/alpha} w]. *)
Theorem theorem3_frechet (DL H : params -> params -> R) (th : params) :
  (forall x, continuous L x) ->
  twice_at L DL H th ->
  twice_at L (fun z u => DL (T_inverse z) (T_inverse u)) (fun u w => H (T_inverse u) (T_inverse w)) (T_alpha th) /\
  (forall l, filterdiff L (locally (T_alpha th)) l -> forall u, l u = DL th (T_inverse u)) /\
  (forall DL' H', twice_at L DL' H' (T_alpha th) -> forall u w, H' u w = H (T_inverse u) (T_inverse w)).
Proof.
  intros _ R. split; [|split].
  - exact (regularity_transport L T_alpha T_inverse S_linear T_S S_T L_invariant DL H th R).
  - intros l. exact (gradient_transport L T_alpha T_inverse S_linear T_S S_T L_invariant DL H th l R).
  - intros DL' H'. exact (hessian_transport L T_alpha T_inverse S_linear T_S S_T L_invariant DL H DL' H' th R).
Qed.

(** Theorem 1 (c) for the Euclidean norm: theta is a local minimum of L (a ball ||y - theta|| < eps)
    exactly when T_alpha theta is. *)
Theorem theorem1_local_min (th : params) : local_min L th <-> local_min L (T_alpha th).
Proof. exact (local_min_transport L T_alpha T_inverse T_linear S_linear T_S S_T L_invariant th). Qed.

End Theorem3.


(** ** Theorem 4: the spectral norm of the Hessian as large as wanted

    The norm of a bilinear form is sup over ||u|| <= 1, ||w|| <= 1 of |H[u, w]| (seed 001's
    definition; for the Hessian matrix, its spectral norm).  If the Hessian form at theta is
    non-zero on the unit vector e_k of one coordinate, then for every M > 0 some alpha > 0 makes
    every Hessian form of the regularity condition at T_alpha theta (there is one: [theorem3_frechet])
    at least M on unit vectors, so its norm is at least M: |H'(e_k, e_k)| = |H(e_k, e_k)| / t_k^2,
    t_k = alpha on W (alpha small), 1/alpha on v (alpha large). *)
Theorem theorem4_frechet (d h : nat) (ell : ((nat -> R) -> R) -> R) (DL H : params d h -> params d h -> R)
    (th : params d h) (k : nat) (M : R) :
  (0 < d)%nat -> (0 < h)%nat -> twice_at (L d h ell) DL H th ->
  (k <= n d h)%nat -> H (basis (n d h) k) (basis (n d h) k) <> 0 -> 0 < M ->
  exists alpha, 0 < alpha /\
    forall DL' H', twice_at (L d h ell) DL' H' (T_alpha d h alpha th) ->
      exists u w : params d h, norm u <= 1 /\ norm w <= 1 /\ M <= Rabs (H' u w).
Proof.
  intros Hd Hh R Hk Hnz HM.
  set (e := basis (n d h) k). set (gamma := Rabs (H e e)).
  assert (Hg : 0 < gamma) by (apply Rabs_pos_lt; exact Hnz).
  assert (unit : @norm R_AbsRing (params d h) e <= 1) by (right; exact (basis_unit (n d h) k Hk)).
  (* at T_alpha theta the entry is c^2 H(e, e), c = 1 / t_k: the Hessian law and bilinearity *)
  assert (entry : forall alpha, 0 < alpha -> forall DL' H', twice_at (L d h ell) DL' H' (T_alpha d h alpha th) ->
            Rabs (H' e e) = (/ t d h alpha k) ^ 2 * gamma).
  { intros alpha Ha DL' H' R'.
    rewrite (hessian_transport (L d h ell) (T_alpha d h alpha) (T_inverse d h alpha) (S_linear d h alpha)
               (T_S d h alpha Ha) (S_T d h alpha Ha) (L_invariant d h ell alpha Hd Hh Ha) DL H DL' H' th R R' e e).
    unfold T_inverse, e. rewrite diag_basis by exact Hk. fold e.
    rewrite (hessian_scal_first _ DL H th _ _ _ R), (hessian_scal_second _ DL H th _ _ _ R).
    unfold gamma. rewrite !Rabs_mult, <- Rmult_assoc. f_equal.
    rewrite <- Rabs_mult, Rabs_pos_eq by nra. ring. }
  destruct (Nat.ltb k (d * h)) eqn:W.
  - (* a weight W_ij: t_k = alpha, alpha = min(1, gamma / M), so gamma / alpha^2 >= gamma / alpha >= M *)
    set (alpha := Rmin 1 (gamma / M)).
    assert (Ha : 0 < alpha) by (apply Rmin_pos; [lra | apply Rdiv_lt_0_compat; lra]).
    assert (A1 : alpha <= 1) by apply Rmin_l. assert (A2 : alpha <= gamma / M) by apply Rmin_r.
    exists alpha. split; [exact Ha|]. intros DL' H' R'.
    exists e, e. split; [exact unit|]. split; [exact unit|].
    rewrite (entry alpha Ha DL' H' R'). unfold t. rewrite W.
    assert (A3 : alpha * M <= gamma).
    { apply (Rmult_le_compat_r M) in A2; [|lra]. replace (gamma / M * M) with gamma in A2 by (field; lra). lra. }
    replace ((/ alpha) ^ 2 * gamma) with (gamma / (alpha * alpha)) by (field; lra).
    apply (Rmult_le_reg_r (alpha * alpha)); [nra|].
    replace (gamma / (alpha * alpha) * (alpha * alpha)) with gamma by (field; lra). nra.
  - (* an output weight v_j: t_k = 1/alpha, alpha = max(1, M / gamma), so alpha^2 gamma >= alpha gamma >= M *)
    set (alpha := Rmax 1 (M / gamma)).
    assert (A1 : 1 <= alpha) by apply Rmax_l. assert (A2 : M / gamma <= alpha) by apply Rmax_r.
    assert (Ha : 0 < alpha) by lra.
    exists alpha. split; [exact Ha|]. intros DL' H' R'.
    exists e, e. split; [exact unit|]. split; [exact unit|].
    rewrite (entry alpha Ha DL' H' R'). unfold t. rewrite W. rewrite Rinv_inv.
    assert (A3 : M <= alpha * gamma).
    { apply (Rmult_le_compat_r gamma) in A2; [|lra]. replace (M / gamma * gamma) with M in A2 by (field; lra). lra. }
    nra.
Qed.
