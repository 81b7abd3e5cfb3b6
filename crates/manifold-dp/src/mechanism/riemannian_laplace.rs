//! The Riemannian Laplace mechanism (Reimherr, Bharath & Soto, Definition 3 and Theorems 1–3; docs/math.md §3)
//! and the private Fréchet mean built on it.
//!
//! The Laplace law with footpoint η and scale σ has density ∝ e^{−ρ(η, y)/σ} w.r.t. the Riemannian volume.
//! Every sampler here is exact:
//!
//! - S^d: the Purkayastha law with κ = 1/σ ([`PurkayasthaNoise`]);
//! - SO(3): the SO(3) core's Laplace with ε = 1/σ per radian ([`LaplaceSo3Noise`]);
//! - SPD(k), affine-invariant: Hajri et al.'s eigen-decomposition form by exact rejection ([`SpdLaplaceNoise`]);
//! - SPD(k), log-Euclidean: the ℓ₂ K-norm law in the log domain ([`EuclideanLaplace`]).
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

use crate::Fallible;
use crate::analysis::quadrature::integrate_peaked;
use crate::analysis::spd_radial::SpdRadialLaw;
use crate::analysis::{AngularLaw, LaplaceAngle, SphereAngle};
use crate::error::{Error, check_positive};
use crate::manifold::sensitivity::check_radius;
use crate::manifold::{
    KarcherOptions, KarcherStop, Manifold, So3, SpdAffine, SpdLogEuclidean, Sphere, certified_mean_sensitivity,
    check_ball, frechet_mean_within,
};
use crate::mechanism::Mechanism;
use crate::privacy::float_safety::{
    MEAN_SPACING_BELOW_NOISE_LOG2, RIEMANNIAN_SPACING_BELOW_NOISE_LOG2, Rounding, spd_log_chart_error,
};
use crate::privacy::{Guarantee, Metric};
use crate::sample::k_norm::EuclideanLaplace;
use crate::sample::laplace_so3::LaplaceSo3Noise;
use crate::sample::purkayastha::PurkayasthaNoise;
use crate::sample::spd_laplace::SpdLaplaceNoise;
use crate::space::spd::{self, expm, logm, sqrt_and_inv_sqrt};
use nalgebra::{DMatrix, DVector, UnitQuaternion};
use rand::distr::Distribution;
use rand::{CryptoRng, Rng};
use std::f64::consts::{FRAC_1_SQRT_2, PI};

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
    /// ln 1/(1 − tail): what keeping an otherwise unconditioned release in the ball of radius R costs, where
    /// tail bounds the noise's mass beyond R − R_P; 0 when the release is conditioned on the data ball anyway.
    pub tail_cost: f64,
    /// 2e_F/σ: what the f64 footpoint map costs ([`spd_footpoint_error`]): it moves each footpoint by at most
    /// e_F, so neighbouring footpoints lie within Δ + 2e_F; counted once per footpoint ratio (twice when
    /// conditioned on the ball).
    pub footpoint_cost: f64,
}

/// e_F: a bound on ρ(L·Lᵀ, W·P·Wᵀ), how far the computed footpoint of the ball chart (`whitened_footpoint`,
/// then L = chol) lies from the exact whitening of the f64 mean P by the f64 matrix W
/// (`docs/proofs/float_safety.md` §3e, "The footpoint"), for a centre with cond(m0) ≤ `cond_center` and
/// footpoints whose whitening lies within `footpoint_radius` + 1 of I:
///
/// - L0 = fl(chol m0) and W = fl(L0⁻¹): the chart's centre W⁻¹W⁻ᵀ has relative error δ_C ≤ γ_{k+1}·k·cond(m0)
///   + 2γ_k·k·√cond(m0) (Cholesky's backward error, the triangular inverse), so cond(W)² ≤ cond(m0)·(1 + 4δ_C);
/// - fl(W·P·Wᵀ): |E| ≤ γ_2k|W||P||Wᵀ|, relative to W·P·Wᵀ at most δ_W = γ_2k·k^{3/2}·cond(W)²·cond(P̃),
///   cond(P̃) ≤ e^{√2(R_P + 1)};
/// - the projection onto the ball of radius R_P (a log and an exp of P̃): 2·e_log(R_P + 1);
/// - L = fl(chol P̃): LLᵀ = P̃ + E, |E| ≤ γ_{k+1}|L||Lᵀ|, relative δ_L = γ_{k+1}·k·e^{√2 R_P}.
///
/// Each relative δ moves the matrix by −√k·ln(1 − δ) in ρ. ∞ (refused) when δ_C or δ_W exceeds 10⁻³: for
/// k = 2 and R_P = 1.5 that is cond(m0) above ≈ 10¹¹.
pub fn spd_footpoint_error(k: usize, cond_center: f64, footpoint_radius: f64) -> f64 {
    use crate::manifold::float_error::{SLACK, gamma, spd_logm_error, spd_moved};
    let kf = k as f64;
    let delta_c = (gamma(kf + 1.0) * kf * cond_center + 2.0 * gamma(kf) * kf * cond_center.sqrt()) * SLACK;
    if delta_c.is_nan() || delta_c >= 1e-3 {
        return f64::INFINITY;
    }
    let cond_w2 = cond_center * (1.0 + 4.0 * delta_c);
    let cond_p = (std::f64::consts::SQRT_2 * (footpoint_radius + 1.0)).exp();
    let whiten = spd_moved(k, gamma(2.0 * kf) * kf.powf(1.5) * cond_w2 * cond_p * SLACK);
    let project = 2.0 * spd_logm_error(k, footpoint_radius + 1.0);
    let chol = spd_moved(k, gamma(kf + 1.0) * kf * (std::f64::consts::SQRT_2 * footpoint_radius).exp() * SLACK);
    crate::numerics::rounding::fn_up((whiten + project + chol) * SLACK)
}

/// B·X·Bᵀ, symmetrised.
fn congruence_by(b: &DMatrix<f64>, x: &DMatrix<f64>) -> DMatrix<f64> {
    let m = b * x * b.transpose();
    (&m + m.transpose()) * 0.5
}

/// W·x·Wᵀ (symmetrised), moved onto the ball of radius R_P around I along the geodesic from I if it lies
/// outside: the metric projection onto that ball (SPD(k) is a Hadamard manifold), a 1-Lipschitz map.
///
/// Its f64 error is bounded (by e_F, [`spd_footpoint_error`]) only for inputs whose exact whitening lies within
/// R_P + 1 of I; farther, ill-conditioned inputs may be moved to a different point of the ball, and where the
/// whitening is not even positive definite in f64 (its logarithm not finite) the centre I stands in. Every
/// result lies within R_P + e_F of I, so the guarantee holds per unit of ρ between these computed footpoints
/// (`docs/proofs/float_safety.md` §3e, "Inputs far outside the ball").
fn whitened_footpoint(chart: &BallChart<DMatrix<f64>>, x: &DMatrix<f64>) -> DMatrix<f64> {
    let p = congruence_by(&chart.whiten, x);
    let log_p = logm(&p);
    let norm = log_p.norm();
    if norm <= chart.footpoint_radius {
        p
    } else if norm.is_finite() {
        expm(&(log_p * (chart.footpoint_radius / norm)))
    } else {
        // No direction to move along: any fixed point of the ball keeps the bound above.
        DMatrix::identity(p.nrows(), p.ncols())
    }
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

    /// The metric a release's metric-DP guarantee is stated in: the manifold's own, except where the proof
    /// bounds the loss per unit of coordinates computed in f64 (SPD(k), log-Euclidean:
    /// [`Metric::SpdComputedLogCoordinates`], `docs/proofs/float_safety.md` §3d).
    fn guarantee_metric(&self) -> Metric {
        self.metric()
    }

    /// Checks that a drawn point is a valid point in double precision ([`Error::Unrepresentable`] if not).
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
    /// release may draw at for a mean of this `sensitivity` Δ, or `None` where it needs no bound. Compact
    /// manifolds: `None` (the proposal is already truncated to a ball of radius at most 3r + Δ, whose volume
    /// ratio to B_r bounds the rate).
    fn ball_acceptance_lower_bound(&self, _noise: &Self::Noise, _radius: f64, _sensitivity: f64) -> Option<f64> {
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

impl Sphere {
    /// The Riemannian Laplace's grid with cells up to 2^-`below_log2` of the noise scale σ.
    fn laplace_rounding(&self, sigma: f64, below_log2: i32) -> Option<Rounding> {
        // The angle sampler's acceptance test errs by a proven α (float_safety.md §3f, §3g, Lemma R): 4α more.
        let alpha = self.laplace_noise(sigma, None).ok()?.acceptance_error();
        let rounding = Rounding::for_directions_below(self.ambient(), 1.0 / sigma, 1.0 / sigma, below_log2);
        Some(rounding.with_acceptance_error(alpha))
    }
}

impl LaplaceManifold for Sphere {
    fn negligible_event_probability(&self, noise: &PurkayasthaNoise) -> f64 {
        noise.negligible_event_probability()
    }

    fn rounding(&self, sigma: f64) -> Option<Rounding> {
        self.laplace_rounding(sigma, RIEMANNIAN_SPACING_BELOW_NOISE_LOG2)
    }

    /// The private mean's grid: cells up to 2^-10 of σ ([`MEAN_SPACING_BELOW_NOISE_LOG2`]).
    fn rounding_in_ball(&self, sigma: f64, _center: &DVector<f64>, _radius: f64) -> Option<Rounding> {
        self.laplace_rounding(sigma, MEAN_SPACING_BELOW_NOISE_LOG2)
    }

    fn snap_point(&self, rounding: &Rounding, y: &mut DVector<f64>) {
        rounding.snap_direction(y.as_mut_slice())
    }

    /// On S^{n−1}, n ≥ 3: the relative-error release of `docs/proofs/float_safety.md` §3i. The release is
    /// m + δ summed exactly and rounded in double-double ([`crate::space::grid::snap_cube_map_dd`]), kept only
    /// within the public ball of radius R around the centre: unconditioned, R = r + Δ/2 + τ + margin (τ the
    /// angle's 1 − p quantile, for the tail p ∈ {10⁻¹⁰, …, 10⁻²} whose ε₀ + ln 1/(1 − p) is smallest);
    /// conditioned on the data ball, R = r (§3b's public set of cells). Draws with θ > T = R + r + Δ/2 + margin
    /// are drawn again. Its η is relative to the noise's reach T ([`s2_mean_release_error`] on S²,
    /// [`sphere_mean_release_error`] for n ≥ 4), not [`crate::privacy::float_safety::PIPELINE_ERROR`]. `None`
    /// (the absolute-error rounding of [`LaplaceManifold::rounding_in_ball`]) on the circle, where T > π/2, or
    /// where that costs no more.
    fn ball_chart(
        &self,
        noise: &PurkayasthaNoise,
        center: &DVector<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<DVector<f64>>>> {
        let n = self.ambient();
        if n < 3 {
            return Ok(None);
        }
        let sigma = 1.0 / noise.kappa();
        let lipschitz = noise.kappa();
        let law = SphereAngle::purkayastha(n, noise.kappa())?;
        // The exact mean lies within r′ = r + e_ρ (e_ρ ≤ 1e-12 here) of the centre, the computed one within
        // Δ/2 of it.
        let footpoint_radius = radius * (1.0 + 1e-12) + 1e-12 + 0.5 * sensitivity;
        // The coarsest cell allowed has chord diameter ≤ √(n − 1)·2^fine (a cube of side 2^fine in n − 1 chart
        // coordinates, mapped 1-Lipschitz onto the sphere); the margin holds four of them.
        let fine = -(MEAN_SPACING_BELOW_NOISE_LOG2 + lipschitz.max(1.0).log2().ceil() as i32);
        let diameter = if n == 3 { std::f64::consts::SQRT_2 } else { ((n - 1) as f64).sqrt() * (1.0 + 1e-15) };
        let margin = 0.25 * sensitivity + 4.0 * diameter * 2f64.powi(fine);
        let alpha = noise.gamma_acceptance_error();
        let angle_error = noise.gamma_angle_relative_error();
        let chart = |tau: f64, tail: f64| -> Result<BallChart<DVector<f64>>, &'static str> {
            // Conditioned (τ < 0): the data ball itself, as `PrivateFrechetMean::keeps` checks it.
            let ball = if tau < 0.0 { radius } else { footpoint_radius + tau + margin };
            let noise_radius = ball + footpoint_radius + margin;
            if noise_radius > 0.5 * PI {
                return Err("the ball is too wide for the relative-error release");
            }
            let eta = if n == 3 {
                s2_mean_release_error(noise_radius, angle_error)
            } else {
                sphere_mean_release_error(n, noise_radius, angle_error)
            };
            // Kept draws' exact points lie within R + margin of the centre: their face coordinate is at least
            // max|cᵢ| − (R + margin).
            let face = face_floor(center.as_slice(), ball + margin);
            let chart_error = cube_chart_error(n, eta, face);
            let rounding =
                Rounding::for_directions_with_error(n, lipschitz, chart_error, MEAN_SPACING_BELOW_NOISE_LOG2)
                    .with_acceptance_error(alpha);
            Ok(BallChart {
                rounding,
                whiten: center.clone(),
                unwhiten: center.clone(),
                footpoint_radius,
                ball,
                noise_radius,
                tail_cost: keep_ball_tail_cost(tail),
                footpoint_cost: 0.0,
            })
        };
        cheapest_relative_chart(&law, conditioned, chart, self.rounding_in_ball(sigma, center, radius))
    }

    /// The relative-error release on S^{n−1} (`docs/proofs/float_safety.md` §3i): θ by the Gamma proposal (drawn
    /// again beyond T), the tangent direction v̂ at the (renormalised) footpoint m (Duff's frame on S², the
    /// Householder tangent for n ≥ 4),
    /// δ = sin θ·v̂ − 2 sin²(θ/2)·m in f64, m + δ exactly (TwoSum), rounded in double-double onto the cube map,
    /// and kept if its cell's point lies within R of the centre.
    fn sample_in_chart<R: Rng + ?Sized>(
        &self,
        noise: &PurkayasthaNoise,
        footpoint: &DVector<f64>,
        chart: &BallChart<DVector<f64>>,
        rng: &mut R,
    ) -> Fallible<Option<DVector<f64>>> {
        let theta = noise.sample_angle_by_gamma(rng);
        if theta > chart.noise_radius {
            return Ok(None);
        }
        let spacing_log2 = chart.rounding.float_safe_grid().spacing_log2;
        let mut y = if self.ambient() == 3 {
            let dir = crate::sample::sphere::uniform_circle(rng);
            DVector::from_column_slice(&s2_relative_release(footpoint.as_slice(), theta, dir, spacing_log2))
        } else {
            DVector::from_vec(sphere_relative_release(footpoint.as_slice(), theta, spacing_log2, rng))
        };
        if let Some(coarse) = chart.rounding.coarse_grid() {
            crate::space::grid::snap_direction(coarse, y.as_mut_slice());
        }
        Ok((self.distance(&chart.whiten, &y) <= chart.ball).then_some(y))
    }

    type Noise = PurkayasthaNoise;

    fn laplace_noise(&self, sigma: f64, _t_max: Option<f64>) -> Fallible<PurkayasthaNoise> {
        PurkayasthaNoise::new(self.ambient(), 1.0 / check_positive("sigma", sigma)?)
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &PurkayasthaNoise,
        eta: &DVector<f64>,
        rng: &mut R,
    ) -> DVector<f64> {
        noise.sample_around(eta, rng)
    }

    fn mean_distance(&self, noise: &PurkayasthaNoise, within: Option<f64>) -> f64 {
        let law = SphereAngle::purkayastha(self.ambient(), noise.kappa()).expect("validated parameters");
        truncated_mean(&law, within, (self.dimension() as f64 / noise.kappa()).min(PI))
    }
}

/// The footpoint m as the S² release uses it: divided by its norm unless its computed ‖m‖² is within 4 ulps of
/// 1, so |‖m‖ − 1| ≤ 6·2^-53 either way (the computed square norm within 3·2^-53 of the exact; renormalised, the
/// square root, the reciprocal and the products a few 2^-53 more; `docs/proofs/float_safety.md` §3i).
fn s2_footpoint(m: &[f64]) -> [f64; 3] {
    let m2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    if (m2 - 1.0).abs() <= 4.0 * f64::EPSILON {
        [m[0], m[1], m[2]]
    } else {
        let g = 1.0 / m2.sqrt();
        [m[0] * g, m[1] * g, m[2] * g]
    }
}

/// δ = sin θ·v̂ − 2 sin²(θ/2)·m in f64 (v̂ = c·e₁ + s·e₂ in Duff's frame at the footpoint) and m: the release's
/// offset from its footpoint, with an error relative to θ (§3i).
pub(crate) fn s2_offset(footpoint: &[f64], theta: f64, dir: (f64, f64)) -> ([f64; 3], [f64; 3]) {
    let m = s2_footpoint(footpoint);
    let v = crate::sample::sphere::s2_point_at_angle(m, 0.0, 1.0, dir);
    let (sin, half) = (theta.sin(), (0.5 * theta).sin());
    let versine = 2.0 * (half * half);
    (m, std::array::from_fn(|i| sin * v[i] - versine * m[i]))
}

/// The S² release of §3i: m + δ exactly (TwoSum) and its cube-map cell in double-double
/// ([`crate::space::grid::snap_cube_map_dd`]), on the grid of spacing 2^`spacing_log2`.
pub(crate) fn s2_relative_release(footpoint: &[f64], theta: f64, dir: (f64, f64), spacing_log2: i32) -> [f64; 3] {
    let (m, d) = s2_offset(footpoint, theta, dir);
    let (mut hi, mut lo) = ([0.0; 3], [0.0; 3]);
    for i in 0..3 {
        let h = m[i] + d[i];
        let bb = h - m[i];
        hi[i] = h;
        lo[i] = (m[i] - (h - bb)) + (d[i] - bb);
    }
    let mut out = [0.0; 3];
    crate::space::grid::snap_cube_map_dd(&hi, &lo, spacing_log2, &mut out);
    out
}

/// η of the S² relative-error release (§3i): a bound on the distance between m + δ̂ (computed) and ‖m‖·z* (z*
/// the exact release of the same uniforms at m/‖m‖) for every draw with θ ≤ `reach` ≤ π/2, where θ̂ errs by at
/// most `angle_error` of itself: per unit of θ, the angle (angle_error + 2u for libm's sine), the tangent
/// direction (16.5u, §4a's frame and circle with sin = 1; 27u for the footpoint's norm, 6u, through the
/// frame's radial Lipschitz constant 4.5), the footpoint's norm (6u), three roundings (3u), and the versine's
/// relative (2·angle_error + 6u) times θ/2; plus 2^-100 for the double-double sum. Rounded up by 1 %.
pub fn s2_mean_release_error(reach: f64, angle_error: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let per_unit =
        angle_error + 2.0 * u + 16.5 * u + 27.0 * u + 6.0 * u + 3.0 * u + (2.0 * angle_error + 6.0 * u) * 0.5 * reach;
    1.01 * per_unit * reach + 2f64.powi(-100)
}

/// e_m on S^{n−1}: a bound on |‖m‖ − 1| for the footpoint as [`sphere_footpoint`] leaves it, (5 + n/2)·2^-53 (the
/// computed ‖m‖² is within γ_n of the exact: n products and n − 1 additions; kept when within 4 ulps of 1, so
/// |‖m‖² − 1| ≤ 8u + γ_n(1 + 8u); renormalised, the square root, the reciprocal and the products add 3u).
fn sphere_footpoint_norm_error(n: usize) -> f64 {
    (5.0 + 0.5 * n as f64) * (f64::EPSILON / 2.0)
}

/// The footpoint m on S^{n−1}, n ≥ 4, as the relative-error release uses it: divided by its norm unless its
/// computed ‖m‖² is within 4 ulps of 1 (then |‖m‖ − 1| ≤ [`sphere_footpoint_norm_error`] either way).
fn sphere_footpoint(m: &[f64]) -> Vec<f64> {
    let m2: f64 = m.iter().map(|x| x * x).sum();
    if (m2 - 1.0).abs() <= 4.0 * f64::EPSILON {
        m.to_vec()
    } else {
        let g = 1.0 / m2.sqrt();
        m.iter().map(|x| x * g).collect()
    }
}

/// The footpoint m ([`sphere_footpoint`]) and δ = sin θ·v̂ − 2 sin²(θ/2)·m in f64 on S^{n−1}, n ≥ 4, with v̂ the
/// Householder tangent at m drawn from `rng`: the release's offset, with an error relative to θ (§3i).
fn sphere_offset<R: Rng + ?Sized>(footpoint: &[f64], theta: f64, rng: &mut R) -> (Vec<f64>, Vec<f64>) {
    let m = sphere_footpoint(footpoint);
    let mut v = vec![0.0; m.len()];
    crate::sample::sphere::householder_tangent_into(&m, &mut v, rng);
    let (sin, half) = (theta.sin(), (0.5 * theta).sin());
    let versine = 2.0 * (half * half);
    let d = v.iter().zip(&m).map(|(v, m)| sin * v - versine * m).collect();
    (m, d)
}

/// The S^{n−1} release of §3i, n ≥ 4: δ = sin θ·v̂ − 2 sin²(θ/2)·m in f64 with v̂ the Householder tangent at the
/// (renormalised) footpoint m ([`crate::sample::sphere::householder_tangent_into`]), m + δ exactly (TwoSum) and
/// its cube-map cell in double-double ([`crate::space::grid::snap_cube_map_dd`]), on the grid of spacing
/// 2^`spacing_log2`.
pub(crate) fn sphere_relative_release<R: Rng + ?Sized>(
    footpoint: &[f64],
    theta: f64,
    spacing_log2: i32,
    rng: &mut R,
) -> Vec<f64> {
    let (m, d) = sphere_offset(footpoint, theta, rng);
    let n = m.len();
    let (mut hi, mut lo) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let h = m[i] + d[i];
        let bb = h - m[i];
        hi[i] = h;
        lo[i] = (m[i] - (h - bb)) + (d[i] - bb);
    }
    let mut out = vec![0.0; n];
    crate::space::grid::snap_cube_map_dd(&hi, &lo, spacing_log2, &mut out);
    out
}

/// η of the S^{n−1} relative-error release, n ≥ 4 (§3i): a bound on the distance between m + δ̂ (computed) and
/// ‖m‖·z* (z* the exact release of the same uniforms at m/‖m‖) for every draw with θ ≤ `reach` ≤ π/2, where θ̂
/// errs by at most `angle_error` of itself. Per unit of θ: the angle (angle_error + 2u for libm's sine); the
/// Gaussians' direction (32u, Lemma N); the Householder tangent's arithmetic B(1 + β) + β, with
/// B = √2(T + (1 + T)γ₃) + γ₂ (§4a's steps 1–4, T = λ₁ + α₁(1 + λ₁)) and β the reciprocal 1/fl(√Ĝ)'s relative
/// error; the tangent at m instead of m/‖m‖ (2.5·e_m) and ‖m‖'s own factor (e_m), e_m = (5 + n/2)·2^-53
/// (`sphere_footpoint_norm_error`); three roundings ((2 + θ_max)u: the products S·v̂ and V·m, of sizes θ and
/// θ²/2, and their difference); and the versine's relative (2·angle_error + 6u) times θ/2; plus 2^-100 for the
/// double-double sum. Rounded up by 1 %.
pub fn sphere_mean_release_error(n: usize, reach: f64, angle_error: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let gamma = |k: f64| k * u / (1.0 - k * u);
    let m = (n - 1) as f64;
    let alpha1 = 2.0 * u + u * u + (1.0 + u) * gamma(m - 1.0).powi(2);
    let omega1 = 2.0 * u / (1.0 - u);
    let lambda1 = (1.0 + omega1) * (1.0 + u) - 1.0;
    let t = lambda1 + alpha1 * (1.0 + lambda1);
    let b = std::f64::consts::SQRT_2 * (t + (1.0 + t) * gamma(3.0)) + gamma(2.0);
    let beta = (1.0 + u) / ((1.0 - u) * (1.0 - alpha1).sqrt()) - 1.0;
    let tangent = b * (1.0 + beta) + beta;
    let e_m = sphere_footpoint_norm_error(n);
    let roundings = (2.0 + reach) * u;
    let per_unit = angle_error
        + 2.0 * u
        + 32.0 * u
        + tangent
        + 3.5 * e_m
        + roundings
        + (2.0 * angle_error + 6.0 * u) * 0.5 * reach;
    1.01 * per_unit * reach + 2f64.powi(-100)
}

/// A lower bound on the largest |coordinate| of a unit vector within chordal distance `reach` of the unit
/// vector `center`: max|cᵢ| − reach (each coordinate moves by at most the chord).
fn face_floor(center: &[f64], reach: f64) -> f64 {
    let norm = center.iter().map(|c| c * c).sum::<f64>().sqrt();
    center.iter().fold(0.0f64, |m, c| m.max(c.abs())) / (norm * (1.0 + 1e-15)) - reach * (1.0 + 1e-12)
}

/// The per-coordinate cube-map chart error on S^{n−1} of a point within chordal `eta` of the exact one (§4a,
/// "The chart"): √2·η/(|z*_face| − …), with |z*_face| ≥ max(`face` − 2η, (1 − η)/√n − η) (the generic floor, or
/// `face` where the exact point is known to lie near a public centre, `face_floor`), plus the double-double
/// quotient's 2^-99 (no γ₂: the chart division is not rounded to f64). Rounded up by 0.1 %.
pub fn cube_chart_error(n: usize, eta: f64, face: f64) -> f64 {
    let generic = (1.0 - eta) / (n as f64).sqrt() - eta;
    let floor = generic.max(face - 2.0 * eta);
    1.001 * (std::f64::consts::SQRT_2 * eta / floor) + 2f64.powi(-99)
}

/// η of the SO(3) relative-error release (§3i), as a chord on S³, for draws with S³ angle φ = θ/2 ≤ `reach`
/// (≤ π/4): per unit of φ, the angle (θ̂ within `angle_error` of itself, libm's sine 2u), the axis (10u), the
/// product sin φ·a (u), the quaternion product m ⊗ (n − 1) (2γ₄ ≈ 8u, four-term dot products), slack
/// (2.5u), and the half-versine's relative (2·angle_error + 6u) times φ/2; plus 2^-100 for the
/// double-double sum. Rounded up by 1 %.
pub fn so3_mean_release_error(reach: f64, angle_error: f64) -> f64 {
    let u = f64::EPSILON / 2.0;
    let per_unit = angle_error
        + 2.0 * u
        + 10.0 * u
        + u
        + 8.0 * u
        + 2.5 * u
        + 2.0 * u
        + (2.0 * angle_error + 6.0 * u) * 0.5 * reach;
    1.01 * per_unit * reach + 2f64.powi(-100)
}

/// The footpoint quaternion as the SO(3) release uses it, (x, y, z, w), divided by its norm unless ‖m‖² is
/// within 4 ulps of 1 (|‖m‖ − 1| ≤ 6·2^-53 either way; on SO(3) the norm scales the exact release m ⊗ n* as a
/// whole, so it costs nothing: the chart is scale-invariant).
fn so3_footpoint(m: &UnitQuaternion<f64>) -> nalgebra::Quaternion<f64> {
    let q = *m.quaternion();
    let m2 = q.coords.norm_squared();
    if (m2 - 1.0).abs() <= 4.0 * f64::EPSILON { q } else { q * (1.0 / m2.sqrt()) }
}

/// The SO(3) release of §3i: δ = m ⊗ (−2 sin²(φ/2), sin φ·a) in f64, m + δ exactly (TwoSum), its quaternion
/// cube-map cell in double-double (the cube map of S³ in the order x, y, z, w, then the sign rule of
/// [`crate::space::grid::snap_quaternion`]), on the grid of spacing 2^`spacing_log2`.
pub(crate) fn so3_relative_release(
    footpoint: &UnitQuaternion<f64>,
    half: f64,
    axis: &nalgebra::Vector3<f64>,
    spacing_log2: i32,
) -> UnitQuaternion<f64> {
    let m = so3_footpoint(footpoint);
    let (s, q) = (half.sin(), (0.5 * half).sin());
    let dn = nalgebra::Quaternion::new(-(2.0 * (q * q)), s * axis[0], s * axis[1], s * axis[2]);
    let d = m * dn;
    let (mc, dc) = (m.coords, d.coords);
    let (mut hi, mut lo) = ([0.0; 4], [0.0; 4]);
    for i in 0..4 {
        let h = mc[i] + dc[i];
        let bb = h - mc[i];
        hi[i] = h;
        lo[i] = (mc[i] - (h - bb)) + (dc[i] - bb);
    }
    let mut c = [0.0; 4];
    crate::space::grid::snap_cube_map_dd(&hi, &lo, spacing_log2, &mut c);
    if c[crate::space::grid::cube_face(&c)] < 0.0 {
        c.iter_mut().for_each(|x| *x = -*x);
    }
    UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(c[3], c[0], c[1], c[2]))
}

