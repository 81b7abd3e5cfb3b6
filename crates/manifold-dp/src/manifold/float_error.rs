//! Proven bounds on the f64 error of the quantities the Karcher stop test and the ball check use: the sum of
//! the logs (its summation order and depth), each computed log, each computed distance
//! (`docs/proofs/frechet_mean_sensitivity.md`, "The computed mean is not the exact mean").
//!
//! u = 2^-53 and γ_n = nu/(1 − nu) throughout (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1).
//! The per-manifold bounds are first-order in u with the second-order terms covered by the factor
//! [`SLACK`] (every bound is ≤ 10⁻³ where it is used, so the neglected terms are below 10⁻³ of it).

use super::Manifold;
use crate::numerics::eigen_backward_error;
use crate::numerics::rounding::{add_up, fn_up, mul_up};
use nalgebra::{DMatrix, DVector};

/// The unit roundoff of f64.
pub const U: f64 = f64::EPSILON / 2.0;

/// Covers the second-order terms of the first-order bounds below (each is used only while ≤ 10⁻³).
pub const SLACK: f64 = 1.1;

/// Rows summed one after another (by [`Manifold::sum_log`]) before the block sums are added pairwise.
pub const SUM_BLOCK: usize = 64;

/// γ_n = nu/(1 − nu), rounded up; ∞ once nu ≥ 1.
pub fn gamma(n: f64) -> f64 {
    let nu = n * U;
    if nu >= 1.0 { f64::INFINITY } else { fn_up(nu / (1.0 - nu)) }
}

/// ⌈log₂(k + 1)⌉: the depth a binary-counter cascade ([`PairwiseSum`]) adds over k items.
pub fn cascade_depth(k: usize) -> u32 {
    usize::BITS - k.leading_zeros()
}

/// The summation depth of [`sum_log_pairwise`] over n rows: a block of ≤ [`SUM_BLOCK`] rows is a sequential
/// sum (depth ≤ its length, one more for the log-Euclidean metric's subtraction of the base's log, counted
/// for every metric) and the block sums are cascaded.
pub fn summation_depth(n: usize) -> u32 {
    SUM_BLOCK as u32 + cascade_depth(n.div_ceil(SUM_BLOCK))
}

/// The depth the public tolerance is sized for (`KarcherStop`): [`summation_depth`] of n rows, plus a
/// cascade of up to n chunk sums, plus 64 sequential merges of distributed passes. A larger depth is still
/// certified (the test uses the depth actually reached), it only reaches the tolerance less easily.
pub fn public_depth(n: usize) -> u32 {
    summation_depth(n) + cascade_depth(n) + 64
}

/// Sums added pairwise as they arrive (a binary counter: level j holds the sum of 2^j items), each with the
/// depth of its summation tree, so the depth of the whole sum is known exactly.
#[derive(Debug, Clone, Default)]
pub struct PairwiseSum {
    levels: Vec<Option<(DVector<f64>, u32)>>,
}

impl PairwiseSum {
    /// An empty sum.
    pub fn new() -> Self {
        PairwiseSum::default()
    }

    /// Adds `value`, itself a sum of summation depth `depth`.
    pub fn push(&mut self, value: DVector<f64>, depth: u32) {
        let mut carry = (value, depth);
        for level in self.levels.iter_mut() {
            match level.take() {
                None => {
                    *level = Some(carry);
                    return;
                }
                Some((v, d)) => carry = (v + carry.0, d.max(carry.1) + 1),
            }
        }
        self.levels.push(Some(carry));
    }

    /// The sum and its depth (lowest level first, so a term's depth grows by at most ⌈log₂(k + 1)⌉ over the
    /// k items pushed); `None` if nothing was pushed.
    pub fn finish(self) -> Option<(DVector<f64>, u32)> {
        self.levels.into_iter().flatten().reduce(|(a, da), (b, db)| (a + b, da.max(db) + 1))
    }
}

/// Σ log_base(x_i) over non-empty `xs` in the order whose depth [`summation_depth`] bounds: blocks of
/// [`SUM_BLOCK`] rows by [`Manifold::sum_log`], the block sums cascaded ([`PairwiseSum`]). Returns the sum
/// and its depth.
pub fn sum_log_pairwise<M: Manifold + ?Sized>(m: &M, base: &M::Point, xs: &[M::Point]) -> (DVector<f64>, u32) {
    let mut sum = PairwiseSum::new();
    for block in xs.chunks(SUM_BLOCK) {
        sum.push(m.sum_log(base, block), block.len() as u32);
    }
    sum.finish().expect("a non-empty slice")
}

