//! SPD(k), the k×k symmetric positive definite matrices, with two metrics:
//!
//! - [`SpdAffine`]: the affine-invariant metric ⟨A, B⟩_P = tr(P⁻¹AP⁻¹B), ρ(P, Q) = ‖log(P^{-1/2}QP^{-1/2})‖_F.
//!   Non-positively curved and complete (a Hadamard manifold): injectivity radius ∞, κ ≤ 0, so h = 1 and
//!   Δ = 2r/n for any radius r. Homogeneous under P ↦ GPGᵀ, so the Laplace normaliser is footpoint-free.
//! - [`SpdLogEuclidean`]: ρ(P, Q) = ‖log P − log Q‖_F, flat (isometric to symmetric matrices via log).
//!
//! Tangent coordinates: the k×k symmetric matrix S flattened row by row, whose Euclidean norm is the
//! Frobenius norm, i.e. the Riemannian norm (for the affine metric S = P^{-1/2} V P^{-1/2} is the whitened
//! tangent vector V at P).

use super::Manifold;
use super::float_error;
use crate::Fallible;
use crate::error::Error;
use crate::error::Param;
use crate::manifold::fixed;
use crate::space::metric::Metric;
use crate::space::spd::{affine_invariant_distance, congruence, expm, log_euclidean_distance, logm, sqrt_and_inv_sqrt};
use nalgebra::{DMatrix, DVector};

fn check_k(k: usize) -> Fallible<usize> {
    if (1..=64).contains(&k) {
        Ok(k)
    } else {
        Err(Error::InvalidParameter { name: Param::K, value: k as f64, reason: "SPD(k) needs 1 ≤ k ≤ 64" })
    }
}

/// The entries of a symmetric matrix as a vector (column order = row order by symmetry).
fn flatten(m: DMatrix<f64>) -> DVector<f64> {
    DVector::from_column_slice(m.as_slice())
}

fn unflatten(v: &DVector<f64>, k: usize) -> DMatrix<f64> {
    let m = DMatrix::from_column_slice(k, k, v.as_slice());
    (&m + m.transpose()) * 0.5
}

/// SPD(k) with the affine-invariant (Fisher–Rao for covariance matrices, up to a factor) metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpdAffine {
    k: usize,
}

impl SpdAffine {
    /// SPD(k), 1 ≤ k ≤ 64.
    pub fn new(k: usize) -> Fallible<Self> {
        Ok(SpdAffine { k: check_k(k)? })
    }

    /// The matrix size k.
    pub fn k(&self) -> usize {
        self.k
    }
}

impl Manifold for SpdAffine {
    type Point = DMatrix<f64>;

    fn describe(&self) -> String {
        format!("SPD({}) (affine-invariant metric)", self.k)
    }

    fn dimension(&self) -> usize {
        self.k * (self.k + 1) / 2
    }

    fn distance(&self, a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
        match self.k {
            2 => fixed::spd_affine_distance::<2>(&fixed::to_fixed(a), &fixed::to_fixed(b)),
            3 => fixed::spd_affine_distance::<3>(&fixed::to_fixed(a), &fixed::to_fixed(b)),
            _ => affine_invariant_distance(a, b),
        }
    }

    fn metric(&self) -> Metric {
        Metric::SpdAffineInvariant
    }

    /// log(P^{-1/2} X P^{-1/2}), flattened.
    fn log(&self, p: &DMatrix<f64>, x: &DMatrix<f64>) -> DVector<f64> {
        self.sum_log(p, std::slice::from_ref(x))
    }

    /// P^{1/2} exp(S) P^{1/2}.
    fn exp(&self, p: &DMatrix<f64>, v: &DVector<f64>) -> DMatrix<f64> {
        fn small<const K: usize>(p: &DMatrix<f64>, v: &DVector<f64>) -> DMatrix<f64>
        where
            fixed::Fixed<K>: fixed::SymEigen<K>,
        {
            let (p_sqrt, _) = fixed::sqrt_and_inv_sqrt(&fixed::to_fixed::<K>(p));
            fixed::to_dynamic(&fixed::congruence(&p_sqrt, &fixed::sym_fn(&fixed::unflatten::<K>(v), f64::exp)))
        }
        match self.k {
            2 => small::<2>(p, v),
            3 => small::<3>(p, v),
            _ => {
                let (p_sqrt, _) = sqrt_and_inv_sqrt(p);
                congruence(&p_sqrt, &expm(&unflatten(v, self.k)))
            }
        }
    }