/// The SO(3) Riemannian Laplace's grid with cells up to 2^-`below_log2` of the noise scale σ.
fn so3_laplace_rounding(sigma: f64, below_log2: i32) -> Option<Rounding> {
    // The SO(3) Laplace's acceptance test errs by a proven α (float_safety.md §3f, Lemma R): 4α more.
    let alpha = So3.laplace_noise(sigma, None).ok()?.acceptance_error();
    Some(Rounding::for_rotations_below(1.0 / sigma, 1.0 / sigma, below_log2).with_acceptance_error(alpha))
}

impl LaplaceManifold for So3 {
    fn rounding(&self, sigma: f64) -> Option<Rounding> {
        so3_laplace_rounding(sigma, RIEMANNIAN_SPACING_BELOW_NOISE_LOG2)
    }

    /// The private mean's grid: cells up to 2^-10 of σ ([`MEAN_SPACING_BELOW_NOISE_LOG2`]).
    fn rounding_in_ball(&self, sigma: f64, _center: &UnitQuaternion<f64>, _radius: f64) -> Option<Rounding> {
        so3_laplace_rounding(sigma, MEAN_SPACING_BELOW_NOISE_LOG2)
    }

    fn snap_point(&self, rounding: &Rounding, y: &mut nalgebra::UnitQuaternion<f64>) {
        rounding.snap_rotation(y)
    }

    /// The relative-error release of `docs/proofs/float_safety.md` §3i, as on S² (keep-ball of radius
    /// R = r + Δ/2 + τ + margin in rotation angle, or R = r conditioned on the data ball; redraw beyond
    /// T = R + r + Δ/2 + margin, η relative to T/2 on S³: [`so3_mean_release_error`]).
    fn ball_chart(
        &self,
        noise: &LaplaceSo3Noise,
        center: &UnitQuaternion<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<UnitQuaternion<f64>>>> {
        let lipschitz = noise.epsilon();
        let sigma = 1.0 / lipschitz;
        let law = LaplaceAngle::new(lipschitz)?;
        let footpoint_radius = radius * (1.0 + 1e-12) + 1e-12 + 0.5 * sensitivity;
        // The coarsest cell allowed has an S³ chord diameter ≤ √3·2^fine, twice that in rotation angle (×π/2).
        let fine = -(MEAN_SPACING_BELOW_NOISE_LOG2 + lipschitz.max(1.0).log2().ceil() as i32);
        let margin = 0.25 * sensitivity + 16.0 * 2f64.powi(fine);
        let alpha = noise.acceptance_error();
        // §3f: θ̂ = (Ê₁ + Ê₂ + Ê₃)/ε within (15 + 2 + 1)u of itself; one unit more.
        let angle_error = 19.0 * (f64::EPSILON / 2.0);
        let c = center.quaternion().coords;
        let chart = |tau: f64, tail: f64| -> Result<BallChart<UnitQuaternion<f64>>, &'static str> {
            // Conditioned (τ < 0): the data ball itself, as `PrivateFrechetMean::keeps` checks it.
            let ball = if tau < 0.0 { radius } else { footpoint_radius + tau + margin };
            let noise_radius = ball + footpoint_radius + margin;
            if noise_radius > 0.5 * PI {
                return Err("the ball is too wide for the relative-error release");
            }
            let eta = so3_mean_release_error(0.5 * noise_radius, angle_error);
            // Kept draws' exact points lie within R + margin of the centre in rotation angle: half that on S³.
            let face = face_floor(c.as_slice(), 0.5 * (ball + margin));
            let chart_error = cube_chart_error(4, eta, face);
            let rounding = Rounding::for_rotations_with_error(lipschitz, chart_error, MEAN_SPACING_BELOW_NOISE_LOG2)
                .with_acceptance_error(alpha);
            Ok(BallChart {
                rounding,
                whiten: *center,
                unwhiten: *center,
                footpoint_radius,
                ball,
                noise_radius,
                tail_cost: keep_ball_tail_cost(tail),
                footpoint_cost: 0.0,
            })
        };
        cheapest_relative_chart(&law, conditioned, chart, self.rounding_in_ball(sigma, center, radius))
    }

    /// The relative-error release on SO(3) (§3i): the half angle by the Gamma proposal (drawn again beyond
    /// T/2) and the axis, m + m ⊗ (n − 1) summed exactly, rounded in double-double, kept within R of the centre.
    fn sample_in_chart<R: Rng + ?Sized>(
        &self,
        noise: &LaplaceSo3Noise,
        footpoint: &UnitQuaternion<f64>,
        chart: &BallChart<UnitQuaternion<f64>>,
        rng: &mut R,
    ) -> Fallible<Option<UnitQuaternion<f64>>> {
        let (half, axis) = noise.sample_half_angle_and_axis(rng);
        if 2.0 * half > chart.noise_radius {
            return Ok(None);
        }
        let mut y = so3_relative_release(footpoint, half, &axis, chart.rounding.float_safe_grid().spacing_log2);
        if let Some(coarse) = chart.rounding.coarse_grid() {
            y = crate::space::grid::snap_quaternion(&y, coarse.spacing_log2);
        }
        Ok((self.distance(&chart.whiten, &y) <= chart.ball).then_some(y))
    }

    type Noise = LaplaceSo3Noise;

    fn laplace_noise(&self, sigma: f64, _t_max: Option<f64>) -> Fallible<LaplaceSo3Noise> {
        LaplaceSo3Noise::new(1.0 / check_positive("sigma", sigma)?)
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &LaplaceSo3Noise,
        eta: &UnitQuaternion<f64>,
        rng: &mut R,
    ) -> UnitQuaternion<f64> {
        eta * noise.sample(rng)
    }

    fn mean_distance(&self, noise: &LaplaceSo3Noise, within: Option<f64>) -> f64 {
        let law = LaplaceAngle::new(noise.epsilon()).expect("validated parameters");
        truncated_mean(&law, within, (3.0 / noise.epsilon()).min(PI))
    }
}

impl LaplaceManifold for SpdAffine {
    fn negligible_event_probability(&self, noise: &SpdLaplaceNoise) -> f64 {
        noise.negligible_event_probability()
    }