/// The bounds a Karcher stop test needs about the logs it sums (`docs/proofs/frechet_mean_sensitivity.md`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogError {
    /// e_ℓ: ‖ℓ̂ − ℓ‖ for one computed log ℓ̂ against the exact log ℓ (at the exact point the f64 base
    /// stands for, in coordinates whose norm is that point's Riemannian norm).
    pub per_log: f64,
    /// T: a bound on the magnitude of each term the code adds (‖ℓ̂‖ ≤ reach + e_ℓ for Riemannian logs; the
    /// log-Euclidean metric adds log X and subtracts log P, so 2‖log P‖ + reach + e_ℓ).
    pub term: f64,
}

impl LogError {
    /// The part of the certified bound that does not shrink with the computed gradient: e_ℓ + γ_d·T.
    pub fn floor(&self, depth: u32) -> f64 {
        let floor = add_up(self.per_log, mul_up(gamma(f64::from(depth)), self.term));
        if floor.is_nan() { f64::INFINITY } else { floor }
    }
}

/// An upper bound on the exact gradient norm ‖(1/n) Σ ℓ_i‖ from the computed one, `computed_norm` =
/// fl(‖fl(Ŝ/n)‖) for a `len`-coordinate gradient: the division and the norm err by at most (len + 8)u
/// relatively, the sum by γ_d·T per row and each log by e_ℓ ([`LogError::floor`]).
pub fn certified_gradient_bound(computed_norm: f64, len: usize, depth: u32, logs: LogError) -> f64 {
    add_up(mul_up(computed_norm, 1.0 + (len as f64 + 8.0) * 2.0 * U), logs.floor(depth))
}

/// −√k·ln(1 − δ): how far (in ρ) a relative perturbation ‖A^{-½}EA^{-½}‖ ≤ δ moves an SPD(k) matrix A
/// (each eigenvalue of I + A^{-½}EA^{-½} lies in [1 − δ, 1 + δ]); ∞ above δ = 10⁻³, where the first-order
/// bounds stop being used.
pub fn spd_moved(k: usize, delta: f64) -> f64 {
    if delta.is_nan() || delta >= 1e-3 {
        return f64::INFINITY;
    }
    fn_up(-(k as f64).sqrt() * (-delta).ln_1p())
}

/// An upper bound on the condition number of the f64 SPD matrix `p` from its computed eigenvalues: under
/// (E) the exact ones lie within c_E·u·‖p‖_F ≤ c_E·u·√k·max λ̂ (Weyl); ∞ if the smallest could be ≤ 0.
pub fn spd_condition_bound(p: &DMatrix<f64>) -> f64 {
    let k = p.nrows();
    let values = nalgebra::SymmetricEigen::new(p.clone()).eigenvalues;
    let hi = values.iter().fold(0.0f64, |a, &v| a.max(v.abs()));
    let lo = values.iter().fold(f64::INFINITY, |a, &v| a.min(v));
    let e = eigen_backward_error(k) * U * (k as f64).sqrt() * hi * SLACK;
    if (lo - e).is_nan() || lo - e <= 0.0 || !hi.is_finite() {
        return f64::INFINITY;
    }
    fn_up((hi + e) / (lo - e))
}

/// e(L): the error of a computed matrix logarithm log X, ‖log X̂ − log X‖_F, for ‖log X‖_F ≤ L: the
/// eigensolver's backward error (E) moves X by ρ ≤ √k·δ_E, δ_E = c_E·u·√k·cond(X), cond(X) ≤ e^{√2 L}, and log
/// is 1-Lipschitz from ρ to the Frobenius norm (Bhatia, Thm 6.1.4); assembling V·diag(ln λ)·Vᵀ adds
/// u·(2c_E + 2k + 8)·√k·(L + 1) (as in `spd_log_chart_error`).
pub fn spd_logm_error(k: usize, log_norm: f64) -> f64 {
    let kf = k as f64;
    let cond = (std::f64::consts::SQRT_2 * log_norm).exp() * SLACK;
    let eigen = spd_moved(k, eigen_backward_error(k) * U * kf.sqrt() * cond);
    let assemble = U * (2.0 * eigen_backward_error(k) + 2.0 * kf + 8.0) * kf.sqrt() * (log_norm + 1.0);
    fn_up(add_up(eigen, assemble) * SLACK)
}

