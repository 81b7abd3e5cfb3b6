//! The Riemannian Laplace mechanism (Reimherr, Bharath & Soto, Definition 3 and Theorems 1–3; docs/math.md §3)
//! and the private Fréchet mean built on it.
//!
//! The Laplace law with footpoint η and scale σ has density ∝ e^{−ρ(η, y)/σ} w.r.t. the Riemannian volume.
//! Every sampler here is exact:
//!
//! - S^d: the Purkayastha law with κ = 1/σ ([`PurkayasthaNoise`](crate::sample::purkayastha::PurkayasthaNoise));
//! - SO(3): the SO(3) core's Laplace with ε = 1/σ per radian ([`LaplaceSo3Noise`](crate::sample::laplace_so3::LaplaceSo3Noise));
//! - SPD(k), affine-invariant: Hajri et al.'s eigen-decomposition form by exact rejection ([`SpdLaplaceNoise`](crate::sample::spd_laplace::SpdLaplaceNoise));
//! - SPD(k), log-Euclidean: the ℓ₂ K-norm law in the log domain ([`EuclideanLaplace`](crate::sample::k_norm::EuclideanLaplace)).
//!
//! [`PurkayasthaNoise`]: crate::sample::purkayastha::PurkayasthaNoise
//! [`LaplaceSo3Noise`]: crate::sample::laplace_so3::LaplaceSo3Noise
//! [`SpdLaplaceNoise`]: crate::sample::spd_laplace::SpdLaplaceNoise
//! [`EuclideanLaplace`]: crate::sample::k_norm::EuclideanLaplace
//!
//! [`PrivateFrechetMean`] releases the Fréchet mean of n points in a public ball B_r(m0) with pure ε-DP
//! (neighbouring data sets: one of the n points replaced). With Δ from Theorem 2:
//!
//! - **unconditioned**, σ = Δ/ε: valid because the normaliser does not depend on the footpoint on these
//!   homogeneous spaces (Theorem 1). On SPD(k) it exists only for σ below a threshold (`SpdLaplaceNoise`).
//! - **conditioned on B_r(m0)** (Theorem 3), σ = 2Δ/ε: the conditioned normaliser ∫_{B_r(m0)} e^{−ρ(η, y)/σ}
//!   depends on η, and bounding its ratio costs a second e^{Δ/σ}. Drawn exactly by rejection: a draw outside
//!   the ball is discarded and drawn again (on SPD(k) from the law truncated to ρ(η, y) ≤ 2r + Δ, a ball
//!   around η that contains B_r(m0)).
//!
//! Proofs: `docs/proofs/frechet_mean_sensitivity.md`, `docs/proofs/riemannian_laplace.md`,
//! `docs/proofs/spd_laplace.md`.

mod chart_choice;
mod mean;
mod point;
mod so3;
mod spd_affine;
mod spd_log_euclidean;
mod sphere;
#[cfg(test)]
mod tests;

pub use mean::{Conditioning, MIN_BALL_ACCEPTANCE, PrivateFrechetMean};
pub use point::RiemannianLaplace;
pub use so3::so3_mean_release_error;
pub use spd_affine::{MAX_SPD_BALL, spd_footpoint_error};
pub(crate) use spd_log_euclidean::coords_to_sym;
pub use sphere::{cube_chart_error, cube_chart_error_near_axis, s2_mean_release_error, sphere_mean_release_error};

use crate::Fallible;
use crate::analysis::AngularLaw;
use crate::analysis::quadrature::integrate_peaked;
use crate::manifold::Manifold;
use crate::privacy::Metric;
use crate::privacy::float_safety::Rounding;
use rand::Rng;
use std::f64::consts::PI;