    fn distance_unit(&self) -> &'static str {
        "(the metric's distance)"
    }

    fn rounding_refusal_advice(&self) -> &'static str {
        "the condition numbers in a wide ball amplify its rounding errors; use a centre closer to the data and a \
         smaller radius, conditioning on the ball, or the log-Euclidean metric"
    }

    type Noise = SpdLaplaceNoise;

    const NEEDS_BALL: bool = true;

    /// Untruncated laws within 10 % of the existence threshold are refused: their draws overflow f64
    /// (log-eigenvalues beyond 709) with non-negligible probability (2 % at 99 % of the threshold, below
    /// 1e-10 at 95 %). [`Conditioning::Auto`] then conditions on the ball instead. Well before overflow, draws
    /// lose positive definiteness in rounding (condition number beyond 2⁵³): see
    /// [`LaplaceManifold::check_representable`].
    fn laplace_noise(&self, sigma: f64, t_max: Option<f64>) -> Fallible<SpdLaplaceNoise> {
        let limit = 0.9 * SpdLaplaceNoise::normalisable_below(self.k());
        if t_max.is_none() && sigma >= limit {
            return Err(Error::InvalidParameter {
                name: "sigma",
                value: sigma,
                reason: "is within 10 % of (or above) the largest σ for which the unconditioned SPD Laplace law \
                         exists; condition the draw on the data ball instead",
            });
        }
        // A ball this wide holds matrices whose eigenvalue ratios no double can carry (e^{709}), and setting up
        // the exact law over it would cost without bound (σ ~ 1e300 took 38 s): refuse at once.
        if let Some(t) = t_max
            && (t.is_nan() || t > MAX_SPD_BALL)
        {
            return Err(Error::NumericalLimit(format!(
                "the SPD Laplace draw conditioned on a ball of radius {t:.4e} (from the data radius and Δ) would \
                 reach log-eigenvalues beyond ±709, which double precision cannot hold; use a smaller radius \
                 (at most {} suffices everywhere)",
                MAX_SPD_BALL / 4.0
            )));
        }
        SpdLaplaceNoise::new(self.k(), sigma, t_max)
    }

    /// The log chart at the centre (`docs/proofs/float_safety.md` §3e): R_P = r + Δ/2 (the footpoint's
    /// ball), a margin of Δ/4, the data ball R = r when conditioned and otherwise R = R_P + τ + margin with τ
    /// the noise's 1 − p quantile, for the tail p ∈ {10⁻¹⁰, …, 10⁻²} whose ε₀ + ln 1/(1 − p) is smallest (a
    /// wider ball rounds less finely); T = min(R + R_P + margin, the noise's truncation). Refused where double
    /// precision cannot certify the rounding.
    fn ball_chart(
        &self,
        noise: &SpdLaplaceNoise,
        center: &DMatrix<f64>,
        radius: f64,
        sensitivity: f64,
        conditioned: bool,
    ) -> Fallible<Option<BallChart<DMatrix<f64>>>> {
        let k = self.k();
        spd::check_positive_definite(center)?;
        let not_pd = || Error::NotPositiveDefinite { min_eigenvalue: 0.0 };
        let unwhiten = center.clone().cholesky().ok_or_else(not_pd)?.l();
        let whiten = unwhiten.clone().try_inverse().ok_or_else(not_pd)?;
        let footpoint_radius = radius + 0.5 * sensitivity;
        let margin = 0.25 * sensitivity;
        let cond_center = crate::manifold::float_error::spd_condition_bound(center);
        let footpoint_error = spd_footpoint_error(k, cond_center, footpoint_radius);
        if !footpoint_error.is_finite() {
            return Err(Error::NumericalLimit(format!(
                "the centre's condition number (at most {cond_center:.3e}) is too large for its whitening to be \
                 bounded in double precision (relative error above 1e-3); use a better-conditioned centre"
            )));
        }
        let footpoint_cost = crate::numerics::rounding::div_up(2.0 * footpoint_error, noise.sigma());
        // −ln(1 − tail), rounded up: what a tail of mass `tail` left out of the chart costs.
        let tail_cost = |tail: f64| if tail > 0.0 { crate::numerics::rounding::fn_up(-(-tail).ln_1p()) } else { 0.0 };
        let chart = |ball: f64, tail: f64| -> Result<BallChart<DMatrix<f64>>, &'static str> {
            let noise_radius = (ball + footpoint_radius + margin).min(noise.t_max().unwrap_or(f64::INFINITY));
            let footpoint = footpoint_radius * (1.0 + 1e-12) + 1e-12;
            let near = ball + margin;
            // The kept cells' draws lie within `kept` of the footpoint; the log-eigenvalues' own error (and the
            // chamber's wall shift) adds to η, and the proposals' acceptance error α to ε₀ (§3h).
            let kept = noise_radius.min(near + footpoint);
            let eta = crate::privacy::rounding::add_up(
                spd_log_chart_error(k, footpoint, kept, near),
                noise.log_eigenvalue_error(kept),
            );
            let eta_far = crate::privacy::rounding::add_up(
                spd_log_chart_error(k, footpoint, noise_radius, footpoint + noise_radius),
                noise.log_eigenvalue_error(noise_radius),
            );
            if !eta.is_finite() {
                return Err("the condition numbers within the ball are too large");
            }
            let rounding = Rounding::for_spd_log_chart(k, noise.sigma(), eta, ball, noise.radial_law().mean())
                .with_acceptance_error(noise.acceptance_error(kept));
            // A cell's width plus the far draws' error must fit in the margin (§3e).
            let d = (k * (k + 1) / 2) as f64;
            let fits = d.sqrt() * rounding.grid().spacing() + eta_far < margin;
            if !fits {
                return Err("the error of draws beyond the ball does not fit in a quarter of the sensitivity");
            }
            let tail_cost = tail_cost(tail);
            let (whiten, unwhiten) = (whiten.clone(), unwhiten.clone());
            Ok(BallChart {
                rounding,
                whiten,
                unwhiten,
                footpoint_radius,
                ball,
                noise_radius,
                tail_cost,
                footpoint_cost,
            })
        };
        let found = if conditioned {
            chart(radius, 0.0)
        } else {
            let cost = |c: &BallChart<DMatrix<f64>>| c.rounding.additive_epsilon() + c.tail_cost + c.footpoint_cost;
            let levels = [1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];
            cheapest_over_levels(
                &levels,
                |level| tail_cost(level + 1e-11),
                cost,
                |level| {
                    // The radial CDF is accurate to ~1e-12: the mass beyond τ is below level + 1e-11.
                    let tau = noise.radial_law().quantile(1.0 - level)? * 1.001;
                    Ok(chart(footpoint_radius + tau + margin, level + 1e-11))
                },
            )?
        };
        found.map(Some).map_err(|why| {
            Error::NumericalLimit(format!(
                "a float-safe SPD({k}) release around footpoints within {radius} of the centre at noise scale \
                 {:.4e} cannot be certified in double precision ({why}); use a smaller radius, or (for a mean) \
                 more data",
                noise.sigma()
            ))
        })
    }

    /// L0·P̃·L0ᵀ for the whitened footpoint P̃ that [`LaplaceManifold::sample_in_chart`] draws at.
    fn footpoint_in_chart(&self, chart: &BallChart<DMatrix<f64>>, x: &DMatrix<f64>) -> DMatrix<f64> {
        congruence_by(&chart.unwhiten, &whitened_footpoint(chart, x))
    }

    /// Whitens the footpoint (and moves it onto the ball of radius R_P if it lies outside) and takes its
    /// Cholesky factor L; draws the noise's r and U (r first, as every SPD draw), again beyond T; forms
    /// B = L·U·diag(e^{r/2}) and Y = BBᵀ (= L·N·Lᵀ), takes log Y from its eigendecomposition, rounds its
    /// isometric coordinates onto the grid, keeps the cell if it lies within R, and un-whitens the cell's point.
    fn sample_in_chart<R: Rng + ?Sized>(
        &self,
        noise: &SpdLaplaceNoise,
        footpoint: &DMatrix<f64>,
        chart: &BallChart<DMatrix<f64>>,
        rng: &mut R,
    ) -> Fallible<Option<DMatrix<f64>>> {
        let k = self.k();
        let symmetric = |m: DMatrix<f64>| (&m + m.transpose()) * 0.5;
        let p = whitened_footpoint(chart, footpoint);
        let r = noise.sample_log_eigenvalues(rng);
        let mut m = noise.haar_rotation(rng);
        if r.norm() > chart.noise_radius {
            return Ok(None);
        }
        for (j, rj) in r.iter().enumerate() {
            let scale = (0.5 * rj).exp();
            m.column_mut(j).scale_mut(scale);
        }
        let unrepresentable = || Error::Unrepresentable("the whitened draw lost positive definiteness".into());
        let l = p.cholesky().ok_or_else(unrepresentable)?.l();
        let b = &l * m;
        let mut s = sym_to_coords(&logm(&symmetric(&b * b.transpose())));
        if !s.iter().all(|x| x.is_finite()) {
            return Err(unrepresentable());
        }
        chart.rounding.snap_coordinates(s.as_mut_slice());
        if s.norm() > chart.ball {
            return Ok(None);
        }
        Ok(Some(symmetric(&chart.unwhiten * expm(&coords_to_sym(&s, k)) * chart.unwhiten.transpose())))
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &SpdLaplaceNoise,
        eta: &DMatrix<f64>,
        rng: &mut R,
    ) -> DMatrix<f64> {
        noise.sample_around(&sqrt_and_inv_sqrt(eta).0, rng)
    }

    /// max of e^{−(2s + a)/σ}·P(ρ(η, Y) ≤ s) over s ∈ {r′/8, 2r′/8, …, r′} ∪ {σ·2^{i/2} ≤ r′} with 2s + a ≤
    /// 2r + 3Δ/4, where r′ = r − Δ/4 and a = d_max − r′, d_max = (r + Δ/2)(1 + 10⁻¹²) + 10⁻¹² the farthest a
    /// footpoint lies from the chart's centre (§3e: the whitened mean is moved onto the ball of radius
    /// r + Δ/2). Every exact point within r′ of the centre is kept (the chart's rounding moves it by less than
    /// the margin Δ/4). With d ≤ d_max, let z be the point at distance max(0, d − (r′ − s)) ≤ s + a from η
    /// towards the centre: B_s(z) lies in B_{r′}, and within 2s + a of η (inside the truncation 2r + Δ and
    /// the chart's redraw radius 2r + 3Δ/4), where the proposal's density is at least e^{−(2s + a)/σ}/Z; its
    /// volume is that of B_s(η) (SPD(k) is homogeneous), whose probability is at most vol/Z.
    /// (`docs/proofs/mean_outside_ball.md` §4.) Evaluated on the law the noise was set up with.
    fn ball_acceptance_lower_bound(&self, noise: &SpdLaplaceNoise, radius: f64, sensitivity: f64) -> Option<f64> {
        let law = noise.radial_law();
        let inner = radius - 0.25 * sensitivity;
        let farthest = (radius + 0.5 * sensitivity) * (1.0 + 1e-12) + 1e-12;
        let reach = farthest - inner;
        let redraw = 2.0 * radius + 0.75 * sensitivity;
        // s = jr′/8, and s = σ·2^{i/2} within r′ (where σ ≪ r, e^{−2s/σ} at s = r′/8 underflows).
        let steps = (1..=8).map(|j| inner * j as f64 / 8.0);
        let scales = (0..60).map(|i| noise.sigma() * 2f64.powf(i as f64 / 2.0)).take_while(|&s| s <= inner);
        let rate = steps
            .chain(scales)
            .filter(|&s| s > 0.0 && 2.0 * s + reach <= redraw)
            .map(|s| (-(2.0 * s + reach) / noise.sigma()).exp() * law.cdf(s))
            .fold(0.0, f64::max);
        Some(rate)
    }

    fn mean_distance(&self, noise: &SpdLaplaceNoise, within: Option<f64>) -> f64 {
        let t_max = match (noise.t_max(), within) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // The noise's own law when the truncation is the same (always, unconditioned): no second set-up.
        if t_max == noise.t_max() {
            return noise.radial_law().mean();
        }
        SpdRadialLaw::new(self.k(), noise.sigma(), t_max).map(|law| law.mean()).unwrap_or(f64::NAN)
    }

    /// The exact law puts mass on matrices whose condition number f64 entries cannot carry: noise with a
    /// log-eigenvalue gap beyond ln 2⁵³ ≈ 36.7 (for k = 2: probability 3e-6 at σ = 0.8, 1.6e-3 at σ = 1, 0.24 at
    /// σ = 1.27), and sooner at ill-conditioned footpoints. Overflow (a log-eigenvalue beyond 709) is far rarer.
    fn check_representable(&self, y: &DMatrix<f64>) -> Fallible<()> {
        spd::check_representable(y)
    }
}

/// The symmetric matrix with isometric coordinates `v`: diagonal entries, then √2 times each entry above
/// the diagonal, row by row, so that ‖v‖ = ‖matrix‖_F.
pub(crate) fn coords_to_sym(v: &DVector<f64>, k: usize) -> DMatrix<f64> {
    let mut m = DMatrix::zeros(k, k);
    let mut it = v.iter();
    for i in 0..k {
        m[(i, i)] = *it.next().expect("k(k+1)/2 coordinates");
        for j in i + 1..k {
            let x = *it.next().expect("k(k+1)/2 coordinates") * FRAC_1_SQRT_2;
            m[(i, j)] = x;
            m[(j, i)] = x;
        }
    }
    m
}

/// The isometric coordinates of a symmetric matrix (the diagonal, then √2 times each entry above it, row by
/// row), so that the Euclidean norm is the Frobenius norm; the inverse of [`coords_to_sym`].
fn sym_to_coords(m: &DMatrix<f64>) -> DVector<f64> {
    let k = m.nrows();
    let mut out = Vec::with_capacity(k * (k + 1) / 2);
    for i in 0..k {
        out.push(m[(i, i)]);
        for j in i + 1..k {
            out.push(m[(i, j)] / FRAC_1_SQRT_2);
        }
    }
    DVector::from_vec(out)
}

/// A bound on every isometric log coordinate of an SPD(k) matrix with f64 entries: its eigenvalues lie in
/// [2^-1074, k·2^1024), so |ln λ| ≤ 745.2 and each coordinate is at most ‖log P‖_F ≤ 746√k.
fn any_log_coordinate_bound(k: usize) -> f64 {
    746.0 * (k as f64).sqrt()
}

impl SpdLogEuclidean {
    /// The isometric coordinates of log P as computed in f64: the log-Euclidean releases' chart, and the
    /// coordinates in which their guarantee's distance is measured (`docs/proofs/float_safety.md` §3d).
    pub fn log_coordinates(&self, p: &DMatrix<f64>) -> DVector<f64> {
        sym_to_coords(&logm(p))
    }
}

impl LaplaceManifold for SpdLogEuclidean {
    fn negligible_event_probability(&self, noise: &EuclideanLaplace) -> f64 {
        noise.negligible_event_probability()
    }

    fn distance_unit(&self) -> &'static str {
        "(the metric's distance)"
    }

    fn rounding_refusal_advice(&self) -> &'static str {
        "the condition numbers in a wide ball amplify its rounding errors; use a centre closer to the data and a \
         smaller radius, conditioning on the ball, or the log-Euclidean metric"
    }

    type Noise = EuclideanLaplace;

    const ROUNDS_IN_CHART: bool = true;

    /// The log domain's uniform grid, clamped beyond every f64 matrix's log coordinates.
    fn rounding(&self, sigma: f64) -> Option<Rounding> {
        Some(Rounding::for_log_domain(self.dimension(), sigma, any_log_coordinate_bound(self.k())))
    }

    /// Footpoints within `radius` of `center` have log coordinates within radius of the centre's (the distance
    /// is the Euclidean one between them); one unit of slack covers the mean's and the logarithm's f64 error.
    fn rounding_in_ball(&self, sigma: f64, center: &DMatrix<f64>, radius: f64) -> Option<Rounding> {
        let bound = self.log_coordinates(center).amax() + radius + 1.0;
        let rounding =
            Rounding::for_log_domain_by_shell(self.dimension(), sigma, bound.min(any_log_coordinate_bound(self.k())));
        // The truncated radius's acceptance test may run here (float_safety.md §3f, Lemma R).
        Some(rounding.with_acceptance_error(EuclideanLaplace::truncated_acceptance_error(self.dimension())))
    }

    /// The representative of the cell of y's log coordinates.
    fn snap_point(&self, rounding: &Rounding, y: &mut DMatrix<f64>) {
        let mut u = self.log_coordinates(y);
        rounding.snap_coordinates(u.as_mut_slice());
        *y = expm(&coords_to_sym(&u, self.k()));
    }

    /// Rounded in the log domain, where the law is a plain Laplace law: the footpoint's log coordinates plus
    /// the noise, one addition per coordinate, clamped and rounded; the release is exp of the cell's point
    /// (`docs/proofs/float_safety.md` §3d).
    fn sample_rounded<R: Rng + ?Sized>(
        &self,
        noise: &EuclideanLaplace,
        eta: &DMatrix<f64>,
        rounding: &Rounding,
        rng: &mut R,
    ) -> DMatrix<f64> {
        let mut u = self.log_coordinates(eta);
        u += noise.sample(rng);
        rounding.snap_coordinates(u.as_mut_slice());
        expm(&coords_to_sym(&u, self.k()))
    }

    fn laplace_noise(&self, sigma: f64, t_max: Option<f64>) -> Fallible<EuclideanLaplace> {
        EuclideanLaplace::new(self.dimension(), sigma, t_max)
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &EuclideanLaplace,
        eta: &DMatrix<f64>,
        rng: &mut R,
    ) -> DMatrix<f64> {
        let z = coords_to_sym(&noise.sample(rng), self.k());
        expm(&(logm(eta) + z))
    }

    fn mean_distance(&self, noise: &EuclideanLaplace, within: Option<f64>) -> f64 {
        match within {
            None => noise.mean_radius(),
            Some(r) => EuclideanLaplace::new(noise.dim(), noise.sigma(), Some(r)).map_or(f64::NAN, |l| l.mean_radius()),
        }
    }

    fn check_representable(&self, y: &DMatrix<f64>) -> Fallible<()> {
        spd::check_representable(y)
    }

    /// ε = 1/σ per unit of ‖ĉ(P) − ĉ(P′)‖, ĉ = [`SpdLogEuclidean::log_coordinates`]: the exact law of
    /// ĉ(P) + noise is (1/σ)-DP in it with no input error, while ĉ's error against the exact log (up to
    /// ~c_E·u·√k·cond(P) under (E)) is not bounded over all inputs (`docs/proofs/float_safety.md` §3d).
    fn guarantee_metric(&self) -> Metric {
        Metric::SpdComputedLogCoordinates
    }
}

/// The Riemannian Laplace mechanism on single points (unconditioned): εd-private with ε = 1/σ per unit of the
/// manifold's distance, because the normaliser is the same at every footpoint (docs/math.md §3).
#[derive(Debug, Clone)]
pub struct RiemannianLaplace<M: LaplaceManifold> {
    manifold: M,
    sigma: f64,
    noise: M::Noise,
    rounding: Option<Rounding>,
    /// Where float-safe releases need a public ball (SPD, affine-invariant): its chart.
    ball_chart: Option<BallChart<M::Point>>,
}

impl<M: LaplaceManifold> RiemannianLaplace<M> {
    /// The mechanism with scale `sigma` (finite, > 0). Refused where the normaliser depends on the footpoint,
    /// (SPD) where the unconditioned law does not exist, and where float-safe releases need a public ball
    /// (SPD, affine-invariant: use [`RiemannianLaplace::in_ball`]).
    pub fn new(manifold: M, sigma: f64) -> Fallible<Self> {
        if M::NEEDS_BALL {
            return Err(Error::NotApplicable(format!(
                "{}: a float-safe release needs a public ball around a public centre (RiemannianLaplace::in_ball)",
                manifold.describe()
            )));
        }
        Self::build(manifold, sigma, None)
    }

    /// The mechanism with scale `sigma` for inputs in the public ball B_`radius`(`center`): inputs outside are
    /// moved onto it (along the geodesic to the centre, a 1-Lipschitz map). On SPD(k) with the affine-invariant
    /// metric the releases are rounded in the log chart at the centre and kept in a public ball around it
    /// (`docs/proofs/float_safety.md` §3e); elsewhere the ball is not needed and this is
    /// [`RiemannianLaplace::new`]. On SPD(k) the guarantee holds as printed (ε per unit of ρ(x, x′)) for inputs
    /// whose whitening lies within R_P + 1 of I (R_P = `radius` + σ/2: the ball and a band beyond it); for
    /// inputs farther out it holds per unit of ρ between the footpoints the code computes, which are within
    /// R_P + e_F of the centre, so any two inputs lose at most ε·2(R_P + e_F) + ε₀ (§3e, "Inputs far outside
    /// the ball").
    pub fn in_ball(manifold: M, sigma: f64, center: &M::Point, radius: f64) -> Fallible<Self> {
        if !M::NEEDS_BALL {
            return Self::build(manifold, sigma, None);
        }
        let radius = check_positive("radius", radius)?;
        Self::build(manifold, sigma, Some((center, radius)))
    }

    fn build(manifold: M, sigma: f64, ball: Option<(&M::Point, f64)>) -> Fallible<Self> {
        let sigma = check_positive("sigma", sigma)?;
        if !manifold.footpoint_independent_normaliser() {
            return Err(Error::NotApplicable(format!(
                "{}: the Laplace normaliser depends on the footpoint, so 1/σ is not a metric-DP budget",
                manifold.describe()
            )));
        }
        let noise = manifold.laplace_noise(sigma, None)?;
        // A single input has no Karcher tolerance: σ stands in for the mean's Δ (R_P = r + σ/2, margin σ/4).
        let ball_chart = match ball {
            Some((center, radius)) => manifold.ball_chart(&noise, center, radius, sigma, false)?,
            None => None,
        };
        let rounding = match &ball_chart {
            Some(chart) => Some(chart.rounding),
            None => manifold.rounding(sigma),
        };
        Ok(RiemannianLaplace { manifold, sigma, noise, rounding, ball_chart })
    }

    /// The scale σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// E[ρ(x, M(x))].
    pub fn mean_error(&self) -> f64 {
        self.manifold.mean_distance(&self.noise, None)
    }
}

impl<M: LaplaceManifold> Mechanism for RiemannianLaplace<M> {
    type Point = M::Point;

    const EXACT_RELEASE: bool = M::ROUNDS_IN_CHART || M::NEEDS_BALL;

    /// The exact draw rounded onto the grid: in the public ball's chart where there is one
    /// ([`LaplaceManifold::sample_in_chart`]), else [`LaplaceManifold::sample_rounded`].
    fn privatize<R: CryptoRng + ?Sized>(&self, x: &M::Point, rng: &mut R) -> M::Point {
        if let Some(chart) = &self.ball_chart {
            loop {
                match self.manifold.sample_in_chart(&self.noise, x, chart, rng) {
                    Ok(Some(y)) => return y,
                    Ok(None) => continue,
                    // An input moved into the public ball has bounded condition numbers (§3e).
                    Err(e) => panic!("a valid input stays representable in the public ball: {e}"),
                }
            }
        }
        match &self.rounding {
            Some(r) => self.manifold.sample_rounded(&self.noise, x, r, rng),
            None => self.privatize_unprotected(x, rng),
        }
    }

