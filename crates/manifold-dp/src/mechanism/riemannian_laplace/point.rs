//! The Riemannian Laplace mechanism on single points.

use crate::Fallible;
use crate::error::Param;
use crate::error::{Error, check_positive};
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::privacy::Guarantee;
use crate::privacy::float_safety::Rounding;
use rand::CryptoRng;

use super::{BallChart, LaplaceManifold};

/// The Riemannian Laplace mechanism on single points (unconditioned): εd-private with ε = 1/σ per unit of the
/// manifold's distance, because the normaliser is the same at every footpoint (docs/math.md §3).
#[derive(Debug, Clone)]
pub struct RiemannianLaplace<M: LaplaceManifold> {
    pub(super) manifold: M,
    pub(super) sigma: f64,
    pub(super) noise: M::Noise,
    pub(super) rounding: Option<Rounding>,
    /// Where float-safe releases need a public ball (SPD, affine-invariant): its chart.
    pub(super) ball_chart: Option<BallChart<M::Point>>,
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
        let radius = check_positive(Param::Radius, radius)?;
        Self::build(manifold, sigma, Some((center, radius)))
    }

    fn build(manifold: M, sigma: f64, ball: Option<(&M::Point, f64)>) -> Fallible<Self> {
        let sigma = check_positive(Param::Sigma, sigma)?;
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
    fn privatize<R: CryptoRng + ?Sized>(&self, x: &M::Point, rng: &mut R) -> Fallible<M::Point> {
        self.check_input(x)?;
        if let Some(chart) = &self.ball_chart {
            loop {
                // A draw outside the ball is drawn again (the release is conditioned on it); one that double
                // precision cannot represent is reported: redrawing it would change the law.
                if let Some(y) = self.manifold.sample_in_chart(&self.noise, x, chart, rng)? {
                    return Ok(y);
                }
            }
        }
        Ok(match &self.rounding {
            Some(r) => self.manifold.sample_rounded(&self.noise, x, r, rng),
            None => self.privatize_unprotected(x, rng, Unprotected::INTERNAL),
        })
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

    /// In a public ball's chart (SPD), [`LaplaceManifold::check_chart_input`]; elsewhere every point.
    fn check_input(&self, x: &M::Point) -> Fallible<()> {
        match &self.ball_chart {
            Some(_) => self.manifold.check_chart_input(x),
            None => Ok(()),
        }
    }

    fn snap(&self, z: &mut M::Point) {
        if let Some(r) = &self.rounding {
            self.manifold.snap_point(r, z);
        }
    }

    fn privatize_unprotected<R: CryptoRng + ?Sized>(&self, x: &M::Point, rng: &mut R, _: Unprotected) -> M::Point {
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