/// The affine-invariant metric's computed whitening at a base P of condition number ≤ `cond_base`: the
/// computed P^{-½} is exactly Q^{-½} for the f64 matrix's own Q = Ŵ^{-2}, with ρ(P, Q) ≤ 2√k·δ_P,
/// δ_P = (c_E + 2k² + 8)·√k·u·cond(P) (the eigensolver's backward error (E), the square roots and
/// reciprocals within 2 ulps, and assembling U·diag·Uᵀ, γ_k·k relative to P^{-½} whose condition number is
/// √cond(P)). Returns (ρ(P, Q), cond(Q)).
fn spd_affine_base(k: usize, cond_base: f64) -> (f64, f64) {
    let kf = k as f64;
    let delta = (eigen_backward_error(k) + 2.0 * kf * kf + 8.0) * kf.sqrt() * U * cond_base * SLACK;
    let rho = 2.0 * spd_moved(k, delta);
    (fn_up(rho), fn_up(cond_base * (1.0 + 3.0 * delta)))
}

/// The affine-invariant metric at a base P (cond(P) ≤ `cond_base`) for points X within `reach` of P: the
/// error chain of log(Ŵ·X·Ŵ) (`docs/proofs/frechet_mean_sensitivity.md`): (ρ(P, Q), the ρ-error of the
/// whitened matrix and its eigendecomposition, cond(Y) for Y = ŴXŴ).
fn spd_affine_chain(k: usize, cond_base: f64, reach: f64) -> (f64, f64, f64) {
    let kf = k as f64;
    let (base, cond_q) = spd_affine_base(k, cond_base);
    let cond_y = (std::f64::consts::SQRT_2 * (reach + base)).exp() * SLACK;
    // fl(Ŵ·X·Ŵ): |E| ≤ γ_2k·|Ŵ||X||Ŵ|, ‖E‖₂ ≤ γ_2k·k^{3/2}·‖Ŵ‖²‖X‖ ≤ γ_2k·k^{3/2}·cond(Q)·cond(Y)·λ_min(Y).
    let whitened = spd_moved(k, gamma(2.0 * kf) * kf.powf(1.5) * cond_q * cond_y);
    let eigen = spd_moved(k, eigen_backward_error(k) * U * kf.sqrt() * cond_y);
    (base, fn_up(add_up(whitened, eigen) * SLACK), cond_y)
}

/// |ρ̂(P, X) − ρ(P, X)| for the affine-invariant distance (√(Σ ln² λ̂) of Ŵ·X·Ŵ's eigenvalues) at a base of
/// condition number ≤ `cond_base`, for ρ(P, X) ≤ `reach`: ρ(P, Q) + the chain's error + the logarithms,
/// squares, sum and square root, u·(k + 8)·(reach + 1).
pub fn spd_affine_distance_error(k: usize, cond_base: f64, reach: f64) -> f64 {
    let (base, chain, _) = spd_affine_chain(k, cond_base, reach);
    fn_up(add_up(add_up(base, chain), U * (k as f64 + 8.0) * (reach + 1.0)) * SLACK)
}

/// [`LogError`] for the affine-invariant log at a base of condition number ≤ `cond_base`, points within
/// `reach`: the chain's error, assembling the log (as in [`spd_logm_error`]), and the gradient's change
/// from Q to P, at most (1 + reach/√2)·ρ(P, Q) (the Hessian of ½ρ²(·, x) is at most 1 + ρ/√2 on SPD(k),
/// whose sectional curvatures are ≥ −½).
pub fn spd_affine_log_error(k: usize, cond_base: f64, reach: f64) -> LogError {
    let kf = k as f64;
    let (base, chain, _) = spd_affine_chain(k, cond_base, reach);
    let assemble = U * (2.0 * eigen_backward_error(k) + 2.0 * kf + 8.0) * kf.sqrt() * (reach + base + 1.0);
    let moved = (1.0 + (reach + base) * std::f64::consts::FRAC_1_SQRT_2) * base;
    let per_log = fn_up(add_up(add_up(chain, assemble), moved) * SLACK);
    LogError { per_log, term: add_up(reach, per_log) }
}