    /// ε = 1/σ per unit plus the rounding's ε₀ (and, in a public ball, what keeping the release in it costs),
    /// with the sampler's negligible events as δ_B (per pair δ_B·(1 + e^{ε·d + ε₀}), `float_safety.md` §6).
    fn guarantee(&self) -> Guarantee {
        let g = match (self.rounding, &self.ball_chart) {
            (Some(r), Some(chart)) => Guarantee::snapped_metric_dp(
                1.0 / self.sigma,
                self.manifold.guarantee_metric(),
                crate::numerics::rounding::add_up(
                    crate::numerics::rounding::add_up(r.additive_epsilon(), chart.tail_cost),
                    chart.footpoint_cost,
                ),
                r.grid(),
            ),
            (Some(r), None) => r.guarantee(1.0 / self.sigma, self.manifold.guarantee_metric()),
            (None, _) => Guarantee::metric_dp(1.0 / self.sigma, self.manifold.guarantee_metric()),
        };
        crate::privacy::float_safety::with_negligible_events(g, self.manifold.negligible_event_probability(&self.noise))
    }

    fn snap(&self, z: &mut M::Point) {
        if let Some(r) = &self.rounding {
            self.manifold.snap_point(r, z);
        }
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(&self, x: &M::Point, rng: &mut R) -> M::Point {
        self.manifold.sample_laplace(&self.noise, x, rng)
    }

    /// −ρ(x, z)/σ, x moved into the public ball first where there is one. (Keeping the release in its ball
    /// changes the normaliser by a factor within [1 − tail, 1], which this leaves out.)
    fn log_density(&self, z: &M::Point, x: &M::Point) -> f64 {
        match &self.ball_chart {
            Some(chart) => -self.manifold.distance(&self.manifold.footpoint_in_chart(chart, x), z) / self.sigma,
            None => -self.manifold.distance(x, z) / self.sigma,
        }
    }

    fn name(&self) -> &'static str {
        "riemannian-laplace"
    }
}

/// The largest proposal ball (radius 2r + Δ ≤ 4r) the SPD Laplace release sets up: beyond it the ball holds
/// matrices with eigenvalue ratios past e^{709}, beyond double precision.
pub const MAX_SPD_BALL: f64 = 3000.0;

/// The ball-conditioned release is refused where the public lower bound on its acceptance rate
/// ([`LaplaceManifold::ball_acceptance_lower_bound`]) is below this: at most 10⁶ expected tries per release,
/// whatever the data. Such parameters spread the release over the whole ball anyway.
pub const MIN_BALL_ACCEPTANCE: f64 = 1e-6;

/// Whether the Fréchet-mean release conditions its Laplace draw on the data ball B_r(m0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Conditioning {
    /// Unconditioned with σ = Δ/ε where the law exists; otherwise conditioned with σ = 2Δ/ε.
    #[default]
    Auto,
    /// Unconditioned, σ = Δ/ε (refused where the law does not exist).
    Unconditioned,
    /// Conditioned on B_r(m0) (Theorem 3), σ = 2Δ/ε: the release always lies in the public ball.
    Ball,
}

/// The share of ε the automatic choice accepts for the unconditioned release's rounding before it compares
/// it with the ball-conditioned one.
const AUTO_ROUNDING_SHARE: f64 = 1e-3;

/// The largest share of ε a release's rounding may cost; beyond it the release is refused.
const MAX_ROUNDING_SHARE: f64 = 0.1;

/// What float-safe rounding adds to a mean's pure ε: ε₀ once unconditioned (plus what keeping it in a wide
/// ball costs, on SPD), twice conditioned on the ball (`docs/proofs/float_safety.md` §3b, §3e); on SPD with
/// the affine-invariant metric also the footpoint map's 2e_F/σ, once unconditioned and twice conditioned.
fn rounding_cost<P>(rounding: Option<Rounding>, chart: Option<&BallChart<P>>, conditioned: bool) -> f64 {
    use crate::numerics::rounding::{add_up, mul_up};
    let per_cell = rounding.map_or(0.0, |r| r.additive_epsilon());
    let tail = chart.map_or(0.0, |c| c.tail_cost);
    let footpoint = chart.map_or(0.0, |c| c.footpoint_cost);
    if conditioned {
        add_up(mul_up(2.0, per_cell), mul_up(2.0, footpoint))
    } else {
        add_up(add_up(per_cell, tail), footpoint)
    }
}

/// One way of drawing a mean's release, before it is chosen.
struct Plan<M: LaplaceManifold> {
    sigma: f64,
    noise: M::Noise,
    conditioned: bool,
    rounding: Option<Rounding>,
    ball_chart: Option<BallChart<M::Point>>,
}

impl<M: LaplaceManifold> Plan<M> {
    fn cost(&self) -> f64 {
        rounding_cost(self.rounding, self.ball_chart.as_ref(), self.conditioned)
    }
}

/// The private Fréchet mean: pure ε-DP release of the Fréchet mean of n points known to lie in the public
/// ball B_r(m0), by the Riemannian Laplace mechanism at the sensitivity of Theorem 2.
#[derive(Debug, Clone)]
pub struct PrivateFrechetMean<M: LaplaceManifold> {
    manifold: M,
    center: M::Point,
    radius: f64,
    n: usize,
    /// The ε asked for, and stated: the noise's ε′ plus the rounding's cost, rounded up, is at most it.
    epsilon: f64,
    /// The ε′ the noise is calibrated at (σ = Δ/ε′, or 2Δ/ε′ conditioned).
    noise_epsilon: f64,
    sensitivity: f64,
    sigma: f64,
    conditioned: bool,
    options: KarcherOptions,
    stop: KarcherStop<M::Point>,
    noise: M::Noise,
    rounding: Option<Rounding>,
    ball_chart: Option<BallChart<M::Point>>,
}

impl<M: LaplaceManifold> PrivateFrechetMean<M> {
    /// The release for data sets of `n` points within `radius` of `center`, at pure `epsilon`, with the
    /// default Karcher tolerance.
    pub fn new(
        manifold: M,
        center: M::Point,
        radius: f64,
        n: usize,
        epsilon: f64,
        conditioning: Conditioning,
    ) -> Fallible<Self> {
        Self::with_options(manifold, center, radius, n, epsilon, conditioning, KarcherOptions::default())
    }

    /// [`PrivateFrechetMean::new`] with an explicit Karcher stopping rule. The sensitivity is Theorem 2's Δ at
    /// the widened radius r′ = r + e_ρ (a row accepted by its computed distance ≤ r lies within r′), plus
    /// 2τ/h(r′) for the certified tolerance τ of [`KarcherStop::in_ball`]: the computed mean is within τ/h of
    /// the exact one (strong convexity), on both neighbouring data sets
    /// (`docs/proofs/frechet_mean_sensitivity.md`).
    pub fn with_options(
        manifold: M,
        center: M::Point,
        radius: f64,
        n: usize,
        epsilon: f64,
        conditioning: Conditioning,
        options: KarcherOptions,
    ) -> Fallible<Self> {
        let epsilon = check_positive("epsilon", epsilon)?;
        let radius = check_radius(&manifold, radius)?;
        let (stop, sensitivity) = certified_mean_sensitivity(&manifold, &center, radius, n, options)?;
        let free = manifold.footpoint_independent_normaliser();
        let unconditioned = |epsilon: f64| -> Fallible<(f64, M::Noise)> {
            if !free {
                return Err(Error::NotApplicable(format!(
                    "{}: the Laplace normaliser depends on the footpoint; condition on the ball (σ = 2Δ/ε)",
                    manifold.describe()
                )));
            }
            let sigma = sensitivity / epsilon;
            Ok((sigma, manifold.laplace_noise(sigma, None)?))
        };
        // The computed mean η lies within τ/h ≤ Δ/2 of the exact one, which is in B_r′(m0), and a kept draw's
        // computed distance from m0 is ≤ r, its exact one ≤ r′; so every kept draw lies in B_{2r′+Δ}(η), and
        // truncating the proposal to that ball before rejecting is exact.
        let ball = |epsilon: f64| -> Fallible<(f64, M::Noise)> {
            let sigma = 2.0 * sensitivity / epsilon;
            Ok((sigma, manifold.laplace_noise(sigma, Some(2.0 * stop.radius() + sensitivity))?))
        };
        // One way to draw: the noise, and the float-safe rounding with its cost (`rounding_cost`).
        let plan = |conditioned: bool, epsilon: f64| -> Fallible<Plan<M>> {
            let (sigma, noise) = if conditioned { ball(epsilon)? } else { unconditioned(epsilon)? };
            if conditioned
                && let Some(rate) = manifold.ball_acceptance_lower_bound(&noise, radius, sensitivity)
                && (rate.is_nan() || rate < MIN_BALL_ACCEPTANCE)
            {
                let error = manifold.mean_distance(&noise, Some(radius));
                return Err(Error::NumericalLimit(format!(
                    "nothing useful can be released for {n} points within {radius} of the centre at epsilon = \
                     {epsilon}: the noise scale σ = {sigma:.4} (σ = 2Δ/ε, Δ = {sensitivity:.4}) spreads the release \
                     over the whole ball (expected error {error:.4} against the radius {radius}), and the exact \
                     draw, conditioned on the ball, could need {:.1e} tries or more; use more points, a larger \
                     epsilon or a smaller radius",
                    1.0 / rate.max(f64::MIN_POSITIVE)
                )));
            }
            let ball_chart = manifold.ball_chart(&noise, &center, radius, sensitivity, conditioned)?;
            let rounding = match &ball_chart {
                Some(chart) => Some(chart.rounding),
                None => manifold.rounding_in_ball(sigma, &center, radius),
            };
            Ok(Plan { sigma, noise, conditioned, rounding, ball_chart })
        };
        // The plan at a noise budget ε′: conditioned or not, as asked or as `Auto` chooses.
        let choose = |inner: f64| -> Fallible<Plan<M>> {
            let plan = |conditioned: bool| plan(conditioned, inner);
            Ok(match conditioning {
                Conditioning::Unconditioned => plan(false)?,
                Conditioning::Ball => plan(true)?,
                // Unconditioned where the law exists and its rounding is cheap; otherwise the cheaper of the two
                // (an affine-invariant SPD release far in a wide ball cannot be computed finely in f64).
                Conditioning::Auto => match plan(false) {
                    Ok(free) if free.cost() <= AUTO_ROUNDING_SHARE * inner => free,
                    free => match (free, plan(true)) {
                        (Ok(free), Ok(ball)) => {
                            if ball.cost() < free.cost() {
                                ball
                            } else {
                                free
                            }
                        }
                        (Ok(free), Err(_)) => free,
                        (Err(_), ball) => ball?,
                    },
                },
            })
        };
        // Ask ε, pay ε: the rounding's cost ε₀ is taken inside ε. The noise is calibrated at ε′ = ε − ε₀(ε′)
        // (a fixed point: ε₀ depends on the noise scale through the grid), found by lowering ε′ until
        // ε′ + ε₀(ε′) ≤ ε, rounded up; the release is then pure ε-DP, exactly the ε asked.
        let too_costly = |cost: f64| {
            Error::NumericalLimit(format!(
                "rounding this release onto a float-safe grid would cost {} of privacy loss, more than a tenth of \
                 epsilon = {epsilon}: double precision cannot round it finely enough for {n} rows within {} {} of \
                 the centre; {}",
                crate::numerics::format::short(cost),
                crate::numerics::format::short(radius),
                manifold.distance_unit(),
                manifold.rounding_refusal_advice()
            ))
        };
        let mut inner = epsilon;
        let mut chosen = choose(inner)?;
        for _ in 0..16 {
            let cost = chosen.cost();
            if cost > MAX_ROUNDING_SHARE * epsilon {
                return Err(too_costly(cost));
            }
            if crate::numerics::rounding::add_up(inner, cost) <= epsilon {
                break;
            }
            // The largest double ≤ ε − ε₀, and strictly below the last try.
            let next = (-crate::numerics::rounding::add_up(cost, -epsilon)).min(inner.next_down());
            if next <= 0.0 {
                return Err(too_costly(cost));
            }
            inner = next;
            chosen = choose(inner)?;
        }
        let cost = chosen.cost();
        if cost > MAX_ROUNDING_SHARE * epsilon || crate::numerics::rounding::add_up(inner, cost) > epsilon {
            return Err(too_costly(cost));
        }
        let Plan { sigma, noise, conditioned, rounding, ball_chart } = chosen;
        Ok(PrivateFrechetMean {
            manifold,
            center,
            radius,
            n,
            epsilon,
            noise_epsilon: inner,
            sensitivity,
            sigma,
            conditioned,
            options,
            stop,
            noise,
            rounding,
            ball_chart,
        })
    }

    /// Pure ε-DP for data sets of n points in B_r(m0) that differ in one point, at exactly the ε asked: the
    /// noise is calibrated at ε′ = [`PrivateFrechetMean::noise_epsilon`] and ε′ + the rounding's cost ≤ ε.
    pub fn guarantee(&self) -> Guarantee {
        debug_assert!(crate::numerics::rounding::add_up(self.noise_epsilon, self.rounding_cost()) <= self.epsilon);
        // The sampler's negligible events (`docs/proofs/float_safety.md` §6), between neighbours: L = ε.
        crate::privacy::float_safety::with_negligible_events(
            Guarantee::pure(self.epsilon),
            self.manifold.negligible_event_probability(&self.noise),
        )
    }

    /// The ε′ the noise is calibrated at: the ε asked less the rounding's cost (`ε′ + cost ≤ ε`, rounded up).
    pub fn noise_epsilon(&self) -> f64 {
        self.noise_epsilon
    }

    /// What float-safe rounding costs of the pure ε (docs/proofs/float_safety.md §3b, §3e), taken inside the
    /// ε asked: its ε₀, twice when the draw is conditioned on the ball (once in each cell's probability, once in
    /// the normaliser); on SPD with the affine-invariant metric unconditioned, plus what keeping the release in
    /// its public ball costs.
    pub fn rounding_cost(&self) -> f64 {
        rounding_cost(self.rounding, self.ball_chart.as_ref(), self.conditioned)
    }

    /// The manifold.
    pub fn manifold(&self) -> &M {
        &self.manifold
    }

    /// The public centre m0.
    pub fn center(&self) -> &M::Point {
        &self.center
    }

    /// The public radius r.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The data set size n (public under replace-one neighbouring).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Δ: Theorem 2's bound at the widened radius r′ plus the certified Karcher tolerance term 2τ/h.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The Laplace scale σ (Δ/ε unconditioned, 2Δ/ε conditioned).
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Whether the draw is conditioned on B_r(m0).
    pub fn conditioned(&self) -> bool {
        self.conditioned
    }

    /// The expected Riemannian distance between the release and the exact mean: exact for the unconditioned
    /// law; for the conditioned one, its value when the mean sits at the centre m0.
    pub fn expected_error(&self) -> f64 {
        self.manifold.mean_distance(&self.noise, self.conditioned.then_some(self.radius))
    }

    /// Releases the private Fréchet mean of `data` (exactly n points, each within r of m0, else an error
    /// naming the first offending point; nothing is drawn then).
    ///
    /// [`Error::Unrepresentable`] if the exact draw is not a valid point in double precision (SPD: condition
    /// number beyond ~2⁵³); the draw is not repeated, and that outcome is a function of the draw, so it should
    /// be charged to a budget like a release.
    pub fn release<R: CryptoRng + ?Sized>(&self, data: &[M::Point], rng: &mut R) -> Fallible<M::Point> {
        if data.len() != self.n {
            return Err(Error::WrongLength { expected: self.n, got: data.len() });
        }
        check_ball(&self.manifold, data, &self.center, self.radius)?;
        let mean = frechet_mean_within(&self.manifold, data, &self.center, &self.stop)?;
        self.release_mean(&mean.mean, rng)
    }

    /// Releases a Fréchet mean computed elsewhere (by a distributed Karcher iteration with this release's
    /// [`PrivateFrechetMean::options`], over exactly n points in the ball): the noise draw, the
    /// representability check and the float-safe rounding of [`PrivateFrechetMean::release`].
    ///
    /// Conditioned on the ball, the draw is rounded before the ball is checked, and the check is made on the
    /// rounded point: whether a release is kept then depends on its cell alone, so a cell that straddles the
    /// ball's boundary is either released whole or not at all, the release always lies in the ball, and the
    /// guarantee is ε + 2ε₀ (`docs/proofs/float_safety.md` §3b).
    pub fn release_mean<R: CryptoRng + ?Sized>(&self, mean: &M::Point, rng: &mut R) -> Fallible<M::Point> {
        if let Some(chart) = &self.ball_chart {
            loop {
                if let Some(y) = self.manifold.sample_in_chart(&self.noise, mean, chart, rng)? {
                    self.manifold.check_representable(&y)?;
                    return Ok(y);
                }
            }
        }
        loop {
            let y = match &self.rounding {
                Some(r) => self.manifold.sample_rounded(&self.noise, mean, r, rng),
                None => self.manifold.sample_laplace(&self.noise, mean, rng),
            };
            if self.keeps(&y) {
                self.manifold.check_representable(&y)?;
                return Ok(y);
            }
        }
    }

    /// The grid releases are rounded onto, if any.
    pub fn rounding(&self) -> Option<Rounding> {
        self.rounding
    }

    /// Whether the release keeps a rounded draw: always unconditioned; conditioned, when it lies in the ball.
    fn keeps(&self, y: &M::Point) -> bool {
        !self.conditioned || self.manifold.distance(&self.center, y) <= self.radius
    }

    /// The Karcher stopping rule as asked for.
    pub fn options(&self) -> KarcherOptions {
        self.options
    }

    /// The Karcher stop test as run, whose certified tolerance τ and widened radius r′ the sensitivity
    /// accounts for: a mean computed elsewhere must stop by it ([`KarcherStop::certify`]).
    pub fn stop(&self) -> &KarcherStop<M::Point> {
        &self.stop
    }

    /// The noise step alone, at an exact mean computed elsewhere (experiments and reproduction): the raw draw,
    /// **not float-safe** (conditioned, if at all, on the raw point); releases go through
    /// [`PrivateFrechetMean::release_mean`].
    pub fn privatize_mean<R: Rng + ?Sized>(&self, mean: &M::Point, rng: &mut R) -> M::Point {
        loop {
            let y = self.manifold.sample_laplace(&self.noise, mean, rng);
            if !self.conditioned || self.manifold.distance(&self.center, &y) <= self.radius {
                return y;
            }
        }
    }
}

/// The cheapest candidate over the tail `levels`, the earliest on ties (`Err("no tail level fits")` if none
/// fits): `build(level)` makes a level's candidate, whose `cost` includes `tail_cost(level)`. A level whose tail
/// cost alone is no less than the best cost so far is skipped without being built, since its candidate could
/// not be strictly cheaper: the same choice as building every level, at a fraction of the set-up.
/// ln 1/(1 − p), rounded up: what keeping an unconditioned release in a public ball costs when the noise puts
/// mass at most p beyond it (`docs/proofs/float_safety.md` §3i); 0 for p = 0.
fn keep_ball_tail_cost(tail: f64) -> f64 {
    if tail > 0.0 { crate::numerics::rounding::fn_up(-(-tail).ln_1p()) } else { 0.0 }
}

