//! The private Fréchet mean by the Riemannian Laplace (Theorems 2 and 3), conditioned or not on the public ball.

use crate::Fallible;
use crate::error::Param;
use crate::error::{Error, check_positive};
use crate::manifold::sensitivity::check_radius;
use crate::manifold::{KarcherOptions, KarcherStop, certified_mean_sensitivity, check_ball, frechet_mean_within};
use crate::privacy::Guarantee;
use crate::privacy::float_safety::Rounding;
use rand::CryptoRng;

use super::{BallChart, LaplaceManifold};

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
    pub(super) manifold: M,
    pub(super) center: M::Point,
    pub(super) radius: f64,
    pub(super) n: usize,
    /// The ε asked for, and stated: the noise's ε′ plus the rounding's cost, rounded up, is at most it.
    pub(super) epsilon: f64,
    /// The ε′ the noise is calibrated at (σ = Δ/ε′, or 2Δ/ε′ conditioned).
    pub(super) noise_epsilon: f64,
    pub(super) sensitivity: f64,
    pub(super) sigma: f64,
    pub(super) conditioned: bool,
    pub(super) options: KarcherOptions,
    pub(super) stop: KarcherStop<M::Point>,
    pub(super) noise: M::Noise,
    pub(super) rounding: Option<Rounding>,
    pub(super) ball_chart: Option<BallChart<M::Point>>,
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
        let epsilon = check_positive(Param::Epsilon, epsilon)?;
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
        // `requested`: conditioned on the ball because the caller asked (its chart may differ from the one `Auto`
        // weighs, `LaplaceManifold::ball_chart_for_requested_ball_mean`).
        let make_plan = |conditioned: bool, requested: bool, epsilon: f64| -> Fallible<Plan<M>> {
            let (sigma, noise) = if conditioned { ball(epsilon)? } else { unconditioned(epsilon)? };
            // Refused where the public acceptance bound at the chart's keep margin is too low: checked at Δ/4
            // before the chart is built, and again at the chart's own margin where it is wider.
            let slow = |margin: f64| -> Fallible<()> {
                let Some(rate) = manifold.ball_acceptance_lower_bound(&noise, radius, sensitivity, margin) else {
                    return Ok(());
                };
                if !(rate.is_nan() || rate < MIN_BALL_ACCEPTANCE) {
                    return Ok(());
                }
                let error = manifold.mean_distance(&noise, Some(radius));
                Err(Error::NumericalLimit(format!(
                    "nothing useful can be released for {n} points within {radius} of the centre at epsilon = \
                     {epsilon}: the noise scale σ = {sigma:.4} (σ = 2Δ/ε, Δ = {sensitivity:.4}) spreads the release \
                     over the whole ball (expected error {error:.4} against the radius {radius}), and the exact \
                     draw, conditioned on the ball, could need {:.1e} tries or more; use more points, a larger \
                     epsilon or a smaller radius",
                    1.0 / rate.max(f64::MIN_POSITIVE)
                )))
            };
            if conditioned {
                slow(0.25 * sensitivity)?;
            }
            let ball_chart = if requested {
                manifold.ball_chart_for_requested_ball_mean(&noise, &center, radius, sensitivity)?
            } else {
                manifold.ball_chart_for_mean(&noise, &center, radius, sensitivity, conditioned)?
            };
            if let Some(chart) = &ball_chart
                && conditioned
                && chart.margin > 0.25 * sensitivity
            {
                slow(chart.margin)?;
            }
            let rounding = match &ball_chart {
                Some(chart) => Some(chart.rounding),
                None => manifold.rounding_in_ball(sigma, &center, radius),
            };
            Ok(Plan { sigma, noise, conditioned, rounding, ball_chart })
        };
        // The plan at a noise budget ε′: conditioned or not, as asked or as `Auto` chooses.
        let choose = |inner: f64| -> Fallible<Plan<M>> {
            let plan = |conditioned: bool| make_plan(conditioned, false, inner);
            Ok(match conditioning {
                Conditioning::Unconditioned => plan(false)?,
                Conditioning::Ball => make_plan(true, true, inner)?,
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
    pub(super) fn keeps(&self, y: &M::Point) -> bool {
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
    /// [`PrivateFrechetMean::release_mean`]. Only with the `experiments` feature.
    #[cfg(any(test, feature = "experiments"))]
    pub fn privatize_mean<R: rand::Rng + ?Sized>(&self, mean: &M::Point, rng: &mut R) -> M::Point {
        loop {
            let y = self.manifold.sample_laplace(&self.noise, mean, rng);
            if !self.conditioned || self.manifold.distance(&self.center, &y) <= self.radius {
                return y;
            }
        }
    }
}
