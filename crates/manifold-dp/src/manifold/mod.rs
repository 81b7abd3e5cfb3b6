//! Riemannian manifolds for the central model (Reimherr, Bharath & Soto, NeurIPS 2021; docs/math.md §3): the
//! geometry a Fréchet mean needs ([`Manifold`]), the Karcher mean ([`frechet`]) and its sensitivity
//! ([`sensitivity`]), for spheres S^d, SO(3) and SPD(k) under the affine-invariant and log-Euclidean metrics.
//!
//! Tangent vectors are `DVector<f64>` in coordinates whose Euclidean norm **is** the Riemannian norm at the
//! base point (ambient tangent vectors on S^d, body rotation vectors on SO(3), whitened symmetric matrices
//! flattened row by row on SPD(k)). That is all the Karcher iteration needs, so it is written once.

pub mod ball;
pub mod fixed;
pub mod float_error;
pub mod frechet;
pub mod newton;
pub mod sensitivity;
pub mod so3;
pub mod spd;
pub mod sphere;

pub use ball::{Outside, Placed};
pub use float_error::LogError;
pub use frechet::{
    FrechetMean, KarcherOptions, KarcherStep, KarcherStop, StepLengths, certified_mean_sensitivity, check_ball,
    frechet_mean, frechet_mean_within, karcher_newton_step, karcher_step, karcher_step_of_length,
};
pub use sensitivity::{empirical_log_spread, frechet_sensitivity, h_factor, max_radius};
pub use so3::So3;
pub use spd::{SpdAffine, SpdLogEuclidean};
pub use sphere::Sphere;

use crate::space::metric::Metric;
use nalgebra::DVector;

/// A complete Riemannian manifold with the quantities Theorem 2 of Reimherr et al. needs.
pub trait Manifold: Send + Sync {
    /// A point (validated: a unit vector, a unit quaternion, an SPD matrix).
    type Point: Clone + std::fmt::Debug + Send + Sync;

    /// A short name for people: `S^2`, `SO(3)`, `SPD(2), affine-invariant`.
    fn describe(&self) -> String;

    /// The intrinsic dimension d.
    fn dimension(&self) -> usize;

    /// The geodesic distance ρ(a, b).
    fn distance(&self, a: &Self::Point, b: &Self::Point) -> f64;

    /// The metric a guarantee about single points is stated in.
    fn metric(&self) -> Metric;

    /// exp_base⁻¹(x) in isometric coordinates (Euclidean norm = ρ(base, x) inside the injectivity radius).
    fn log(&self, base: &Self::Point, x: &Self::Point) -> DVector<f64>;

    /// exp_base(v) for v in the coordinates of [`Manifold::log`].
    fn exp(&self, base: &Self::Point, v: &DVector<f64>) -> Self::Point;

    /// (1/n) Σ log_base(x_i): the negative Riemannian gradient of the Fréchet function ½·mean ρ²(·, x_i).
    /// Manifolds override it when the base point's work can be shared across the data.
    fn mean_log(&self, base: &Self::Point, xs: &[Self::Point]) -> DVector<f64> {
        self.sum_log(base, xs) / xs.len() as f64
    }

    /// Σ log_base(x_i) over a non-empty chunk of the data: what one worker of a distributed Karcher step
    /// computes (the sums of the chunks add up to n times [`Manifold::mean_log`]).
    fn sum_log(&self, base: &Self::Point, xs: &[Self::Point]) -> DVector<f64> {
        let mut sum = self.log(base, &xs[0]);
        for x in &xs[1..] {
            sum += self.log(base, x);
        }
        sum
    }

    /// Σ of the points' extrinsic coordinates over a chunk (unit vectors; quaternions sign-aligned with
    /// `near`; matrices), for [`Manifold::extrinsic_mean`]; `None` where the manifold has none. Sums of chunks
    /// add up to the sum over all the data.
    fn extrinsic_sum(&self, _xs: &[Self::Point], _near: &Self::Point) -> Option<DVector<f64>> {
        None
    }

    /// The extrinsic mean of `n` points whose [`Manifold::extrinsic_sum`] is `sum`: their arithmetic mean
    /// projected back onto the manifold (normalised on spheres and for quaternions; as it is on SPD(k), a
    /// convex cone). A start for the Karcher iteration that is cheap (no logarithm) and much closer to the
    /// Fréchet mean than the ball's centre, saving two to three steps; on a sphere or SO(3) it lies in the
    /// ball whenever the data do (the ball is the cap {x·m0 ≥ cos r}, closed under positive sums). `None`
    /// where there is none, or the sum vanishes.
    fn extrinsic_mean(&self, _sum: &DVector<f64>, _n: usize) -> Option<Self::Point> {
        None
    }

    /// Σ over a chunk of the Hessians of ½ρ²(·, x_i) at `base`, as a matrix in the coordinates of
    /// [`Manifold::log`], for Newton steps ([`newton`]); `None` where the manifold has none (the iteration then
    /// takes gradient steps). Sums of chunks add up to the sum over all the data.
    fn hessian_sum(&self, _base: &Self::Point, _xs: &[Self::Point]) -> Option<nalgebra::DMatrix<f64>> {
        None
    }

    /// The Newton direction H⁻¹·g at `base` for the mean Hessian `hessian` ([`Manifold::hessian_sum`] / n)
    /// and the gradient `gradient` ((1/n) Σ log_base x_i), in the coordinates of [`Manifold::log`]; `None`
    /// where H is not positive definite on the tangent space or the manifold has no Hessian.
    fn newton_direction(
        &self,
        _base: &Self::Point,
        _gradient: &DVector<f64>,
        _hessian: &nalgebra::DMatrix<f64>,
    ) -> Option<DVector<f64>> {
        None
    }

    /// A proven bound on |ρ̂(b, x) − ρ(b, x)|, the error of [`Manifold::distance`], for every base b within
    /// `offset` of `near` and every x with ρ(b, x) ≤ `reach` (∞ where none can be given; the bounds are in
    /// [`float_error`], their proofs in `docs/proofs/frechet_mean_sensitivity.md`).
    fn distance_error(&self, near: &Self::Point, offset: f64, reach: f64) -> f64;

    /// The bounds on the computed logs a certified Karcher stop test needs ([`LogError`]), for every base
    /// within `offset` of `near` and every point within `reach` of that base.
    fn log_error(&self, near: &Self::Point, offset: f64, reach: f64) -> LogError;

    /// The injectivity radius (∞ for Hadamard manifolds such as SPD(k)).
    fn injectivity_radius(&self) -> f64;

    /// An upper bound κ on the sectional curvatures (κ ≤ 0 means h = 1 in Theorem 2).
    fn curvature_bound(&self) -> f64;

    /// Whether the Laplace normaliser ∫ e^{−ρ(η, y)/σ} dμ(y) is the same for every footpoint η
    /// (true on homogeneous spaces), which allows σ = Δ/ε instead of 2Δ/ε (their Theorem 1).
    fn footpoint_independent_normaliser(&self) -> bool;
}