/// The relative-error release's keep-ball (`docs/proofs/float_safety.md` §3i). Unconditioned: at the cheapest
/// tail level p ∈ {10⁻¹⁰, …, 10⁻²}, `chart`(τ, p + 10⁻¹¹) with τ = 1.001 × the angle law's 1 − p quantile (its
/// CDF is accurate to ~10⁻¹², so the mass beyond τ is below p + 10⁻¹¹), costing ε₀ + ln 1/(1 − p − 10⁻¹¹).
/// Conditioned on the data ball (`conditioned`): the one chart `chart`(−1, 0) whose keep-ball is the data ball,
/// costing 2ε₀ like the absolute rounding it replaces (§3b). `None` where no chart fits (wide balls) or the
/// `absolute`-error rounding costs no more.
fn cheapest_relative_chart<P>(
    law: &dyn AngularLaw,
    conditioned: bool,
    chart: impl Fn(f64, f64) -> Result<BallChart<P>, &'static str>,
    absolute: Option<Rounding>,
) -> Fallible<Option<BallChart<P>>> {
    let cost = |c: &BallChart<P>| c.rounding.additive_epsilon() + c.tail_cost;
    if conditioned {
        return Ok(match (chart(-1.0, 0.0), absolute) {
            (Ok(c), Some(old)) if c.rounding.additive_epsilon() < old.additive_epsilon() => Some(c),
            (Ok(c), None) => Some(c),
            _ => None,
        });
    }
    let levels = [1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];
    let found = cheapest_over_levels(
        &levels,
        |level| keep_ball_tail_cost(level + 1e-11),
        cost,
        |level| {
            let tau = law.quantile(1.0 - level)? * 1.001;
            Ok(chart(tau, level + 1e-11))
        },
    )?;
    Ok(match (found, absolute) {
        (Ok(c), Some(old)) if cost(&c) < old.additive_epsilon() => Some(c),
        (Ok(c), None) => Some(c),
        _ => None,
    })
}

fn cheapest_over_levels<C>(
    levels: &[f64],
    tail_cost: impl Fn(f64) -> f64,
    cost: impl Fn(&C) -> f64,
    mut build: impl FnMut(f64) -> Fallible<Result<C, &'static str>>,
) -> Fallible<Result<C, &'static str>> {
    let mut best: Result<C, &'static str> = Err("no tail level fits");
    for &level in levels {
        if let Ok(b) = &best
            && tail_cost(level) >= cost(b)
        {
            continue;
        }
        best = match (best, build(level)?) {
            (Ok(b), Ok(c)) => Ok(if cost(&c) < cost(&b) { c } else { b }),
            (Err(_), c) => c,
            (b, Err(_)) => b,
        };
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    #[test]
    fn skipping_levels_whose_tail_alone_costs_too_much_keeps_the_exhaustive_choice() {
        use rand::RngExt;
        // Candidates (level index, cost = tail + a random additive part), some failing, against building
        // every level and keeping the first strictly cheaper one.
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(5);
        let levels = [1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];
        let mut skipped = 0;
        for _ in 0..20_000 {
            let scale = 10f64.powf(rng.random_range(-11.0..-1.0));
            let extra: Vec<Option<f64>> = levels
                .iter()
                .map(|_| rng.random_bool(0.8).then(|| scale * rng.random_range(0.0..2.0f64).floor()))
                .collect();
            let candidate = |i: usize| extra[i].map(|e| (i, levels[i] + e)).ok_or("does not fit");
            let mut exhaustive: Result<(usize, f64), &str> = Err("no tail level fits");
            for i in 0..levels.len() {
                exhaustive = match (exhaustive, candidate(i)) {
                    (Ok(b), Ok(c)) => Ok(if c.1 < b.1 { c } else { b }),
                    (Err(_), c) => c,
                    (b, Err(_)) => b,
                };
            }
            let mut built = 0;
            let pruned = cheapest_over_levels(
                &levels,
                |level| level,
                |c: &(usize, f64)| c.1,
                |level| {
                    built += 1;
                    Ok(candidate(levels.iter().position(|&l| l == level).unwrap()))
                },
            )
            .unwrap();
            assert_eq!(pruned, exhaustive);
            skipped += levels.len() - built;
        }
        // The pruning does skip levels (else this test would show nothing).
        assert!(skipped > 20_000, "{skipped}");
    }

    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    #[test]
    fn isometric_coordinates_round_trip() {
        let m = DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 3.0, 2.0, 4.0, 5.0, 3.0, 5.0, 6.0]);
        let v = sym_to_coords(&m);
        assert!((v.norm() - m.norm()).abs() < 1e-12);
        assert!((coords_to_sym(&v, 3) - m).amax() < 1e-12);
    }

    /// Plans (no data) for 10⁶ and 10⁷ rows, 10⁶ locations within 300 km and rotations within 20°, at ε from
    /// 0.01 to 5, are built, and at 10⁶ rows their rounding costs at most 1 % of ε at every ε: the
    /// relative-error release (`docs/proofs/float_safety.md` §3i). Control: the absolute-error rounding of the
    /// same plans (main's) costs more than 1 % at ε = 0.01.
    #[test]
    fn means_of_millions_of_rows_are_planned_at_every_epsilon() {
        let s2 = Sphere::new(3).unwrap();
        let paris = DVector::from_vec(vec![0.6580, 0.0270, 0.7525]).normalize();
        let km300 = 300.0 / 6371.0088;
        let deg20 = 20f64.to_radians();
        for n in [1_000_000usize, 10_000_000] {
            for eps in [0.01, 0.1, 1.0, 5.0] {
                let ll = PrivateFrechetMean::new(s2, paris.clone(), km300, n, eps, Conditioning::Auto).unwrap();
                let rot = PrivateFrechetMean::new(So3, UnitQuaternion::identity(), deg20, n, eps, Conditioning::Auto)
                    .unwrap();
                assert!(ll.ball_chart.is_some() && rot.ball_chart.is_some());
                for (name, cost, noise) in [
                    ("latlon", ll.rounding_cost(), ll.noise_epsilon()),
                    ("so3", rot.rounding_cost(), rot.noise_epsilon()),
                ] {
                    eprintln!("{name} n {n} eps {eps}: cost {cost:.3e} ({:.2} %)", 100.0 * cost / eps);
                    assert!(crate::numerics::rounding::add_up(noise, cost) <= eps);
                    if n == 1_000_000 {
                        assert!(cost <= 0.01 * eps, "{name} n {n} ε {eps}: {cost}");
                    }
                }
                // The circle (times of day within 2 h) keeps §4's turn chart: its cost, for the record.
                let circle = Sphere::new(2).unwrap();
                let noon = DVector::from_vec(vec![1.0, 0.0]);
                if let Ok(c) = PrivateFrechetMean::new(circle, noon, PI / 6.0, n, eps, Conditioning::Auto) {
                    eprintln!(
                        "circle n {n} eps {eps}: cost {:.3e} ({:.2} %)",
                        c.rounding_cost(),
                        100.0 * c.rounding_cost() / eps
                    );
                } else {
                    eprintln!("circle n {n} eps {eps}: refused");
                }
                if n == 1_000_000 && eps == 0.01 {
                    // The control: main's absolute-error grids at the same noise scales.
                    let old_ll = s2.rounding_in_ball(ll.sigma(), &paris, km300).unwrap().additive_epsilon();
                    let old_rot = So3.rounding_in_ball(rot.sigma(), &UnitQuaternion::identity(), deg20).unwrap();
                    assert!(old_ll > 0.03 * eps && old_rot.additive_epsilon() > 0.03 * eps, "{old_ll}");
                }
            }
        }
    }

    /// S^{n−1} means of 10⁶ rows within 20° (n = 4, 10) pay at most 1 % of ε for the rounding at every ε from
    /// 0.01 to 5 (§3i, "S^{n−1}, n ≥ 4"), as do the ball-conditioned S² (300 km) and SO(3) (20°) means; the
    /// costs up to n = 100 are printed. Control: §4's absolute grids at S³'s and S⁹'s noise scales cost more
    /// than 1 % at ε = 0.01.
    #[test]
    fn sphere_and_conditioned_means_of_a_million_rows_pay_at_most_one_percent() {
        let deg20 = 20f64.to_radians();
        let center = |n: usize| {
            let mut c = DVector::zeros(n);
            c[0] = 1.0;
            c
        };
        for eps in [0.01, 0.1, 1.0, 5.0] {
            for n in [4usize, 5, 10, 20, 50, 100] {
                let sphere = Sphere::new(n).unwrap();
                let m = PrivateFrechetMean::new(sphere, center(n), deg20, 1_000_000, eps, Conditioning::Auto);
                let Ok(m) = m else {
                    eprintln!("sphere:{n} eps {eps}: refused");
                    assert!(n > 10);
                    continue;
                };
                let share = 100.0 * m.rounding_cost() / eps;
                eprintln!("sphere:{n} eps {eps}: cost {:.3e} ({share:.2} %)", m.rounding_cost());
                if n <= 10 {
                    assert!(m.ball_chart.is_some() && share <= 1.0, "sphere:{n} ε {eps}: {share} %");
                }
                if n <= 10 && eps == 0.01 {
                    let old = sphere.rounding_in_ball(m.sigma(), &center(n), deg20).unwrap().additive_epsilon();
                    assert!(old > 0.01 * eps, "the control: sphere:{n} {old}");
                }
            }
            let paris = DVector::from_vec(vec![0.6580, 0.0270, 0.7525]).normalize();
            let s2 = Sphere::new(3).unwrap();
            let ll = PrivateFrechetMean::new(s2, paris, 300.0 / 6371.0088, 1_000_000, eps, Conditioning::Ball).unwrap();
            let rot =
                PrivateFrechetMean::new(So3, UnitQuaternion::identity(), deg20, 1_000_000, eps, Conditioning::Ball)
                    .unwrap();
            for (name, m_cost, chart) in [
                ("latlon, conditioned", ll.rounding_cost(), ll.ball_chart.is_some()),
                ("so3, conditioned", rot.rounding_cost(), rot.ball_chart.is_some()),
            ] {
                let share = 100.0 * m_cost / eps;
                eprintln!("{name} eps {eps}: cost {m_cost:.3e} ({share:.2} %)");
                assert!(chart && share <= 1.0, "{name} ε {eps}: {share} %");
            }
        }
    }

    /// The airports' case : 3376 locations at ε = 1000 within 2000 km of a public centre.
    #[test]
    fn a_few_thousand_locations_at_a_large_epsilon_are_planned() {
        let s2 = Sphere::new(3).unwrap();
        let center = DVector::from_vec(vec![0.0, 0.0, 1.0]);
        for radius_km in [500.0, 2000.0, 5000.0] {
            let m =
                PrivateFrechetMean::new(s2, center.clone(), radius_km / 6371.0088, 3376, 1000.0, Conditioning::Auto)
                    .unwrap();
            assert!(m.rounding_cost() <= 0.01 * 1000.0, "{radius_km} km: {}", m.rounding_cost());
        }
    }

    #[test]
    fn auto_conditioning_falls_back_to_the_ball_only_where_needed() {
        let spd = SpdAffine::new(2).unwrap();
        let small = PrivateFrechetMean::new(spd, DMatrix::identity(2, 2), 1.5, 100, 1.0, Conditioning::Auto).unwrap();
        assert!(!small.conditioned());
        // σ = Δ/ε′, ε′ = ε less the rounding cost (ask ε, pay ε).
        assert!((small.sigma() - 0.03 / small.noise_epsilon()).abs() < 1e-9);
        assert!(small.noise_epsilon() < 1.0 && small.noise_epsilon() + small.rounding_cost() <= 1.0);
        // n = 1: Δ = 3, σ = 3 is above SPD(2)'s threshold √2, so the ball is used with σ = 2Δ/ε′.
        let big = PrivateFrechetMean::new(spd, DMatrix::identity(2, 2), 1.5, 1, 1.0, Conditioning::Auto).unwrap();
        assert!(big.conditioned());
        assert!((big.sigma() - 6.0 / big.noise_epsilon()).abs() < 1e-9);
        assert!(
            PrivateFrechetMean::new(spd, DMatrix::identity(2, 2), 1.5, 1, 1.0, Conditioning::Unconditioned).is_err()
        );
        let mut rng = seeded_rng_for_experiments(1);
        for _ in 0..200 {
            let y = big.privatize_mean(&DMatrix::identity(2, 2), &mut rng);
            assert!(spd.distance(&DMatrix::identity(2, 2), &y) <= 1.5);
        }
    }

    #[test]
    fn hopeless_ball_conditioned_releases_are_refused_at_once() {
        let spd = SpdAffine::new(2).unwrap();
        let id = DMatrix::identity(2, 2);
        // n = 2, ε = 1: r = 20 used to reject ~10¹² draws per release, r = 50 more still.
        for radius in [10.0, 20.0, 50.0, 1e300] {
            let started = std::time::Instant::now();
            let err = PrivateFrechetMean::new(spd, id.clone(), radius, 2, 1.0, Conditioning::Ball).unwrap_err();
            // From r = 10 on, the mean itself cannot be certified (the proven error of the whitened logs'
            // eigendecomposition exceeds 10⁻³ relative at condition numbers e^{√2·2r}): refused before anything.
            let reasons: &[&str] = if radius < 1e3 {
                &["nothing useful", "cannot be certified"]
            } else {
                &["double precision cannot hold", "cannot be certified"]
            };
            assert!(matches!(err, Error::NumericalLimit(ref m) if reasons.iter().any(|r| m.contains(r))), "{err}");
            // Not a timing assertion on the release: a guard against the refusal itself looping.
            assert!(started.elapsed().as_secs() < 60);
        }
        // Ordinary parameters pass.
        assert!(PrivateFrechetMean::new(spd, id.clone(), 1.5, 1, 1.0, Conditioning::Ball).is_ok());
        assert!(PrivateFrechetMean::new(spd, id, 2.0, 2, 1.0, Conditioning::Ball).is_ok());
    }

    /// `docs/proofs/mean_outside_ball.md` §4: the release draws at the whitened mean moved onto the ball of
    /// radius R_P = r + Δ/2 (§3e of float_safety.md) and keeps a draw by its rounded point. At the edge of that
    /// ball the rate of kept draws must not fall below the public bound (Chernoff: if the rate is at least b,
    /// it is measured below b·(1 − √(2·ln 10⁸/(bN))) with probability at most 10⁻⁸). Negative control: the
    /// earlier bound, max e^{−2s/σ}·F(s) over s ≤ r (proven for footpoints within r, rounding left out),
    /// claims 1.06e-2 at r = 1, n = 1, ε = 20 where 4e-3 of the draws are kept.
    #[test]
    fn the_ball_acceptance_bound_holds_where_the_footpoint_may_lie() {
        let spd = SpdAffine::new(2).unwrap();
        let id = DMatrix::identity(2, 2);
        let draws = 200_000;
        let consistent =
            |rate: f64, claimed: f64| rate >= claimed * (1.0 - (2.0 * 1e8f64.ln() / (claimed * draws as f64)).sqrt());
        let mut rng = seeded_rng_for_experiments(5);
        for (radius, n, epsilon) in [(1.5, 1, 1.0), (1.0, 1, 20.0)] {
            let mech = PrivateFrechetMean::new(spd, id.clone(), radius, n, epsilon, Conditioning::Ball).unwrap();
            let chart = mech.ball_chart.as_ref().unwrap();
            let bound = spd.ball_acceptance_lower_bound(&mech.noise, radius, mech.sensitivity).unwrap();
            let e = (chart.footpoint_radius * FRAC_1_SQRT_2).exp();
            let eta = DMatrix::from_row_slice(2, 2, &[e, 0.0, 0.0, 1.0 / e]);
            assert!((spd.distance(&id, &eta) - chart.footpoint_radius).abs() < 1e-12);
            let kept = (0..draws)
                .filter(|_| spd.sample_in_chart(&mech.noise, &eta, chart, &mut rng).unwrap().is_some())
                .count();
            let rate = kept as f64 / draws as f64;
            assert!(consistent(rate, bound), "r = {radius}, ε = {epsilon}: rate {rate} below the bound {bound}");
            let (sigma, law) = (mech.sigma, mech.noise.radial_law());
            let earlier = (1..=8)
                .map(|j| radius * j as f64 / 8.0)
                .chain((0..60).map(|i| sigma * 2f64.powf(i as f64 / 2.0)).take_while(|&s| s <= radius))
                .map(|s| (-2.0 * s / sigma).exp() * law.cdf(s))
                .fold(0.0, f64::max);
            if epsilon == 20.0 {
                assert!(!consistent(rate, earlier), "control: rate {rate}, earlier bound {earlier}");
            }
        }
    }

    /// Conditioned on the ball, a draw is kept when its rounded point is in the ball: a raw draw just inside
    /// whose cell's representative is outside is dropped (the previous rule, deciding on the raw draw, kept
    /// it and released a point outside the ball: the negative control), and every release lies in the ball
    /// and on the grid.
    #[test]
    fn the_ball_is_checked_on_the_rounded_release() {
        let s2 = Sphere::new(3).unwrap();
        let north = DVector::from_column_slice(&[0.0, 0.0, 1.0]);
        let radius = 0.3;
        let mech = PrivateFrechetMean::new(s2, north.clone(), radius, 2, 1.0, Conditioning::Ball).unwrap();
        let rounding = s2.rounding(mech.sigma()).unwrap();
        let h = 2f64.powi(rounding.grid().spacing_log2);
        let at = |angle: f64, azimuth: f64| {
            DVector::from_column_slice(&[angle.sin() * azimuth.cos(), angle.sin() * azimuth.sin(), angle.cos()])
        };
        // Raw draws just inside the boundary, around the whole circle. The old rule kept every one of them
        // (the raw draw is inside) and released its rounded point.
        let mut released_outside_by_old_rule = 0;
        for i in 0..20_000 {
            let raw = at(radius - h * ((i % 7) as f64 + 0.5) / 8.0, i as f64 * 0.000_37);
            if s2.distance(&north, &raw) > radius {
                continue; // not inside once computed
            }
            let mut y = raw.clone();
            s2.snap_point(&rounding, &mut y);
            if mech.keeps(&y) {
                assert!(s2.distance(&north, &y) <= radius);
            }
            let mut old = raw;
            s2.snap_point(&rounding, &mut old);
            if s2.distance(&north, &old) > radius {
                released_outside_by_old_rule += 1;
            }
        }
        assert!(released_outside_by_old_rule > 1000, "control: only {released_outside_by_old_rule} boundary cells");
        // Releases at a mean on the boundary: inside the ball and on the grid, bit for bit.
        let mut rng = seeded_rng_for_experiments(12);
        let edge = at(radius, 1.0);
        for _ in 0..20_000 {
            let y = mech.release_mean(&edge, &mut rng).unwrap();
            assert!(s2.distance(&north, &y) <= radius);
            let mut again = y.clone();
            s2.snap_point(&rounding, &mut again);
            assert_eq!(again, y);
        }
        // The guarantee counts the rounding's ε₀ twice, conditioned (the relative-error chart's where it is
        // cheaper, float_safety.md §3i).
        let eps0 = mech.rounding().unwrap().additive_epsilon();
        assert!(eps0 > 0.0 && mech.rounding_cost() == 2.0 * eps0);
        let unconditioned = PrivateFrechetMean::new(s2, north, radius, 2, 1.0, Conditioning::Unconditioned).unwrap();
        let eps0_unconditioned = s2.rounding(unconditioned.sigma()).unwrap().additive_epsilon();
        assert_eq!(unconditioned.rounding_cost(), eps0_unconditioned);
    }

    #[test]
    fn release_refuses_points_outside_the_ball_and_wrong_sizes() {
        let s2 = Sphere::new(3).unwrap();
        let north = DVector::from_column_slice(&[0.0, 0.0, 1.0]);
        let mech = PrivateFrechetMean::new(s2, north.clone(), 0.3, 2, 1.0, Conditioning::Auto).unwrap();
        let near = DVector::from_column_slice(&[0.1f64.sin(), 0.0, 0.1f64.cos()]);
        let far = DVector::from_column_slice(&[0.5f64.sin(), 0.0, 0.5f64.cos()]);
        let mut rng = seeded_rng_for_experiments(2);
        assert!(mech.release(&[near.clone(), near.clone()], &mut rng).is_ok());
        assert!(matches!(mech.release(&[near.clone(), far], &mut rng), Err(Error::OutsideBall { index: 1, .. })));
        assert!(matches!(mech.release(&[near], &mut rng), Err(Error::WrongLength { expected: 2, got: 1 })));
        assert!(PrivateFrechetMean::new(s2, north, 1.0, 2, 1.0, Conditioning::Auto).is_err());
    }
}