/// The float-safe frame of a mean's release on a manifold that rounds in the log chart at the public centre
/// (SPD(k) with the affine-invariant metric, `docs/proofs/float_safety.md` §3e): the grid, the whitening by the
/// centre, and the public radii the release is drawn within.
#[derive(Debug, Clone)]
pub struct BallChart<P> {
    /// The grid of the log chart at the centre and its ε₀.
    pub rounding: Rounding,
    /// W = L0⁻¹, with L0 the centre's Cholesky factor: Y ↦ W·Y·Wᵀ whitens.
    pub whiten: P,
    /// L0: un-whitens the cell's point.
    pub unwhiten: P,
    /// R_P: the whitened footpoint is moved onto the ball of this radius around I if it lies outside.
    pub footpoint_radius: f64,
    /// R: a release is kept only if its rounded log coordinates have norm at most R.
    pub ball: f64,
    /// T: draws of the noise farther than T from I are drawn again (their exact point lies beyond R).
    pub noise_radius: f64,
    /// The keep margin: a draw whose exact point lies within R − margin of the centre is kept, one kept lies
    /// within R + margin (`docs/proofs/float_safety.md` §3e).
    pub margin: f64,
    /// ln 1/(1 − tail): what keeping an otherwise unconditioned release in the ball of radius R costs, where
    /// tail bounds the noise's mass beyond R − R_P; 0 when the release is conditioned on the data ball anyway.
    pub tail_cost: f64,
    /// 2e_F/σ: what the f64 footpoint map costs ([`spd_footpoint_error`]): it moves each footpoint by at most
    /// e_F, so neighbouring footpoints lie within Δ + 2e_F; counted once per footpoint ratio (twice when
    /// conditioned on the ball).
    pub footpoint_cost: f64,
    /// How the release is formed in the chart: the one of the forms whose η bound is the smallest (a public
    /// choice, made from the radii alone).
    pub form: ChartForm,
}

/// How an affine-invariant SPD release is formed in its chart (`docs/proofs/float_safety.md` §3e); every other
/// chart has one form, recorded as `Direct`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartForm {
    /// log(B·Bᵀ) in f64, every error relative to ‖Y‖ and amplified by the condition numbers in the ball.
    Direct,
    /// log(I + X) with X formed without I, every error relative to ‖X‖: small balls ("Near the centre").
    NearIdentity,
    /// Y = B·Bᵀ formed in double-double from a double-double Haar rotation, rounded once, its log in f64: only
    /// the rounding of Y and the eigensolver are relative to ‖Y‖ ("In double-double"). The means only.
    DoubleDouble,
}

/// A manifold with an exact sampler of its Laplace law.
pub trait LaplaceManifold: Manifold {
    /// The prepared sampler.
    type Noise: Clone + std::fmt::Debug + Send + Sync;

    /// The Laplace law with scale `sigma`; truncated to ρ(η, y) ≤ `t_max` where the manifold needs that for
    /// the law to exist (SPD); compact manifolds ignore `t_max` (their law always exists).
    fn laplace_noise(&self, sigma: f64, t_max: Option<f64>) -> Fallible<Self::Noise>;

    /// One exact draw of the Laplace law at `footpoint`.
    fn sample_laplace<R: Rng + ?Sized>(&self, noise: &Self::Noise, footpoint: &Self::Point, rng: &mut R)
    -> Self::Point;

    /// E[ρ(η, Y)] for the law at η, conditioned on ρ(η, Y) ≤ `within` if given.
    fn mean_distance(&self, noise: &Self::Noise, within: Option<f64>) -> f64;

    /// A bound on the probability, per draw of `noise`, of the sampler's negligible events where the float
    /// bounds are not claimed (`docs/proofs/float_safety.md` §6); 0 where the sampler has none.
    fn negligible_event_probability(&self, _noise: &Self::Noise) -> f64 {
        0.0
    }

    /// The largest [`LaplaceManifold::negligible_event_probability`] over every scale σ: what a release is
    /// charged before its σ (which depends on the rows) is known. 0 where the sampler has none.
    fn negligible_event_bound(&self) -> f64 {
        0.0
    }