    /// Whitens by P^{-1/2} once for all the data; SPD(2) and SPD(3) on the stack ([`fixed`]).
    fn sum_log(&self, p: &DMatrix<f64>, xs: &[DMatrix<f64>]) -> DVector<f64> {
        fn small<const K: usize>(p: &DMatrix<f64>, xs: &[DMatrix<f64>]) -> DVector<f64>
        where
            fixed::Fixed<K>: fixed::SymEigen<K>,
        {
            let (_, p_inv_sqrt) = fixed::sqrt_and_inv_sqrt(&fixed::to_fixed::<K>(p));
            fixed::flatten(&fixed::spd_affine_sum_log(&p_inv_sqrt, xs))
        }
        match self.k {
            2 => small::<2>(p, xs),
            3 => small::<3>(p, xs),
            _ => {
                let (_, p_inv_sqrt) = sqrt_and_inv_sqrt(p);
                let mut sum = DMatrix::zeros(self.k, self.k);
                for x in xs {
                    sum += logm(&congruence(&p_inv_sqrt, x));
                }
                flatten(sum)
            }
        }
    }

    fn extrinsic_sum(&self, xs: &[DMatrix<f64>], _near: &DMatrix<f64>) -> Option<DVector<f64>> {
        Some(matrix_sum(self.k, xs))
    }

    /// The arithmetic mean (pyriemann's start), checked to be a valid point.
    fn extrinsic_mean(&self, sum: &DVector<f64>, n: usize) -> Option<DMatrix<f64>> {
        arithmetic_mean(self.k, sum, n)
    }

    /// cond(b) ≤ cond(near)·e^{√2·offset} (congruence by near^{-½} is an isometry and the whitened b has
    /// log-eigenvalues spread over at most √2·offset), then [`float_error::spd_affine_distance_error`].
    fn distance_error(&self, near: &DMatrix<f64>, offset: f64, reach: f64) -> f64 {
        float_error::spd_affine_distance_error(self.k, condition_within(near, offset), reach)
    }

    fn log_error(&self, near: &DMatrix<f64>, offset: f64, reach: f64) -> super::LogError {
        float_error::spd_affine_log_error(self.k, condition_within(near, offset), reach)
    }

    fn injectivity_radius(&self) -> f64 {
        f64::INFINITY
    }

    fn curvature_bound(&self) -> f64 {
        0.0
    }

    fn footpoint_independent_normaliser(&self) -> bool {
        true
    }
}

/// SPD(k) with the log-Euclidean metric ‖log P − log Q‖_F: flat, and its Fréchet mean is exp(mean log X_i).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpdLogEuclidean {
    k: usize,
}

impl SpdLogEuclidean {
    /// SPD(k), 1 ≤ k ≤ 64.
    pub fn new(k: usize) -> Fallible<Self> {
        Ok(SpdLogEuclidean { k: check_k(k)? })
    }

    /// The matrix size k.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Σ log X_i; SPD(2) and SPD(3) on the stack ([`fixed`]).
    fn sum_logm(&self, xs: &[DMatrix<f64>]) -> DMatrix<f64> {
        match self.k {
            2 => fixed::to_dynamic(&fixed::spd_sum_logm::<2>(xs)),
            3 => fixed::to_dynamic(&fixed::spd_sum_logm::<3>(xs)),
            _ => {
                let mut sum = DMatrix::zeros(self.k, self.k);
                for x in xs {
                    sum += logm(x);
                }
                sum
            }
        }
    }
}

impl Manifold for SpdLogEuclidean {
    type Point = DMatrix<f64>;

    fn describe(&self) -> String {
        format!("SPD({}) (log-Euclidean metric)", self.k)
    }

    fn dimension(&self) -> usize {
        self.k * (self.k + 1) / 2
    }

    fn distance(&self, a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
        log_euclidean_distance(a, b)
    }

    fn metric(&self) -> Metric {
        Metric::SpdLogEuclidean
    }

    /// log X − log P, flattened.
    fn log(&self, p: &DMatrix<f64>, x: &DMatrix<f64>) -> DVector<f64> {
        flatten(logm(x) - logm(p))
    }