/// (K) as the code runs it on SPD(2) with an ill-conditioned centre (`docs/proofs/frechet_mean_sensitivity.md`,
/// `docs/proofs/float_safety.md` §3e), against double-double references.
#[cfg(test)]
mod certified_tests {
    use super::*;
    use crate::manifold::float_error::reference;

    /// cond(m0) = 10⁸, rotated so nothing is diagonal.
    fn centre() -> DMatrix<f64> {
        let (c, s) = (0.3f64.cos(), 0.3f64.sin());
        let rot = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
        let m0 = &rot * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1.0, 1e-8])) * rot.transpose();
        (&m0 + m0.transpose()) * 0.5
    }

    /// A row whose computed distance from the centre is ≤ r (so `check_ball` accepts it) while its exact
    /// distance exceeds r by more than 10⁻¹⁰: the sensitivity covers it (Δ at r′ = r + e_ρ ≥ its exact
    /// distance). Before, Δ = 2r/n + 2·10⁻¹² did not.
    #[test]
    fn the_sensitivity_covers_rows_accepted_by_computed_distance() {
        let spd = SpdAffine::new(2).unwrap();
        let m0 = centre();
        let root = crate::space::spd::sqrt_and_inv_sqrt(&m0).0;
        let found = (0..2000).find_map(|i| {
            let a = i as f64;
            let s = DMatrix::from_row_slice(2, 2, &[a.sin(), a.cos() * 0.7, a.cos() * 0.7, (2.0 * a).sin()]);
            let x = crate::space::spd::congruence(&root, &crate::space::spd::expm(&(&s * (1.5 / s.norm()))));
            let computed = spd.distance(&m0, &x);
            let exact = reference::distance(reference::sym(&m0), reference::sym(&x));
            // Beyond r by more than the old tolerance term 2·10⁻¹²·n/2 could absorb.
            (exact > computed + 1e-10).then_some((x, computed, exact))
        });
        let (x, r, exact) = found.expect("a row whose computed distance is below its exact one");
        assert!(check_ball(&spd, std::slice::from_ref(&x), &m0, r).is_ok());
        let n = 10;
        let mech = PrivateFrechetMean::new(spd, m0.clone(), r, n, 1.0, Conditioning::Ball).unwrap();
        assert!(mech.stop().radius() >= exact, "r′ = {} < {exact}", mech.stop().radius());
        assert!(mech.sensitivity() >= 2.0 * exact / n as f64, "{} < {}", mech.sensitivity(), 2.0 * exact / n as f64);
    }

    /// The chart's footpoint fl(W·P·Wᵀ) against W·P·Wᵀ in double-double: its measured error is within the
    /// whitening part of e_F, is far from negligible at cond(m0) = 10⁸, and the guarantee pays 2e_F/σ per
    /// footpoint ratio (twice conditioned on the ball). Before, the rounding cost was 2ε₀ alone.
    #[test]
    fn the_whitening_error_is_bounded_and_paid_for() {
        let spd = SpdAffine::new(2).unwrap();
        let m0 = centre();
        let root = crate::space::spd::sqrt_and_inv_sqrt(&m0).0;
        let (r, n) = (1.0, 1000);
        let mech = PrivateFrechetMean::new(spd, m0.clone(), r, n, 1.0, Conditioning::Ball).unwrap();
        let chart = mech.ball_chart.as_ref().unwrap();
        let cond = crate::manifold::float_error::spd_condition_bound(&m0);
        let bound = spd_footpoint_error(2, cond, chart.footpoint_radius);
        let mut worst: f64 = 0.0;
        for i in 0..500 {
            let a = i as f64;
            let s = DMatrix::from_row_slice(2, 2, &[a.cos(), a.sin() * 0.5, a.sin() * 0.5, (3.0 * a).cos()]);
            let p = crate::space::spd::congruence(
                &root,
                &crate::space::spd::expm(&(&s * (r * (a * 0.37).sin().abs() / s.norm()))),
            );
            let computed = congruence_by(&chart.whiten, &p);
            let exact = reference::congruence(&chart.whiten, &p);
            worst = worst.max(reference::distance(reference::sym(&computed), exact));
        }
        assert!(worst <= bound, "{worst:e} > {bound:e}");
        assert!(worst > 1e-11, "{worst:e}");
        let per_cell = mech.rounding().unwrap().additive_epsilon();
        let paid = mech.rounding_cost() - 2.0 * per_cell;
        assert!(paid >= 4.0 * worst / mech.sigma(), "{paid:e} < {:e}", 4.0 * worst / mech.sigma());
        // Above a condition number of ~10¹¹ the whitening cannot be bounded: refused.
        let bad = &root * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1.0, 1e-7])) * &root;
        let bad = (&bad + bad.transpose()) * 0.5;
        assert!(spd_footpoint_error(2, crate::manifold::float_error::spd_condition_bound(&bad), 1.5).is_infinite());
    }

    /// The exact projection of the SPD(2) matrix a (double-double) onto the ball of radius `radius` around I:
    /// a itself inside, else a^t with t = radius/ρ(I, a) (same eigenvectors, eigenvalues λ^t), formed in f64
    /// from the double-double eigenvalues and eigenvector angle (a few ulps times cond of the result, ≲ 1e-14
    /// here). Returns it and ρ(I, a).
    fn reference_projection(a: reference::Sym, radius: f64) -> (DMatrix<f64>, f64) {
        use reference::Dd;
        let d = reference::distance(reference::sym(&DMatrix::identity(2, 2)), a);
        let as_f64 = |m: &reference::Sym| DMatrix::from_row_slice(2, 2, &[m[0].0, m[1].0, m[1].0, m[2].0]);
        if d <= radius {
            return (as_f64(&a), d);
        }
        let trace = a[0].add(a[2]);
        let det = a[0].mul(a[2]).sub(a[1].mul(a[1]));
        let disc = trace.mul(trace).sub(Dd::from(4.0).mul(det));
        let disc = if disc.0 < 0.0 { Dd::from(0.0) } else { disc.sqrt() };
        let big = trace.add(disc).div(Dd::from(2.0));
        let small = det.div(big);
        let t = radius / d;
        let (l1, l2) = ((t * big.ln()).exp(), (t * small.ln()).exp());
        let diff = a[0].sub(a[2]);
        let angle = 0.5 * (2.0 * (a[1].0 + a[1].1)).atan2(diff.0 + diff.1);
        let (s, c) = angle.sin_cos();
        let off = (l1 - l2) * c * s;
        (DMatrix::from_row_slice(2, 2, &[l1 * c * c + l2 * s * s, off, off, l1 * s * s + l2 * c * c]), d)
    }

    /// The single-point Laplace's footpoints (`docs/proofs/float_safety.md` §3e, "Inputs far outside the
    /// ball"), against double-double references, at the centre I and at an ill-conditioned centre:
    /// - inputs whose exact whitening lies within R_P + 1 of I (the public ball and the band beyond it that is
    ///   moved onto the ball): the computed footpoint is within e_F of the exact projection (the bound the
    ///   guarantee's ε₀ pays);
    /// - every input, however far and ill-conditioned (eigenvalue ratios up to 1e300, scales 1e±150): the
    ///   footpoint's Cholesky factor exists, the footpoint lies within R_P + e_F of I, and releases are drawn
    ///   without a panic and lie in the kept ball, so any two inputs lose at most ε·2(R_P + e_F) + ε₀;
    /// - far ill-conditioned inputs are moved onto the ball with an error far above e_F (measured; the reason
    ///   the printed ε per unit of ρ binds only the inputs the first point covers), and some have a whitening
    ///   whose logarithm is not finite, which the code used unmoved before the centre stood in (a NaN norm is
    ///   not above R_P; the control).
    #[test]
    fn single_point_footpoints_are_bounded_near_the_ball_and_within_it_for_every_input() {
        let spd = SpdAffine::new(2).unwrap();
        let rot = |phi: f64, a: f64, b: f64| {
            let (c, s) = (phi.cos(), phi.sin());
            let r = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
            let m = &r * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![a, b])) * r.transpose();
            (&m + m.transpose()) * 0.5
        };
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(37);
        let mut not_finite_before = 0;
        for m0 in [DMatrix::identity(2, 2), centre()] {
            let mech = RiemannianLaplace::in_ball(spd, 0.1, &m0, 1.0).unwrap();
            let chart = mech.ball_chart.as_ref().unwrap();
            let rp = chart.footpoint_radius;
            let e_f = spd_footpoint_error(2, crate::manifold::float_error::spd_condition_bound(&m0), rp);
            let unwhiten_exactly = |s: &DMatrix<f64>| {
                let w_inv = chart.whiten.clone().try_inverse().unwrap();
                symmetric_of(&(&w_inv * s * w_inv.transpose()))
            };
            // Near: whitened log coordinates of norm up to R_P + 1 (less the centre's own offset).
            let (mut near_worst, mut near_count) = (0.0f64, 0);
            for i in 0..400 {
                let a = i as f64;
                let s = DMatrix::from_row_slice(2, 2, &[a.cos(), a.sin() * 0.7, a.sin() * 0.7, (2.3 * a).cos()]);
                let len = (rp + 0.99) * ((a * 0.61).sin().abs());
                let x = unwhiten_exactly(&expm(&(&s * (len / s.norm()))));
                let (exact, d) = reference_projection(reference::congruence(&chart.whiten, &x), rp);
                if d > rp + 1.0 {
                    continue;
                }
                let p = whitened_footpoint(chart, &x);
                near_worst = near_worst.max(reference::distance(reference::sym(&p), reference::sym(&exact)));
                near_count += 1;
            }
            assert!(near_count > 300 && near_worst <= e_f, "{near_worst:e} > e_F = {e_f:e} ({near_count})");
            // Far: every input's footpoint is in the ball; the projection's error is unbounded.
            let (mut far_worst, mut inside_worst) = (0.0f64, 0.0f64);
            for j in 0..300 {
                let b = j as f64;
                let t = [3.0, 10.0, 20.0, 25.0, 40.0, 100.0, 345.0][j % 7] * (0.5 + 0.5 * (b * 0.37).sin().abs());
                let scale = 10f64.powi([0, 150, -150, 7, -7][j % 5]);
                let x = rot(b * 0.113, scale * t.exp(), scale * (-t).exp());
                let p = whitened_footpoint(chart, &x);
                assert!(p.clone().cholesky().is_some(), "{x}");
                let from_centre = reference::distance(reference::sym(&DMatrix::identity(2, 2)), reference::sym(&p));
                inside_worst = inside_worst.max(from_centre - rp);
                assert!(from_centre <= rp + e_f, "{x}: {from_centre} > {rp} + {e_f:e}");
                if !logm(&congruence_by(&chart.whiten, &x)).norm().is_finite() {
                    not_finite_before += 1;
                }
                if t <= 25.0 && scale == 1.0 {
                    // Within the double-double reference's reach (cond(W·x·Wᵀ) ≤ e^{50}·cond(W)²).
                    let (exact, _) = reference_projection(reference::congruence(&chart.whiten, &x), rp);
                    far_worst = far_worst.max(reference::distance(reference::sym(&p), reference::sym(&exact)));
                }
                if j % 10 == 0 {
                    let y = mech.privatize(&x, &mut rng);
                    assert!(spd.distance(&m0, &y) <= chart.ball + 1e-9, "{x}: {y}");
                }
            }
            eprintln!(
                "centre cond {:.1e}: R_P = {rp}, e_F = {e_f:.2e}; near (≤ R_P + 1): worst {near_worst:.2e} over \
                 {near_count}; far: beyond R_P by {inside_worst:.2e} at most, projection error up to {far_worst:.2e}",
                crate::manifold::float_error::spd_condition_bound(&m0)
            );
            assert!(far_worst > 100.0 * e_f, "far inputs' projection error {far_worst:e} vs e_F {e_f:e}");
        }
        assert!(not_finite_before > 0, "control: no input lost positive definiteness in its whitening");
    }

    fn symmetric_of(m: &DMatrix<f64>) -> DMatrix<f64> {
        (m + m.transpose()) * 0.5
    }
}

/// Float safety of the log-Euclidean releases (`docs/proofs/float_safety.md` §3d).
#[cfg(test)]
mod log_domain_tests {
    use super::*;
    use crate::privacy::Chart;
    use crate::sample::rng::seeded_rng_for_experiments;
    use rand_distr::StandardNormal;

    fn spd(a: f64, b: f64, c: f64) -> DMatrix<f64> {
        DMatrix::from_row_slice(2, 2, &[a, b, b, c])
    }

    /// Whether z is exp of a point of the log-domain grid, found from z alone: its log coordinates, rounded
    /// (they must lie within a quarter cell of a grid point), map back to z bit for bit.
    fn on_grid(le: &SpdLogEuclidean, rounding: &Rounding, z: &DMatrix<f64>) -> bool {
        let c = le.log_coordinates(z);
        let grid = rounding.grid();
        let k = c.map(|v| crate::space::grid::round_to_grid(v, grid.spacing_log2));
        (&k - &c).amax() < grid.spacing() / 4.0 && expm(&coords_to_sym(&k, le.k())) == *z
    }

    /// The isometric log coordinates of a 2×2 SPD matrix [[a, b], [b, d]] to a few ulps, however ill-conditioned:
    /// the small eigenvalue as det/λ_max with the determinant from exact products (fma), the eigenvectors from
    /// the angle ½·atan2(2b, a − d), well conditioned because the gap is ≈ λ_max.
    fn reference_log_coordinates(p: &DMatrix<f64>) -> [f64; 3] {
        let (a, b, d) = (p[(0, 0)], p[(0, 1)], p[(1, 1)]);
        let big = 0.5 * (a + d) + (0.5 * (a - d)).hypot(b);
        let (ad, bb) = (a * d, b * b);
        let det = (ad - bb) + (a.mul_add(d, -ad) - b.mul_add(b, -bb));
        let (l1, l2) = (big.ln(), (det / big).ln());
        let (s, c) = (0.5 * (2.0 * b).atan2(a - d)).sin_cos();
        [l1 * c * c + l2 * s * s, (l1 - l2) * c * s * std::f64::consts::SQRT_2, l1 * s * s + l2 * c * c]
    }

    /// The log-Euclidean Laplace's guarantee is per unit of the computed log coordinates ĉ (§3d), and says so:
    /// for inputs of condition number 1e12, accepted by the input checks, ĉ misses the exact log coordinates
    /// by far more than ε₀/(2ε), so a label in the exact metric ‖log P − log Q‖_F would leave out a loss
    /// ε·(e(P) + e(P′)) larger than the ε₀ it states. Fails on the old label (`spd_log_euclidean`).
    #[test]
    fn the_log_euclidean_guarantee_is_per_unit_of_the_computed_log_coordinates() {
        let le = SpdLogEuclidean::new(2).unwrap();
        let sigma = 0.5;
        let mech = RiemannianLaplace::new(le, sigma).unwrap();
        let g = mech.guarantee();
        let json = serde_json::to_value(g).unwrap();
        assert_eq!(json["metric"], "spd_computed_log_coordinates", "{json}");
        assert!(g.to_string().contains("computed log coordinates"), "{g}");
        // The reference is exact to a few ulps: on well-conditioned matrices ĉ agrees with it to 1e-14.
        let worst = |cond: f64| {
            (0..400)
                .map(|i| {
                    let (s, c) = (0.0137 * i as f64).sin_cos();
                    let p = spd(c * c + s * s / cond, c * s * (1.0 - 1.0 / cond), s * s + c * c / cond);
                    crate::space::spd::check_positive_definite(&p).unwrap();
                    let r = reference_log_coordinates(&p);
                    let e = le.log_coordinates(&p);
                    ((e[0] - r[0]).powi(2) + (e[1] - r[1]).powi(2) + (e[2] - r[2]).powi(2)).sqrt()
                })
                .fold(0.0, f64::max)
        };
        assert!(worst(4.0) < 1e-14, "{}", worst(4.0));
        // Just inside the input checks' limit (smallest eigenvalue above 1e-12 times the largest).
        let cond = 0.999e12;
        let e = worst(cond);
        let (epsilon, eps0) = (1.0 / sigma, g.additive_epsilon());
        println!("cond {cond:e}: e(P) up to {e:.3e}; 2ε·e = {:.3e} against ε₀ = {eps0:.3e}", 2.0 * epsilon * e);
        assert!(2.0 * epsilon * e > eps0, "e = {e:e}, ε₀ = {eps0:e}");
        // Within (E)'s bound δ/(1 − δ) + assembly, δ = c_E·u·√k·cond (float_safety.md §3d).
        let u = f64::EPSILON / 2.0;
        let delta = crate::numerics::EIGEN_BACKWARD_ERROR * u * 2f64.sqrt() * cond;
        let assembly = u * (2.0 * 64.0 + 12.0) * 2f64.sqrt() * (cond.ln() + 1.0);
        assert!(e <= delta / (1.0 - delta) + assembly, "{e:e}");
    }

    #[test]
    fn log_euclidean_releases_are_exp_of_grid_points() {
        let le = SpdLogEuclidean::new(2).unwrap();
        let mech = RiemannianLaplace::new(le, 0.5).unwrap();
        let g = mech.guarantee();
        assert_eq!(g.grid().unwrap().chart, Chart::LogDomain);
        assert!(g.additive_epsilon() > 0.0 && g.additive_epsilon() < 1e-4, "{}", g.additive_epsilon());
        let rounding = le.rounding(0.5).unwrap();
        let mut rng = seeded_rng_for_experiments(41);
        let xs = [spd(2.0, 0.3, 1.0), spd(1e-3, 0.0, 5e2), spd(1.0, 0.999, 1.0)];
        for i in 0..3000 {
            let z = mech.privatize(&xs[i % 3], &mut rng);
            assert!(on_grid(&le, &rounding, &z), "release {i} of {} is not on the grid", xs[i % 3]);
            let mut again = z.clone();
            mech.snap(&mut again);
            assert_eq!(again, z);
        }
        // Negative control: raw releases are not.
        let raw = (0..300).filter(|&i| on_grid(&le, &rounding, &mech.privatize_unprotected(&xs[i % 3], &mut rng)));
        assert_eq!(raw.count(), 0);
    }

    #[test]
    fn the_private_log_euclidean_mean_is_rounded_on_a_grid_sized_by_its_ball() {
        let le = SpdLogEuclidean::new(2).unwrap();
        let center = spd(4.0, 1.0, 2.0);
        for conditioning in [Conditioning::Unconditioned, Conditioning::Ball] {
            let mech = PrivateFrechetMean::new(le, center.clone(), 1.0, 50, 1.0, conditioning).unwrap();
            let rounding = mech.rounding().unwrap();
            // The ball bounds the footpoint's log coordinates, so the clamp is far smaller than for any input.
            assert!(rounding.clamp() <= 16.0, "{}", rounding.clamp());
            assert!(rounding.clamp() < le.rounding(mech.sigma()).unwrap().clamp());
            // 1.25e-5 since the noise's own relative error is paid at the clamp (float_safety.md §3f, Lemma N).
            let per_cell = rounding.additive_epsilon();
            assert!(per_cell > 0.0 && per_cell < 2e-5, "{per_cell}");
            let factor = if mech.conditioned() { 2.0 } else { 1.0 };
            assert_eq!(mech.rounding_cost(), factor * per_cell);
            let mut rng = seeded_rng_for_experiments(42);
            let data = vec![spd(3.0, 0.5, 2.5); 50];
            for _ in 0..300 {
                let z = mech.release(&data, &mut rng).unwrap();
                assert!(on_grid(&le, &rounding, &z));
            }
        }
    }