    /// The metric a release's metric-DP guarantee is stated in: the manifold's own, except where the proof
    /// bounds the loss per unit of coordinates computed in f64 (SPD(k), log-Euclidean:
    /// [`Metric::SpdComputedLogCoordinates`], `docs/proofs/float_safety.md` §3d).
    fn guarantee_metric(&self) -> Metric {
        self.metric()
    }

    /// Checks that a drawn point is a valid point in double precision ([`Error::Unrepresentable`](crate::error::Error::Unrepresentable) if not).
    /// Always true on the compact manifolds; on SPD(k) it fails for draws whose condition number exceeds ~2⁵³.
    fn check_representable(&self, _y: &Self::Point) -> Fallible<()> {
        Ok(())
    }

    /// Whether [`LaplaceManifold::sample_rounded`] rounds in a chart before mapping onto the manifold (the
    /// log domain) instead of snapping the drawn point; a mechanism's release is then that one step.
    const ROUNDS_IN_CHART: bool = false;

    /// Whether float-safe releases need a public ball ([`LaplaceManifold::ball_chart`]): SPD(k) with the
    /// affine-invariant metric, whose f64 error grows with the condition numbers a ball bounds.
    const NEEDS_BALL: bool = false;

    /// The float-safe rounding of releases with scale σ at any footpoint (the density e^{−ρ/σ} is
    /// 1/σ-log-Lipschitz), or `None` where releases are rounded in a public ball instead (SPD with the
    /// affine-invariant metric: [`LaplaceManifold::ball_chart`], `docs/proofs/float_safety.md` §3e).
    fn rounding(&self, _sigma: f64) -> Option<Rounding> {
        None
    }

    /// The float-safe rounding of releases with scale σ at footpoints within `radius` of the public `center`
    /// (the private mean's); by default that of [`LaplaceManifold::rounding`].
    fn rounding_in_ball(&self, sigma: f64, _center: &Self::Point, _radius: f64) -> Option<Rounding> {
        self.rounding(sigma)
    }

    /// Rounds a release onto `rounding`'s grid.
    fn snap_point(&self, _rounding: &Rounding, _y: &mut Self::Point) {}