/// The unit-norm defect ν of a stored point of S^{D−1}: a vector divided by its computed norm has norm
/// within (D/2 + 2)u of 1; (D + 4)u covers it, and the Karcher iterates (renormalised by `Sphere::exp`).
fn unit_defect(ambient: usize) -> f64 {
    (ambient as f64 + 4.0) * U
}

/// |ρ̂ − ρ| for 2·atan2(‖x − y‖, ‖x + y‖) on S^{D−1} at ρ ≤ `reach`, ρ between x/‖x‖ and y/‖y‖: rescaling y
/// by 1 + β (|β| ≤ 2ν) moves each norm by ≤ |β|, and atan2 by ≤ |β|/√2 (its gradient has norm
/// 1/√(a² + b²) = ½), so 2·atan2 by ≤ 2√2·ν; relative errors ε_a, ε_b of the two norms ((D/2 + 3)u each)
/// move atan(a/b) by ≤ (|ε_a| + |ε_b|)/2; atan2 within 2 ulps of its value ≤ π/2 adds 4u·reach/2, doubled.
pub fn sphere_distance_error(ambient: usize, reach: f64) -> f64 {
    let d = ambient as f64;
    fn_up(((2.0 * std::f64::consts::SQRT_2) * unit_defect(ambient) + (d + 6.0) * U + 4.0 * U * reach) * SLACK)
}

/// [`LogError`] for log_x(y) = θ·v/‖v‖, v = y − x(x·y), on S^{D−1} for ρ ≤ `reach` < π: v's absolute error
/// a ≤ (D + 3)u + 3ν (the dot product, one product and one difference per coordinate, and the unit-norm
/// defects); its direction v/‖v‖ errs by ≤ 2a/sin θ, times θ ≤ reach; θ by ≤ a + (D + 2)u + 4u·θ
/// (`Sphere::sum_log`'s 2·atan2 and the S² kernel's atan(‖v‖/(x·y)) alike), and the final product by 2u·θ.
pub fn sphere_log_error(ambient: usize, reach: f64) -> LogError {
    if reach.is_nan() || reach >= std::f64::consts::PI {
        return LogError { per_log: f64::INFINITY, term: f64::INFINITY };
    }
    let d = ambient as f64;
    let a = (d + 3.0) * U + 3.0 * unit_defect(ambient);
    let direction = if reach > 0.0 { 2.0 * a * reach / reach.sin() } else { 2.0 * a };
    let per_log = fn_up((direction + a + (d + 2.0) * U + 6.0 * U * reach) * SLACK);
    LogError { per_log, term: add_up(reach, per_log) }
}