    #[test]
    fn log_domain_coordinates_stay_within_the_proven_error() {
        // §3d: |fl(ĉ + fl(t·w)) − (ĉ + t·w)| ≤ (2B + C + 8)·2^-53 wherever |ĉ + t·w| ≤ B, recovered exactly with
        // fma and two-sum, at footpoints with coordinates up to C and noise draws of every size.
        let le = SpdLogEuclidean::new(2).unwrap();
        let sigma = 3.0;
        let c_bound = any_log_coordinate_bound(2);
        let rounding = le.rounding(sigma).unwrap();
        let b = rounding.clamp();
        let eta = (2.0 * b + c_bound + 8.0) * (f64::EPSILON / 2.0);
        let noise = le.laplace_noise(sigma, None).unwrap();
        let mut rng = seeded_rng_for_experiments(43);
        let mut worst: f64 = 0.0;
        for i in 0..100_000u64 {
            let c = [700.0 * ((i % 13) as f64 / 6.0 - 1.0), -((i % 5) as f64) * 0.37, 1.0 / (1 + i % 3) as f64];
            let t = noise.sample_radius(&mut rng) * (1.0 + (i % 400) as f64);
            let g: [f64; 3] = [StandardNormal.sample(&mut rng), StandardNormal.sample(&mut rng), 0.5];
            let n = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
            for j in 0..3 {
                let w = g[j] / n;
                let hi = w * t;
                let lo = w.mul_add(t, -hi);
                let s = c[j] + hi;
                let bb = s - c[j];
                let err = (c[j] - (s - bb)) + (hi - bb) + lo;
                if s.abs() <= b {
                    worst = worst.max(err.abs());
                    assert!(err.abs() <= eta, "error {err:e} beyond the bound {eta:e}");
                }
            }
        }
        assert!(worst > eta / 64.0, "the draws never came near the bound ({worst:e} vs {eta:e})");
    }
}

/// Float safety of the affine-invariant SPD mean (`docs/proofs/float_safety.md` §3e).
#[cfg(test)]
mod affine_chart_tests {
    use super::*;
    use crate::audit::gof::ks_test;
    use crate::privacy::Chart;
    use crate::sample::rng::seeded_rng_for_experiments;
    use crate::space::grid::round_to_grid;

    fn symmetric(m: DMatrix<f64>) -> DMatrix<f64> {
        (&m + m.transpose()) * 0.5
    }

    /// A public centre that is not the identity, so that whitening matters.
    fn center(k: usize) -> DMatrix<f64> {
        if k == 2 {
            DMatrix::from_row_slice(2, 2, &[2.0, 0.5, 0.5, 1.0])
        } else {
            DMatrix::from_row_slice(3, 3, &[2.0, 0.5, 0.1, 0.5, 1.0, -0.2, 0.1, -0.2, 0.7])
        }
    }

    /// The point at whitened log coordinates `s` (in the chart at the centre).
    fn at(chart: &BallChart<DMatrix<f64>>, s: &DMatrix<f64>) -> DMatrix<f64> {
        symmetric(&chart.unwhiten * expm(s) * chart.unwhiten.transpose())
    }

    /// Whether y is the point of a grid cell, found from y alone: whiten it, take its logarithm (from y itself,
    /// not from the draw's factor), round the coordinates (within a quarter cell of a grid
    /// point) and map the cell's point back, bit for bit.
    fn on_grid(chart: &BallChart<DMatrix<f64>>, k: usize, y: &DMatrix<f64>) -> bool {
        let x = symmetric(&chart.whiten * y * chart.whiten.transpose());
        let c = sym_to_coords(&logm(&x));
        let grid = chart.rounding.grid();
        let rep = c.map(|v| round_to_grid(v, grid.spacing_log2));
        (&rep - &c).amax() < grid.spacing() / 4.0 && at(chart, &coords_to_sym(&rep, k)) == *y
    }

    #[test]
    fn releases_lie_on_the_grid_of_the_log_chart_at_the_centre() {
        for k in [2, 3] {
            let spd = SpdAffine::new(k).unwrap();
            for conditioning in [Conditioning::Unconditioned, Conditioning::Ball] {
                let mech = PrivateFrechetMean::new(spd, center(k), 1.5, 200, 1.0, conditioning).unwrap();
                let chart = mech.ball_chart.as_ref().unwrap();
                assert_eq!(chart.rounding.grid().chart, Chart::SpdLogAtCenter);
                // Footpoints at the centre and near the edge of the data ball.
                let mut edge = DMatrix::zeros(k, k);
                (edge[(0, 0)], edge[(1, 1)]) = (1.0, -0.95);
                let mut rng = seeded_rng_for_experiments(50 + k as u64);
                for footpoint in [center(k), at(chart, &edge)] {
                    for _ in 0..1000 {
                        let y = mech.release_mean(&footpoint, &mut rng).unwrap();
                        assert!(on_grid(chart, k, &y), "k = {k}, {conditioning:?}: {y} is not on the grid");
                        assert!(spd.distance(&center(k), &y) <= chart.ball + 1e-9);
                    }
                    // Negative control: raw draws are not on the grid.
                    let raw =
                        (0..200).filter(|_| on_grid(chart, k, &spd.sample_laplace(&mech.noise, &footpoint, &mut rng)));
                    assert_eq!(raw.count(), 0);
                }
            }
        }
    }

    #[test]
    fn the_guarantee_counts_the_rounding_and_wide_balls_are_refused() {
        let spd = SpdAffine::new(2).unwrap();
        let free = PrivateFrechetMean::new(spd, center(2), 1.5, 200, 1.0, Conditioning::Unconditioned).unwrap();
        let chart = free.ball_chart.as_ref().unwrap();
        let eps0 = chart.rounding.additive_epsilon();
        // The tail level is chosen from 1e-10 … 1e-2 to make ε₀ + ln 1/(1 − tail) smallest.
        assert!(chart.tail_cost > 0.0 && chart.tail_cost < 0.0102, "{}", chart.tail_cost);
        let add_up = crate::numerics::rounding::add_up;
        assert_eq!(free.rounding_cost(), add_up(add_up(eps0, chart.tail_cost), chart.footpoint_cost));
        // At a well-conditioned centre the whitening's share is tiny.
        assert!(chart.footpoint_cost > 0.0 && chart.footpoint_cost < 1e-9, "{}", chart.footpoint_cost);
        assert!(free.rounding_cost() < 1e-3, "{}", free.rounding_cost());
        let ball = PrivateFrechetMean::new(spd, center(2), 1.5, 200, 1.0, Conditioning::Ball).unwrap();
        let eps0 = ball.ball_chart.as_ref().unwrap().rounding.additive_epsilon();
        let footpoint = ball.ball_chart.as_ref().unwrap().footpoint_cost;
        assert_eq!(ball.rounding_cost(), add_up(2.0 * eps0, 2.0 * footpoint));
        // Ask ε, pay ε: the guarantee is the ε asked, the noise calibrated at ε′ with ε′ + cost ≤ ε.
        // ε as asked, up to the sampler's negligible δ (float_safety.md §6): δ_P·(1 + e^ε) on the polynomial
        // scheme.
        let g = ball.guarantee();
        assert_eq!(g.epsilon(), Some(1.0));
        assert!(g.delta() >= 1e-50 * (1.0 + 1f64.exp()) && g.delta() < 1e-49, "{g:?}");
        assert!(add_up(ball.noise_epsilon(), ball.rounding_cost()) <= 1.0);
        assert!(ball.noise_epsilon() >= 1.0 - 2.0 * ball.rounding_cost(), "{}", ball.noise_epsilon());
        // Auto keeps the unconditioned draw where its rounding is cheap, and takes the ball where it is not
        // (n = 20, r = 3: the unconditioned law reaches far beyond the data ball).
        assert!(!PrivateFrechetMean::new(spd, center(2), 1.5, 200, 1.0, Conditioning::Auto).unwrap().conditioned());
        let wide = PrivateFrechetMean::new(spd, center(2), 3.0, 20, 1.0, Conditioning::Auto).unwrap();
        assert!(wide.conditioned() && wide.rounding_cost() < 1e-3, "{}", wide.rounding_cost());
        // A ball so wide that f64 cannot round finely: refused, saying why (whichever bound fails first).
        let err = PrivateFrechetMean::new(spd, center(2), 8.0, 200, 1.0, Conditioning::Auto).unwrap_err();
        assert!(matches!(err, Error::NumericalLimit(ref m) if m.contains("double precision")), "{err}");
    }

    /// The single-point Laplace on SPD with the affine-invariant metric is float-safe only in a public ball: `new`
    /// refuses, `in_ball` rounds in the log chart at the centre, and inputs far outside are moved onto the
    /// ball, their releases on the grid and in the kept ball like every other.
    #[test]
    fn the_single_point_laplace_needs_a_ball_and_rounds_in_it() {
        let spd = SpdAffine::new(2).unwrap();
        assert!(matches!(RiemannianLaplace::new(spd, 0.1), Err(Error::NotApplicable(_))));
        let m = RiemannianLaplace::in_ball(spd, 0.1, &center(2), 2.0).unwrap();
        let g = m.guarantee();
        assert_eq!(g.grid().unwrap().chart, Chart::SpdLogAtCenter);
        assert!(g.additive_epsilon() > 0.0 && g.additive_epsilon() < 0.02, "{}", g.additive_epsilon());
        let chart = m.ball_chart.as_ref().unwrap();
        let far = DMatrix::from_row_slice(2, 2, &[1e6, 0.0, 0.0, 1e-6]);
        let mut rng = seeded_rng_for_experiments(80);
        for x in [center(2), DMatrix::identity(2, 2), far] {
            for _ in 0..300 {
                let y = m.privatize(&x, &mut rng);
                assert!(on_grid(chart, 2, &y) && spd.distance(&center(2), &y) <= chart.ball + 1e-9, "{x}: {y}");
            }
        }
    }

    /// The distance between a release and its footpoint follows the Laplace law's radial law (KS, DKW critical
    /// value, false failure ≤ 1e-8), through the whole float-safe pipeline; a law 10 % wider is rejected.
    #[test]
    fn released_distances_follow_the_radial_law() {
        let spd = SpdAffine::new(2).unwrap();
        let mech = PrivateFrechetMean::new(spd, center(2), 1.5, 200, 1.0, Conditioning::Unconditioned).unwrap();
        let footpoint = DMatrix::from_row_slice(2, 2, &[1.5, 0.2, 0.2, 1.2]);
        // The release has the law conditioned on a public ball that holds all but `tail` of it (total variation
        // ≤ tail from the unconditioned law): below 1e-5, it moves the DKW false-failure bound by a factor
        // e^{4N·c·tail} < 1.01.
        let tail = mech.ball_chart.as_ref().unwrap().tail_cost;
        assert!(tail < 1e-5, "{tail}");
        let mut rng = seeded_rng_for_experiments(60);
        let ts: Vec<f64> =
            (0..20_000).map(|_| spd.distance(&footpoint, &mech.release_mean(&footpoint, &mut rng).unwrap())).collect();
        let law = mech.noise.radial_law();
        let out = ks_test(&mut ts.clone(), |s| law.cdf_sorted(s), 1e-8);
        assert!(out.passed(), "KS {} > {}", out.statistic, out.critical);
        let wider = SpdLaplaceNoise::new(2, 1.1 * mech.sigma(), None).unwrap();
        assert!(!ks_test(&mut ts.clone(), |s| wider.radial_law().cdf_sorted(s), 1e-8).passed());
    }

    /// Assumption (E): nalgebra's symmetric eigensolver is backward stable with constant c_E = 64 on the
    /// matrices releases build, Y = BBᵀ with B a lower-triangular factor of condition up to e^{10} times
    /// U·diag(e^{r/2}), |r| up to 20: ‖Y − VΛVᵀ‖_F ≤ c_E·u·‖Y‖_F and ‖VᵀV − I‖_F ≤ c_E·u. Negative control:
    /// eigenvalues off by 1e-13 relative fail the same check. (nalgebra's SVD fails such a check by a factor
    /// of 10¹⁵ on graded matrices, which is why releases do not use it.)
    #[test]
    fn the_symmetric_eigensolver_is_backward_stable_as_assumed() {
        use crate::numerics::EIGEN_BACKWARD_ERROR;
        use nalgebra::SymmetricEigen;
        let u = f64::EPSILON / 2.0;
        let mut rng = seeded_rng_for_experiments(70);
        let check = |y: &DMatrix<f64>, scale: f64| -> f64 {
            let e = SymmetricEigen::new(y.clone());
            let v = &e.eigenvectors;
            let lambda = e.eigenvalues.map(|x| x * scale);
            let residual = (y - v * DMatrix::from_diagonal(&lambda) * v.transpose()).norm() / y.norm();
            let k = y.nrows();
            let orthogonal = (v.transpose() * v - DMatrix::identity(k, k)).norm();
            residual.max(orthogonal) / u
        };
        let mut worst: f64 = 0.0;
        let noises = [SpdLaplaceNoise::new(2, 0.3, None).unwrap(), SpdLaplaceNoise::new(3, 0.3, None).unwrap()];
        for i in 0..20_000u64 {
            let k = 2 + (i % 2) as usize;
            let noise = &noises[k - 2];
            let spread = (i % 11) as f64;
            let l = DMatrix::from_fn(k, k, |a, c| match a.cmp(&c) {
                std::cmp::Ordering::Greater => 0.7 * ((a * 3 + c) as f64 + i as f64).sin(),
                std::cmp::Ordering::Equal => (spread * (a as f64 / (k - 1) as f64 - 0.5)).exp(),
                std::cmp::Ordering::Less => 0.0,
            });
            let r = DVector::from_fn(k, |a, _| 20.0 * (((i * 7 + a as u64) % 13) as f64 / 6.0 - 1.0));
            let mut m = noise.haar_rotation(&mut rng);
            for (j, rj) in r.iter().enumerate() {
                m.column_mut(j).scale_mut((0.5 * rj).exp());
            }
            let b = &l * m;
            worst = worst.max(check(&symmetric(&b * b.transpose()), 1.0));
        }
        assert!(worst <= EIGEN_BACKWARD_ERROR, "backward error {worst}·u beyond the assumed {EIGEN_BACKWARD_ERROR}·u");
        eprintln!("largest eigensolver backward error: {worst:.2}·u (assumed ≤ {EIGEN_BACKWARD_ERROR}·u)");
        let y = DMatrix::from_row_slice(2, 2, &[3.0, 1.0, 1.0, 2.0]);
        assert!(check(&y, 1.0 + 1e-13) > EIGEN_BACKWARD_ERROR);
    }
}

/// The means' relative-error release on S² and SO(3) (`docs/proofs/float_safety.md` §3i).
#[cfg(test)]
mod relative_release_tests {
    use super::*;
    use crate::audit::gof::ks_test;
    use crate::sample::double_double::Dd;
    use crate::sample::rng::seeded_rng_for_experiments;
    use crate::space::grid::{snap_cube_map, snap_cube_map_dd, snap_quaternion};

    fn paris() -> DVector<f64> {
        DVector::from_vec(vec![0.6580, 0.0270, 0.7525]).normalize()
    }

    fn latlon(n: usize, eps: f64) -> PrivateFrechetMean<Sphere> {
        PrivateFrechetMean::new(Sphere::new(3).unwrap(), paris(), 300.0 / 6371.0088, n, eps, Conditioning::Auto)
            .unwrap()
    }

    fn rotations(n: usize, eps: f64) -> PrivateFrechetMean<So3> {
        PrivateFrechetMean::new(So3, UnitQuaternion::identity(), 20f64.to_radians(), n, eps, Conditioning::Auto)
            .unwrap()
    }

    /// A footpoint `angle` from the centre, towards a fixed direction.
    fn s2_footpoint(angle: f64) -> DVector<f64> {
        let c = paris();
        let t = DVector::from_vec(vec![-c[2], 0.0, c[0]]).normalize();
        (c * angle.cos() + t * angle.sin()).normalize()
    }