    /// The unit of [`Manifold::distance`] as messages name it: "rad" on spheres and SO(3).
    fn distance_unit(&self) -> &'static str {
        "rad"
    }

    /// What a refusal for a costly rounding advises, after "double precision cannot round it finely enough for
    /// n rows within r of the centre at ε": on spheres and SO(3) the cost grows with the noise's concentration
    /// κ = 1/σ ∝ n·ε/r and shrinks relative to ε as ε grows (`docs/proofs/float_safety.md` §4).
    fn rounding_refusal_advice(&self) -> &'static str {
        "the noise is finer than double precision resolves with a cheap grid; use a larger epsilon, a random \
         subsample of the rows, or a larger radius"
    }

    /// One float-safe draw of the Laplace law at `footpoint`: by default the exact draw, snapped onto
    /// `rounding`'s grid.
    fn sample_rounded<R: Rng + ?Sized>(
        &self,
        noise: &Self::Noise,
        footpoint: &Self::Point,
        rounding: &Rounding,
        rng: &mut R,
    ) -> Self::Point {
        let mut y = self.sample_laplace(noise, footpoint, rng);
        self.snap_point(rounding, &mut y);
        y
    }

    /// The float-safe frame of a mean's release at footpoints within `radius` (+ half the `sensitivity`) of
    /// `center`, with `noise`, conditioned on the data ball or not; `None` (the default) where releases are
    /// rounded by [`LaplaceManifold::sample_rounded`] instead.
    fn ball_chart(
        &self,
        _noise: &Self::Noise,
        _center: &Self::Point,
        _radius: f64,
        _sensitivity: f64,
        _conditioned: bool,
    ) -> Fallible<Option<BallChart<Self::Point>>> {
        Ok(None)
    }

    /// The float-safe frame of a private *mean's* release ([`LaplaceManifold::ball_chart`]'s arguments): by
    /// default the same chart; SPD(k) with the affine-invariant metric lets an unconditioned mean's cells move a
    /// release by up to 10⁻³ of its expected error, as the other means' do (`docs/proofs/float_safety.md` §3e).
    fn ball_chart_for_mean(
        &self,
        noise: &Self::Noise,
        center: &Self::Point,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<Self::Point>>> {
        self.ball_chart(noise, center, radius, sensitivity, conditioned)
    }

    /// The float-safe frame of a private mean conditioned on the ball because the caller asked for it
    /// (`Conditioning::Ball`), not chosen by `Conditioning::Auto`: by default
    /// [`LaplaceManifold::ball_chart_for_mean`]'s; SPD(k) with the affine-invariant metric lets its cells, too,
    /// move a release by up to 10⁻³ of its expected error, capped to fit in a margin of up to Δ/2 − e_F
    /// (`docs/proofs/float_safety.md` §3e, "The grid"). `Auto`, which chooses by the rounding's cost alone, keeps
    /// comparing with the finer cells: with the wider ones the conditioned plan would tie the unconditioned one's
    /// rounding and win it at twice the noise.
    fn ball_chart_for_requested_ball_mean(
        &self,
        noise: &Self::Noise,
        center: &Self::Point,
        radius: f64,
        sensitivity: f64,
    ) -> Fallible<Option<BallChart<Self::Point>>> {
        self.ball_chart_for_mean(noise, center, radius, sensitivity, true)
    }

    /// Checks an input of a single-point release in a public ball's chart before it is whitened: on SPD(k), a
    /// k×k matrix of finite entries. The projection onto the footpoint ball takes every such matrix, however
    /// ill-conditioned (one whose whitening is not positive definite goes to a fixed point of the ball); a
    /// matrix of another size would panic in the arithmetic, and NaN would be released as that fixed point. By
    /// default every value of the point type is an input.
    fn check_chart_input(&self, _x: &Self::Point) -> Fallible<()> {
        Ok(())
    }

    /// The footpoint a release in `chart` is drawn at for input `x`: x moved onto the chart's footpoint ball if
    /// it lies outside (by default x itself).
    fn footpoint_in_chart(&self, _chart: &BallChart<Self::Point>, x: &Self::Point) -> Self::Point {
        x.clone()
    }

    /// One draw of a release in `chart`: the rounded point, or `None` when the draw is not kept (it is then
    /// drawn again). Only called with a chart from [`LaplaceManifold::ball_chart`].
    fn sample_in_chart<R: Rng + ?Sized>(
        &self,
        _noise: &Self::Noise,
        _footpoint: &Self::Point,
        _chart: &BallChart<Self::Point>,
        _rng: &mut R,
    ) -> Fallible<Option<Self::Point>> {
        unreachable!("sample_in_chart without a ball chart")
    }

    /// A lower bound, from public parameters only, on the probability that one draw of `noise` is kept by the
    /// release conditioned on the ball of `radius` r (the others are drawn again), at any footpoint that
    /// release may draw at for a mean of this `sensitivity` Δ, or `None` where it needs no bound; `margin`: the
    /// chart's keep margin (Δ/4, or up to Δ/2 for [`LaplaceManifold::ball_chart_for_requested_ball_mean`]). Compact
    /// manifolds: `None` (the proposal is already truncated to a ball of radius at most 3r + Δ, whose volume
    /// ratio to B_r bounds the rate).
    fn ball_acceptance_lower_bound(
        &self,
        _noise: &Self::Noise,
        _radius: f64,
        _sensitivity: f64,
        _margin: f64,
    ) -> Option<f64> {
        None
    }
}

/// E[θ | θ ≤ r] of an angular law, by quadrature.
fn truncated_mean(law: &dyn AngularLaw, within: Option<f64>, scale: f64) -> f64 {
    match within {
        Some(r) if r < PI => {
            let num = integrate_peaked(&|t| t * law.pdf(t), r, scale.min(r), 1e-12);
            num / law.cdf(r)
        }
        _ => law.mean(),
    }
}