/// A double-double reference for SPD(2) (tests only): the affine-invariant distance between 2×2 matrices
/// given to ~32 digits, from the generalised eigenvalues of (A, B), the roots of
/// det(B)λ² − (a₁₁b₂₂ + a₂₂b₁₁ − 2a₁₂b₁₂)λ + det(A), computed in double-double.
#[cfg(test)]
pub(crate) mod reference {
    /// hi + lo, |lo| ≤ ulp(hi)/2.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Dd(pub f64, pub f64);

    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }

    impl Dd {
        pub fn from(x: f64) -> Dd {
            Dd(x, 0.0)
        }
        pub fn add(self, o: Dd) -> Dd {
            let s = two_sum(self.0, o.0);
            let t = two_sum(self.1, o.1);
            let v = two_sum(s.0, s.1 + t.0);
            two_sum(v.0, v.1 + t.1)
        }
        pub fn neg(self) -> Dd {
            Dd(-self.0, -self.1)
        }
        pub fn sub(self, o: Dd) -> Dd {
            self.add(o.neg())
        }
        pub fn mul(self, o: Dd) -> Dd {
            let p = self.0 * o.0;
            let e = self.0.mul_add(o.0, -p);
            two_sum(p, e + self.0 * o.1 + self.1 * o.0)
        }
        pub fn div(self, o: Dd) -> Dd {
            let q1 = self.0 / o.0;
            let r = self.sub(o.mul(Dd::from(q1)));
            let q2 = r.0 / o.0;
            let r = r.sub(o.mul(Dd::from(q2)));
            two_sum(q1, q2 + r.0 / o.0)
        }
        pub fn sqrt(self) -> Dd {
            if self.0 <= 0.0 {
                // √0 = 0 (the correction below would divide by it).
                return Dd(0.0, 0.0);
            }
            let s = self.0.sqrt();
            let r = self.sub(Dd::from(s).mul(Dd::from(s)));
            two_sum(s, r.0 / (2.0 * s))
        }
        /// ln, accurate to ~1e-16 absolute (ln_1p near 1 keeps it relative there).
        pub fn ln(self) -> f64 {
            if (0.5..=2.0).contains(&self.0) {
                ((self.0 - 1.0) + self.1).ln_1p()
            } else {
                self.0.ln() + self.1 / self.0
            }
        }
    }

    /// A symmetric 2×2 matrix (a₁₁, a₁₂, a₂₂) in double-double.
    pub type Sym = [Dd; 3];

    pub fn sym(m: &nalgebra::DMatrix<f64>) -> Sym {
        [Dd::from(m[(0, 0)]), Dd::from(m[(0, 1)]), Dd::from(m[(1, 1)])]
    }

    /// ρ(A, B) for SPD(2) matrices A, B (affine-invariant).
    pub fn distance(a: Sym, b: Sym) -> f64 {
        let det = |m: Sym| m[0].mul(m[2]).sub(m[1].mul(m[1]));
        let (qa, qc) = (det(b), det(a));
        let qb = a[0].mul(b[2]).add(a[2].mul(b[0])).sub(Dd::from(2.0).mul(a[1]).mul(b[1]));
        let disc = qb.mul(qb).sub(Dd::from(4.0).mul(qa).mul(qc));
        let disc = if disc.0 < 0.0 { Dd::from(0.0) } else { disc.sqrt() };
        let big = qb.add(disc).div(Dd::from(2.0).mul(qa));
        let small = qc.div(qa.mul(big));
        (big.ln().powi(2) + small.ln().powi(2)).sqrt()
    }

    /// W·P·Wᵀ for f64 W (2×2) and symmetric f64 P, in double-double.
    pub fn congruence(w: &nalgebra::DMatrix<f64>, p: &nalgebra::DMatrix<f64>) -> Sym {
        let entry = |i: usize, k: usize| {
            let mut acc = Dd::from(0.0);
            for j in 0..2 {
                for l in 0..2 {
                    acc = acc.add(Dd::from(w[(i, j)]).mul(Dd::from(p[(j, l)])).mul(Dd::from(w[(k, l)])));
                }
            }
            acc
        };
        [entry(0, 0), entry(0, 1), entry(1, 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifold::Sphere;

    /// The cascade's depth is exact and within ⌈log₂(k + 1)⌉ of its items'; the pairwise sum is the sum.
    #[test]
    fn pairwise_sums_have_the_depth_they_report() {
        for k in [1usize, 2, 3, 7, 8, 9, 100, 1000] {
            let mut sum = PairwiseSum::new();
            for i in 0..k {
                sum.push(DVector::from_vec(vec![i as f64]), 5);
            }
            let (s, depth) = sum.finish().unwrap();
            assert_eq!(s[0], (k * (k - 1) / 2) as f64);
            assert!(depth <= 5 + cascade_depth(k), "{k}: {depth}");
            if k > 1 {
                assert!(depth > 5);
            }
        }
        assert!(PairwiseSum::new().finish().is_none());
        assert_eq!(cascade_depth(0), 0);
        assert_eq!(cascade_depth(1), 1);
        assert_eq!(cascade_depth(7), 3);
        assert_eq!(cascade_depth(8), 4);
        // The sum of logs over blocks: the depth stays within summation_depth.
        let s2 = Sphere::new(3).unwrap();
        let base = DVector::from_vec(vec![0.0, 0.0, 1.0]);
        let xs: Vec<_> =
            (0..1000).map(|i| DVector::from_vec(vec![0.01 * (i as f64).sin(), 0.01, 1.0]).normalize()).collect();
        let (sum, depth) = sum_log_pairwise(&s2, &base, &xs);
        assert!(depth <= summation_depth(xs.len()));
        assert!((sum - s2.sum_log(&base, &xs)).norm() < 1e-12);
    }

    /// The distance bounds hold against references: SPD(2) against double-double at condition numbers of the
    /// centre from 1 to 10¹⁰ (where the computed distance errs by up to ~10⁻⁶); S² against the exact angle of
    /// nearly equal and nearly antipodal unit vectors (double-double dot and cross products).
    #[test]
    fn distance_errors_are_within_their_bounds() {
        use crate::manifold::{Manifold, SpdAffine};
        use nalgebra::DMatrix;
        let spd = SpdAffine::new(2).unwrap();
        let mut worst: f64 = 0.0;
        for (c, cond) in [1.0, 1e4, 1e8, 1e10].into_iter().enumerate() {
            let (ct, st) = (0.3f64.cos(), 0.3f64.sin());
            let rot = DMatrix::from_row_slice(2, 2, &[ct, -st, st, ct]);
            let m0 =
                &rot * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1.0, 1.0 / cond])) * rot.transpose();
            let m0 = (&m0 + m0.transpose()) * 0.5;
            let reach = 2.0;
            for i in 0..200 {
                let t = reach * (i as f64 + 0.5) / 200.0;
                let a = (i * 7 + c) as f64;
                let s = DMatrix::from_row_slice(2, 2, &[a.sin(), a.cos() * 0.7, a.cos() * 0.7, (2.0 * a).sin()]);
                let s = &s * (t / s.norm());
                let x = crate::space::spd::congruence(
                    &crate::space::spd::sqrt_and_inv_sqrt(&m0).0,
                    &crate::space::spd::expm(&s),
                );
                let exact = reference::distance(reference::sym(&m0), reference::sym(&x));
                let computed = spd.distance(&m0, &x);
                let bound = spd.distance_error(&m0, 0.0, exact.max(computed) * 1.001);
                assert!((computed - exact).abs() <= bound, "cond {cond:e}, t {t}: |{computed} − {exact}| > {bound:e}");
                worst = worst.max((computed - exact).abs() / bound);
            }
        }
        // The bound is a bound, and not vacuous by orders of magnitude at every condition number.
        assert!(worst > 1e-4, "{worst}");
        let s2 = Sphere::new(3).unwrap();
        for i in 0..2000 {
            let t = 3.0 * (i as f64 + 0.5) / 2000.0 + if i % 2 == 0 { 0.0 } else { 1e-9 };
            let x = DVector::from_vec(vec![0.2, 0.3, 1.0]).normalize();
            let e = DVector::from_vec(vec![1.0, -0.4, -0.08]);
            let e = (&e - &x * x.dot(&e)).normalize();
            let y = (&x * t.cos() + &e * t.sin()).normalize();
            // The exact angle between x/‖x‖ and y/‖y‖: atan2(‖x × y‖, x·y) in double-double.
            use reference::Dd;
            let p = |a: f64, b: f64| Dd::from(a).mul(Dd::from(b));
            let dot = p(x[0], y[0]).add(p(x[1], y[1])).add(p(x[2], y[2]));
            let c0 = p(x[1], y[2]).sub(p(x[2], y[1]));
            let c1 = p(x[2], y[0]).sub(p(x[0], y[2]));
            let c2 = p(x[0], y[1]).sub(p(x[1], y[0]));
            let cross = c0.mul(c0).add(c1.mul(c1)).add(c2.mul(c2)).sqrt();
            let exact =
                cross.0.atan2(dot.0) + (cross.1 * dot.0 - dot.1 * cross.0) / (cross.0 * cross.0 + dot.0 * dot.0);
            let computed = s2.distance(&x, &y);
            let bound = s2.distance_error(&x, 0.0, t + 1e-6);
            assert!((computed - exact).abs() <= bound, "t {t}: |{computed} − {exact}| > {bound:e}");
        }
    }

    /// At 2·10⁷ rows and reach 3 the floor of a sphere's stop test stays far below the default 1e-12 (it
    /// would be γ_{2·10⁷}·3 ≈ 6.7e-9 summed one row after another).
    #[test]
    fn the_floor_is_small_at_large_n() {
        let n = 20_000_000;
        let floor = sphere_log_error(3, 1.5).floor(public_depth(n));
        assert!(floor < 1e-13, "{floor:e}");
        assert!(gamma((n - 1) as f64) * 1.5 > 1e-9);
    }
}