    /// Releases at footpoints at the centre and at the ball's edge (r + Δ/2) are the points of grid cells,
    /// reconstructed from the release alone (snapped again by main's f64 path: the same bits), and lie in the
    /// public keep-ball. Control: the raw draws are not grid points.
    #[test]
    fn relative_releases_are_grid_points_reconstructed_from_the_release_alone() {
        let mut rng = seeded_rng_for_experiments(341);
        for eps in [0.01, 1.0] {
            let ll = latlon(1_000_000, eps);
            let chart = ll.ball_chart.as_ref().unwrap();
            let grid = chart.rounding.float_safe_grid();
            let edge = ll.radius() + 0.5 * ll.sensitivity();
            for foot in [paris(), s2_footpoint(edge)] {
                for _ in 0..2000 {
                    let y = ll.release_mean(&foot, &mut rng).unwrap();
                    let mut again = y.clone();
                    snap_cube_map(again.as_mut_slice(), grid.spacing_log2);
                    assert_eq!(
                        again.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        y.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    );
                    assert!(Sphere::new(3).unwrap().distance(&paris(), &y) <= chart.ball);
                }
                let raw = ll.privatize_mean(&foot, &mut rng);
                let mut snapped = raw.clone();
                snap_cube_map(snapped.as_mut_slice(), grid.spacing_log2);
                assert_ne!(raw, snapped, "the control: a raw draw is no grid point");
            }
            let rot = rotations(1_000_000, eps);
            let chart = rot.ball_chart.as_ref().unwrap();
            let grid = chart.rounding.float_safe_grid();
            let edge = rot.radius() + 0.5 * rot.sensitivity();
            let feet =
                [UnitQuaternion::identity(), UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(edge, 0.0, 0.0))];
            for foot in feet {
                for _ in 0..2000 {
                    let y = rot.release_mean(&foot, &mut rng).unwrap();
                    let again = snap_quaternion(&y, grid.spacing_log2);
                    assert_eq!(again.coords.map(f64::to_bits), y.coords.map(f64::to_bits));
                    assert!(So3.distance(&UnitQuaternion::identity(), &y) <= chart.ball);
                }
                let raw = rot.privatize_mean(&foot, &mut rng);
                assert_ne!(raw, snap_quaternion(&raw, grid.spacing_log2), "the control");
            }
        }
    }

    /// The double-double cell is the exact cell: chart coordinates (k + ½)·h + t at cell boundaries, t from
    /// ±2^-60 down to ±2^-104 and 0 (a tie: to even), for faces 1, 2^-1 and 3·2^-2 (the last makes the
    /// quotient inexact), given as exact double-doubles; the reference is sign(t) (ties to the even k).
    /// Control: main's f64 path, rounding fl(z), misses the cell for small t.
    #[test]
    fn the_double_double_cell_is_the_exact_cell_at_cell_boundaries() {
        let s = -30;
        let h = 2f64.powi(s);
        let mut misses = 0;
        let mut cases = 0;
        for face in [1.0, 0.5, 0.75] {
            for k in [0i64, 1, 2, 3, 12345, -7, 536870910, -536870911] {
                for t in [2f64.powi(-60), 2f64.powi(-80), 2f64.powi(-100), 2f64.powi(-104), 0.0] {
                    for sign in [1.0, -1.0] {
                        let mid = (k as f64 + 0.5) * h;
                        let t = sign * t;
                        let expected = if t > 0.0 || (t == 0.0 && k % 2 != 0) { k + 1 } else { k };
                        // z = face·(e₀ + (mid + t)·e₁ + ¼·e₂), exact as double-doubles.
                        let a = Dd::sum(face * mid, face * t);
                        let (hi, lo) = ([face, a.hi, 0.25 * face], [0.0, a.lo, 0.0]);
                        let mut out = [0.0; 3];
                        snap_cube_map_dd(&hi, &lo, s, &mut out);
                        // The representative's chart coordinate, read back from the f64 snap.
                        let got = (out[1] / out[0] / h).round() as i64;
                        assert_eq!(got, expected, "face {face} k {k} t {t:e}");
                        let mut plain = hi;
                        snap_cube_map(&mut plain, s);
                        cases += 1;
                        if (plain[1] / plain[0] / h).round() as i64 != expected {
                            misses += 1;
                        }
                    }
                }
            }
        }
        eprintln!("main's f64 path missed {misses} of {cases} boundary cells");
        assert!(misses >= cases / 4, "the control: {misses}");
    }

    /// The released distance from the footpoint follows the exact angle law (conditioned on the public ball,
    /// which holds all but `tail` of it), DKW at false failure 1e-6, on S² and SO(3) at 10⁶ rows, ε = 0.01 and
    /// 1; a law 10 % wider is rejected.
    #[test]
    fn released_distances_follow_the_exact_law() {
        let mut rng = seeded_rng_for_experiments(342);
        for eps in [0.01, 1.0] {
            let ll = latlon(1_000_000, eps);
            let tail = ll.ball_chart.as_ref().unwrap().tail_cost;
            assert!(tail < 1e-5, "{tail}");
            let s2 = Sphere::new(3).unwrap();
            let ts: Vec<f64> =
                (0..20_000).map(|_| s2.distance(&paris(), &ll.release_mean(&paris(), &mut rng).unwrap())).collect();
            let kappa = ll.noise.kappa();
            let exact = SphereAngle::purkayastha(3, kappa).unwrap();
            let wider = SphereAngle::purkayastha(3, kappa / 1.1).unwrap();
            // The footpoint is the centre: the release is the law truncated at R (up to the cells straddling
            // the ball's edge, of mass ~f(R)·h, far below 1e-20).
            let top = exact.cdf(ll.ball_chart.as_ref().unwrap().ball);
            let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
            assert!(out.passed(), "S² ε {eps}: KS {} > {}", out.statistic, out.critical);
            assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());

            let rot = rotations(1_000_000, eps);
            let id = UnitQuaternion::identity();
            let ts: Vec<f64> =
                (0..20_000).map(|_| So3.distance(&id, &rot.release_mean(&id, &mut rng).unwrap())).collect();
            let exact = LaplaceAngle::new(rot.noise.epsilon()).unwrap();
            let wider = LaplaceAngle::new(rot.noise.epsilon() / 1.1).unwrap();
            let top = exact.cdf(rot.ball_chart.as_ref().unwrap().ball);
            let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
            assert!(out.passed(), "SO(3) ε {eps}: KS {} > {}", out.statistic, out.critical);
            assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());
        }
    }

    /// The offset's arithmetic is within its stated relative bound: m + δ̂ against the exact ‖m‖·z* (double-double
    /// references, the drawn θ and direction taken as exact inputs), over θ from 10⁻⁹ to 0.5 and footpoints all
    /// over S² and SO(3); the bound's arithmetic part is (2 + 16.5 + 27 + 6 + 3)u·θ on S² and
    /// (2 + 10 + 1 + 8 + 2.5 + 2)u·φ on S³ (the axis's own 10u included there as slack). Control: main's absolute
    /// form, fl(cos θ·m + sin θ·v̂) − m, is off by far more than that at small θ.
    #[test]
    fn the_offset_is_within_its_relative_bound() {
        use rand::RngExt;
        let u = f64::EPSILON / 2.0;
        let mut rng = seeded_rng_for_experiments(343);
        let (mut worst_s2, mut worst_so3, mut worst_plain) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..20_000 {
            let theta = 10f64.powf(-9.0 + 8.7 * rng.random::<f64>());
            let m: [f64; 3] = {
                let g = crate::sample::sphere::uniform_s2(&mut rng);
                let n = g.norm();
                [g[0] / n, g[1] / n, g[2] / n]
            };
            let dir = crate::sample::sphere::uniform_circle(&mut rng);
            let (mf, d) = s2_offset(&m, theta, dir);
            // Reference: Duff's frame at m̂ = m/‖m‖ in double-double, (c, s) normalised, cos θ and sin θ exact.
            let md: Vec<Dd> = mf.iter().map(|&x| Dd::new(x)).collect();
            let len = crate::sample::double_double::norm(&md);
            let [x, y, z] = [md[0].div(len), md[1].div(len), md[2].div(len)];
            let sigma = Dd::new(1f64.copysign(z.hi));
            let a = Dd::new(-1.0).div(sigma.add(z));
            let e1 = [Dd::new(1.0).add(sigma.mul(x).mul(x).mul(a)), sigma.mul(x).mul(y).mul(a), sigma.mul(x).neg()];
            let e2 = [x.mul(y).mul(a), sigma.add(y.mul(y).mul(a)), y.neg()];
            let cs = crate::sample::double_double::norm(&[Dd::new(dir.0), Dd::new(dir.1)]);
            let (c, s) = (Dd::new(dir.0).div(cs), Dd::new(dir.1).div(cs));
            let (sin, cos) = Dd::new(theta).sin_cos();
            let mut err = 0.0;
            let mut plain = 0.0;
            for j in 0..3 {
                let v = c.mul(e1[j]).add(s.mul(e2[j]));
                let exact = cos.mul(md[j]).add(len.mul(sin).mul(v));
                err += Dd::sum(mf[j], d[j]).sub(exact).hi.powi(2);
                let vhat = crate::sample::sphere::s2_point_at_angle(mf, 0.0, 1.0, dir)[j];
                let absolute = (theta.cos() * mf[j] + theta.sin() * vhat) - mf[j];
                plain += Dd::sum(mf[j], absolute).sub(exact).hi.powi(2);
            }
            worst_s2 = worst_s2.max(err.sqrt() / (u * theta));
            worst_plain = worst_plain.max(plain.sqrt() / (u * theta));

            // SO(3): φ = θ/2, a random axis, a random footpoint.
            let half = 0.5 * theta;
            let axis = crate::sample::sphere::uniform_s2(&mut rng);
            let foot = UnitQuaternion::from_scaled_axis(
                crate::sample::sphere::uniform_s2(&mut rng) * (3.0 * rng.random::<f64>()),
            );
            let mq = so3_footpoint(&foot);
            let (sn, q) = (half.sin(), (0.5 * half).sin());
            let dn = nalgebra::Quaternion::new(-(2.0 * (q * q)), sn * axis[0], sn * axis[1], sn * axis[2]);
            let dq = mq * dn;
            let al = crate::sample::double_double::norm(&axis.iter().map(|&t| Dd::new(t)).collect::<Vec<_>>());
            let (hs, hc) = Dd::new(half).sin_cos();
            let n = [
                hc,
                hs.mul(Dd::new(axis[0])).div(al),
                hs.mul(Dd::new(axis[1])).div(al),
                hs.mul(Dd::new(axis[2])).div(al),
            ];
            let [w1, x1, y1, z1] = [mq.w, mq.i, mq.j, mq.k].map(Dd::new);
            let [w2, x2, y2, z2] = n;
            let exact = [
                w1.mul(x2).add(x1.mul(w2)).add(y1.mul(z2)).sub(z1.mul(y2)),
                w1.mul(y2).sub(x1.mul(z2)).add(y1.mul(w2)).add(z1.mul(x2)),
                w1.mul(z2).add(x1.mul(y2)).sub(y1.mul(x2)).add(z1.mul(w2)),
                w1.mul(w2).sub(x1.mul(x2)).sub(y1.mul(y2)).sub(z1.mul(z2)),
            ];
            let err: f64 = (0..4).map(|j| Dd::sum(mq.coords[j], dq.coords[j]).sub(exact[j]).hi.powi(2)).sum();
            worst_so3 = worst_so3.max(err.sqrt() / (u * half));
            let _ = i;
        }
        eprintln!(
            "offset error per unit of angle: S² {worst_s2:.2}u, SO(3) {worst_so3:.2}u; absolute form {worst_plain:.3e}u"
        );
        assert!(worst_s2 <= 54.5 && worst_so3 <= 25.5, "{worst_s2} {worst_so3}");
        assert!(worst_plain > 1e3, "the control: {worst_plain}");
    }

    /// A centre of S^{n−1} with no zero coordinate (so every face and sign is exercised), and the mean of 10⁶
    /// rows within 20° of it.
    fn sphere_center(n: usize) -> DVector<f64> {
        DVector::from_iterator(n, (0..n).map(|i| if i == 0 { 1.0 } else { (-0.5f64).powi(i as i32) })).normalize()
    }

    fn sphere_mean(n: usize, eps: f64, conditioning: Conditioning) -> PrivateFrechetMean<Sphere> {
        PrivateFrechetMean::new(
            Sphere::new(n).unwrap(),
            sphere_center(n),
            20f64.to_radians(),
            1_000_000,
            eps,
            conditioning,
        )
        .unwrap()
    }

    /// A point `angle` from `c` towards e₂'s tangent part.
    fn towards(c: &DVector<f64>, angle: f64) -> DVector<f64> {
        let mut t = DVector::zeros(c.len());
        t[1] = 1.0;
        let t = (&t - c * c[1]).normalize();
        (c * angle.cos() + t * angle.sin()).normalize()
    }

    /// S^{n−1} for n = 4 and 10, unconditioned, and the ball-conditioned mode on S^{n−1}, S² and SO(3): releases
    /// at footpoints at the centre and at the ball's edge (r + Δ/2) are grid points (the f64 snap of the release
    /// gives the same bits) and lie in the keep-ball (the data ball when conditioned). Control: raw draws are no
    /// grid points.
    #[test]
    fn sphere_and_conditioned_relative_releases_are_grid_points_in_their_ball() {
        let mut rng = seeded_rng_for_experiments(344);
        let check_sphere = |mean: &PrivateFrechetMean<Sphere>, rng: &mut crate::sample::rng::ReleaseRng| {
            let chart = mean.ball_chart.as_ref().expect("the relative-error release is planned");
            if mean.conditioned {
                assert_eq!(chart.ball, mean.radius());
            }
            let spacing = chart.rounding.float_safe_grid().spacing_log2;
            let c = mean.center().clone();
            let sphere = *mean.manifold();
            for foot in [c.clone(), towards(&c, mean.radius() + 0.5 * mean.sensitivity())] {
                for _ in 0..1000 {
                    let y = mean.release_mean(&foot, rng).unwrap();
                    let mut again = y.clone();
                    snap_cube_map(again.as_mut_slice(), spacing);
                    assert_eq!(again.map(f64::to_bits), y.map(f64::to_bits));
                    assert!(sphere.distance(&c, &y) <= chart.ball);
                }
                let raw = mean.privatize_mean(&foot, rng);
                let mut snapped = raw.clone();
                snap_cube_map(snapped.as_mut_slice(), spacing);
                assert_ne!(raw, snapped, "the control: a raw draw is no grid point");
            }
        };
        for eps in [0.01, 1.0] {
            for n in [4, 10] {
                check_sphere(&sphere_mean(n, eps, Conditioning::Unconditioned), &mut rng);
            }
            check_sphere(&sphere_mean(4, eps, Conditioning::Ball), &mut rng);
            let ll = PrivateFrechetMean::new(
                Sphere::new(3).unwrap(),
                paris(),
                300.0 / 6371.0088,
                1_000_000,
                eps,
                Conditioning::Ball,
            )
            .unwrap();
            check_sphere(&ll, &mut rng);
            let rot = PrivateFrechetMean::new(
                So3,
                UnitQuaternion::identity(),
                20f64.to_radians(),
                1_000_000,
                eps,
                Conditioning::Ball,
            )
            .unwrap();
            let chart = rot.ball_chart.as_ref().unwrap();
            assert_eq!(chart.ball, rot.radius());
            let spacing = chart.rounding.float_safe_grid().spacing_log2;
            let edge = rot.radius() + 0.5 * rot.sensitivity();
            for foot in
                [UnitQuaternion::identity(), UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(0.0, edge, 0.0))]
            {
                for _ in 0..1000 {
                    let y = rot.release_mean(&foot, &mut rng).unwrap();
                    assert_eq!(snap_quaternion(&y, spacing).coords.map(f64::to_bits), y.coords.map(f64::to_bits));
                    assert!(So3.distance(&UnitQuaternion::identity(), &y) <= rot.radius());
                }
            }
        }
    }

    /// Released distances from the footpoint (the centre) follow the exact angle law truncated at the keep-ball,
    /// DKW at false failure 10⁻⁶ with 2·10⁴ draws: S³ and S⁹ unconditioned at ε = 0.01 and 1, and the
    /// ball-conditioned S^{n−1} (n = 3, 4) and SO(3) at ε = 0.01; a law 10 % wider is rejected (the control).
    #[test]
    fn sphere_and_conditioned_releases_follow_the_exact_law() {
        let mut rng = seeded_rng_for_experiments(345);
        let mut check = |mean: &PrivateFrechetMean<Sphere>, label: &str| {
            let n = mean.manifold().ambient();
            let c = mean.center().clone();
            let ts: Vec<f64> =
                (0..20_000).map(|_| mean.manifold().distance(&c, &mean.release_mean(&c, &mut rng).unwrap())).collect();
            let kappa = mean.noise.kappa();
            let exact = SphereAngle::purkayastha(n, kappa).unwrap();
            let wider = SphereAngle::purkayastha(n, kappa / 1.1).unwrap();
            let top = exact.cdf(mean.ball_chart.as_ref().unwrap().ball);
            let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
            assert!(out.passed(), "{label}: KS {} > {}", out.statistic, out.critical);
            assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());
        };
        for eps in [0.01, 1.0] {
            for n in [4, 10] {
                check(&sphere_mean(n, eps, Conditioning::Unconditioned), &format!("S^{} ε {eps}", n - 1));
            }
        }
        check(&sphere_mean(4, 0.01, Conditioning::Ball), "S³ conditioned");
        let ll = PrivateFrechetMean::new(
            Sphere::new(3).unwrap(),
            paris(),
            300.0 / 6371.0088,
            1_000_000,
            0.01,
            Conditioning::Ball,
        )
        .unwrap();
        check(&ll, "S² conditioned");
        let rot = PrivateFrechetMean::new(
            So3,
            UnitQuaternion::identity(),
            20f64.to_radians(),
            1_000_000,
            0.01,
            Conditioning::Ball,
        )
        .unwrap();
        let id = UnitQuaternion::identity();
        let ts: Vec<f64> = (0..20_000).map(|_| So3.distance(&id, &rot.release_mean(&id, &mut rng).unwrap())).collect();
        let exact = LaplaceAngle::new(rot.noise.epsilon()).unwrap();
        let wider = LaplaceAngle::new(rot.noise.epsilon() / 1.1).unwrap();
        let top = exact.cdf(rot.radius());
        let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
        assert!(out.passed(), "SO(3) conditioned: KS {} > {}", out.statistic, out.critical);
        assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());
    }

    /// The S^{n−1} offset (n = 4, 5, 10, 100) is within its relative bound: m + δ̂ against the exact ‖m‖·z*
    /// (double-double: the Householder tangent at m/‖m‖ from the same Gaussians, cos θ and sin θ of the drawn θ),
    /// over θ from 10⁻⁹ to 0.5 and footpoints all over the sphere, some off unit norm by up to 3 ulps (kept) and
    /// by 10⁻⁸ (renormalised). The bound's arithmetic part, [`sphere_mean_release_error`] at angle error 0
    /// without the Gaussians' 32u, is asserted. Control: the absolute form fl(cos θ·m + sin θ·v̂) − m is off by
    /// far more at small θ.
    #[test]
    fn the_sphere_offset_is_within_its_relative_bound() {
        use rand::RngExt;
        let u = f64::EPSILON / 2.0;
        let mut rng = seeded_rng_for_experiments(346);
        for n in [4usize, 5, 10, 100] {
            let (mut worst, mut worst_plain, mut worst_allowed) = (0.0f64, 0.0f64, f64::INFINITY);
            for i in 0..5000 {
                let theta = 10f64.powf(-9.0 + 8.7 * rng.random::<f64>());
                let g: Vec<f64> = (0..n).map(|_| crate::sample::normal::normal_pair(&mut rng).0).collect();
                let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
                let scale = match i % 3 {
                    0 => 1.0,
                    1 => 1.0 + 3.0 * f64::EPSILON * (rng.random::<f64>() - 0.5),
                    _ => 1.0 + 1e-8,
                };
                let foot: Vec<f64> = g.iter().map(|x| x / norm * scale).collect();
                // The same Gaussians as the tangent draws: a twin generator, drawn in the same pattern.
                let seed = rng.random::<u64>();
                let mut twin = seeded_rng_for_experiments(seed);
                let (m, d) = sphere_offset(&foot, theta, &mut seeded_rng_for_experiments(seed));
                let mut gs = vec![0.0; n];
                let mut j = 0;
                while j + 1 < n - 1 {
                    (gs[j], gs[j + 1]) = crate::sample::normal::normal_pair(&mut twin);
                    j += 2;
                }
                if j < n - 1 {
                    gs[j] = crate::sample::normal::normal_pair(&mut twin).0;
                }
                // Reference: m̂ = m/‖m‖, v = s(t·w − g)/‖g‖, t = (m̂·g)/(1 + |m̂_n|), w = m̂ + s·e_n.
                let md: Vec<Dd> = m.iter().map(|&x| Dd::new(x)).collect();
                let len = crate::sample::double_double::norm(&md);
                let mh: Vec<Dd> = md.iter().map(|x| x.div(len)).collect();
                let gd: Vec<Dd> = gs.iter().map(|&x| Dd::new(x)).collect();
                let gnorm = crate::sample::double_double::norm(&gd);
                let p = (0..n).fold(Dd::new(0.0), |a, k| a.add(mh[k].mul(gd[k])));
                let s = Dd::new(1f64.copysign(m[n - 1]));
                let a = Dd::new(1.0).add(mh[n - 1].mul(s));
                let t = p.div(a);
                let (sin, cos) = Dd::new(theta).sin_cos();
                let (mut err, mut plain) = (0.0, 0.0);
                let vhat: Vec<f64> = {
                    let sn = theta.sin();
                    let half = (0.5 * theta).sin();
                    let ver = 2.0 * (half * half);
                    (0..n).map(|k| (d[k] + ver * m[k]) / sn).collect()
                };
                for k in 0..n {
                    let w = if k == n - 1 { mh[k].add(s) } else { mh[k] };
                    let v = s.mul(t.mul(w).sub(gd[k])).div(gnorm);
                    let exact = cos.mul(md[k]).add(len.mul(sin).mul(v));
                    err += Dd::sum(m[k], d[k]).sub(exact).hi.powi(2);
                    let absolute = (theta.cos() * m[k] + theta.sin() * vhat[k]) - m[k];
                    plain += Dd::sum(m[k], absolute).sub(exact).hi.powi(2);
                }
                let allowed = ((sphere_mean_release_error(n, theta, 0.0) - 2f64.powi(-100)) / 1.01 - 32.0 * u * theta)
                    / (u * theta);
                worst_allowed = worst_allowed.min(allowed);
                worst = worst.max(err.sqrt() / (u * theta));
                worst_plain = worst_plain.max(plain.sqrt() / (u * theta));
            }
            eprintln!(
                "S^{}: offset error per unit of angle {worst:.2}u (bound's arithmetic {worst_allowed:.2}u); absolute \
                 form {worst_plain:.3e}u",
                n - 1
            );
            assert!(worst <= worst_allowed, "n {n}: {worst} > {worst_allowed}");
            assert!(worst_plain > 1e3, "the control: {worst_plain}");
        }
    }
}