    /// exp(log P + S).
    fn exp(&self, p: &DMatrix<f64>, v: &DVector<f64>) -> DMatrix<f64> {
        expm(&(logm(p) + unflatten(v, self.k)))
    }

    fn mean_log(&self, p: &DMatrix<f64>, xs: &[DMatrix<f64>]) -> DVector<f64> {
        flatten(self.sum_logm(xs) / xs.len() as f64 - logm(p))
    }

    fn sum_log(&self, p: &DMatrix<f64>, xs: &[DMatrix<f64>]) -> DVector<f64> {
        flatten(self.sum_logm(xs) - logm(p) * xs.len() as f64)
    }

    fn extrinsic_sum(&self, xs: &[DMatrix<f64>], _near: &DMatrix<f64>) -> Option<DVector<f64>> {
        Some(matrix_sum(self.k, xs))
    }

    /// The arithmetic mean (pyriemann's start), checked to be a valid point.
    fn extrinsic_mean(&self, sum: &DVector<f64>, n: usize) -> Option<DMatrix<f64>> {
        arithmetic_mean(self.k, sum, n)
    }

    /// ‖log b‖_F ≤ ‖log near‖_F + offset and ‖log x‖_F ≤ that + reach; each computed log errs by
    /// [`float_error::spd_logm_error`], the difference and its norm by u·(k² + 4)·reach.
    fn distance_error(&self, near: &DMatrix<f64>, offset: f64, reach: f64) -> f64 {
        let base = log_norm_within(near, offset);
        let e = float_error::spd_logm_error(self.k, base) + float_error::spd_logm_error(self.k, base + reach);
        crate::numerics::rounding::fn_up(
            (e + float_error::U * ((self.k * self.k) as f64 + 4.0) * reach) * float_error::SLACK,
        )
    }

    /// The gradient sums log X_i and subtracts n·log P (block by block, [`Manifold::sum_log`]): each term
    /// errs by the two logs' errors, and the terms added are as large as ‖log P‖ + ‖log X‖.
    fn log_error(&self, near: &DMatrix<f64>, offset: f64, reach: f64) -> super::LogError {
        let base = log_norm_within(near, offset);
        let per_log = crate::numerics::rounding::fn_up(
            (float_error::spd_logm_error(self.k, base) + float_error::spd_logm_error(self.k, base + reach))
                * float_error::SLACK,
        );
        super::LogError { per_log, term: 2.0 * base + reach + per_log }
    }

    fn injectivity_radius(&self) -> f64 {
        f64::INFINITY
    }

    fn curvature_bound(&self) -> f64 {
        0.0
    }

    fn footpoint_independent_normaliser(&self) -> bool {
        true
    }
}

/// Σ xᵢ, flattened: the extrinsic sum both SPD metrics start their Karcher iteration from.
fn matrix_sum(k: usize, xs: &[DMatrix<f64>]) -> DVector<f64> {
    flatten(xs.iter().fold(DMatrix::zeros(k, k), |acc, x| acc + x))
}

/// The arithmetic mean of a flattened sum of n points, or `None` if it is not a valid SPD point in f64.
fn arithmetic_mean(k: usize, sum: &DVector<f64>, n: usize) -> Option<DMatrix<f64>> {
    if sum.len() != k * k || n == 0 {
        return None;
    }
    let mean = unflatten(sum, k) / n as f64;
    crate::space::spd::check_representable(&mean).ok().map(|()| mean)
}

/// An upper bound on cond(b) for every b within `offset` (affine-invariant) of `near`.
fn condition_within(near: &DMatrix<f64>, offset: f64) -> f64 {
    float_error::spd_condition_bound(near) * (std::f64::consts::SQRT_2 * offset).exp() * float_error::SLACK
}

/// An upper bound on ‖log b‖_F for every b within `offset` (log-Euclidean) of `near`: the computed norm of
/// the computed log, plus that log's error ([`float_error::spd_logm_error`]) and the norm's rounding.
fn log_norm_within(near: &DMatrix<f64>, offset: f64) -> f64 {
    let computed = logm(near).norm();
    let k = near.nrows();
    let bound =
        computed * (1.0 + (k * k) as f64 * float_error::U) + float_error::spd_logm_error(k, computed * 1.01 + 1e-9);
    bound + offset
}
