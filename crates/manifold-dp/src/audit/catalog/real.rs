//! The real line's targets: the float-safe scalar Laplace, the analytic Gaussian and the generalized Gaussian
//! as mechanisms on one value, and their controls.

use super::{
    AuditName, AuditRequest, AuditSpace, DEFAULT_AUDIT_DELTA, DEFAULT_GG_ORDER, need_epsilon, target, unknown,
};
use crate::audit::auditor::{Auditable, ReferenceLaw};
use crate::audit::controls::{self};
use crate::audit::pairs;
use crate::error::{Error, Fallible, Param};
use crate::mechanism::Mechanism;
use crate::mechanism::Unprotected;
use crate::mechanism::scalar::{Gaussian, GeneralizedGaussian, ScalarLaplace, generalized_gaussian_epsilon};
use crate::privacy::Guarantee;
use statrs::function::erf::erf;

/// [`ScalarLaplace`] on one real value as a metric-DP mechanism on ℝ: a query of sensitivity Δ released
/// with Laplace(b) noise is pure (Δ/b)-DP, i.e. (1/b)·|x − x′|-private for values x, x′ of the query.
#[derive(Debug, Clone)]
pub struct ScalarLaplaceOnReals {
    inner: ScalarLaplace,
}

impl ScalarLaplaceOnReals {
    /// The wrapped mechanism.
    pub fn new(inner: ScalarLaplace) -> Self {
        ScalarLaplaceOnReals { inner }
    }

    /// ε per unit of |x − x′|: 1/b.
    pub fn epsilon_per_unit(&self) -> f64 {
        1.0 / self.inner.scale()
    }
}

impl Mechanism for ScalarLaplaceOnReals {
    type Point = f64;
    const EXACT_RELEASE: bool = true;

    /// The pure-DP guarantee for neighbouring (values at most Δ apart).
    fn guarantee(&self) -> Guarantee {
        Guarantee::pure(self.inner.epsilon())
    }

    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R, _: Unprotected) -> f64 {
        use rand::distr::Distribution;
        x + self.inner.noise().sample(rng)
    }

    /// Rounds onto the release grid (for callers that snap raw values themselves).
    fn snap(&self, z: &mut f64) {
        *z = crate::space::grid::round_to_grid(*z, self.inner.rounded().grid_log2());
    }

    /// The library's release: the exact cell of x + L, drawn with integer coins (not a rounded f64 draw).
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.inner.rounded().sample_at(*x, rng))
    }

    /// −|z − x|/b.
    fn log_density(&self, z: &f64, x: &f64) -> f64 {
        -(z - x).abs() / self.inner.scale()
    }

    fn name(&self) -> &'static str {
        "scalar-laplace"
    }
}

/// The `ApproxDp` guarantee in a list (the claim of an (ε, δ) audit).
fn approx_dp(guarantees: &[Guarantee]) -> Fallible<Guarantee> {
    guarantees
        .iter()
        .copied()
        .find(|g| matches!(g, Guarantee::ApproxDp { .. }))
        .ok_or_else(|| Error::NotApplicable("the mechanism reports no (epsilon, delta) guarantee".into()))
}

/// The [`Gaussian`] mechanism on one real value (a query of the mechanism's sensitivity), claiming the
/// `ApproxDp { ε, δ }` guarantee it reports, for neighbouring values.
#[derive(Debug, Clone)]
pub struct GaussianOnReals {
    inner: Gaussian,
    claim: Guarantee,
}

impl GaussianOnReals {
    /// The wrapped mechanism, claiming its reported (ε, δ).
    pub fn new(inner: Gaussian) -> Fallible<Self> {
        let claim = approx_dp(&inner.guarantees())?;
        Ok(GaussianOnReals { inner, claim })
    }

    /// The wrapped mechanism.
    pub fn inner(&self) -> &Gaussian {
        &self.inner
    }
}

impl Mechanism for GaussianOnReals {
    type Point = f64;
    const EXACT_RELEASE: bool = true;

    /// `ApproxDp { ε, δ }` for neighbouring (values at most the sensitivity apart).
    fn guarantee(&self) -> Guarantee {
        self.claim
    }

    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R, _: Unprotected) -> f64 {
        x + self.inner.unprotected_noise(rng)
    }

    /// Rounds onto the release grid (for callers that snap raw values themselves).
    fn snap(&self, z: &mut f64) {
        *z = crate::space::grid::round_to_grid(*z, self.inner.rounded().grid_log2());
    }

    /// The library's release: the exact cell of x + σZ (Karney's exact sampler), not a rounded f64 draw.
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.inner.rounded().sample_at(*x, rng))
    }

    /// −(z − x)²/(2σ²).
    fn log_density(&self, z: &f64, x: &f64) -> f64 {
        let u = (z - x) / self.inner.sigma();
        -0.5 * u * u
    }

    fn name(&self) -> &'static str {
        "gaussian"
    }
}

/// The [`GeneralizedGaussian`] mechanism on one real value, claiming the `ApproxDp { ε, δ }` guarantee it
/// reports at its standard δ, for neighbouring values.
#[derive(Debug, Clone)]
pub struct GeneralizedGaussianOnReals {
    inner: GeneralizedGaussian,
    claim: Guarantee,
}

impl GeneralizedGaussianOnReals {
    /// The wrapped mechanism (one coordinate), claiming its reported (ε, δ).
    pub fn new(inner: GeneralizedGaussian) -> Fallible<Self> {
        if inner.dimension() != 1 {
            return Err(Error::NotApplicable("the audit on the real line needs a one-coordinate mechanism".into()));
        }
        let claim = approx_dp(&inner.guarantees())?;
        Ok(GeneralizedGaussianOnReals { inner, claim })
    }

    /// The scale s whose reported (ε, δ) guarantee on a query of sensitivity 1 has ε ≤ `epsilon`, as large as
    /// bisection finds it: the largest shift d = 1/s with [`generalized_gaussian_epsilon`](N, d, δ) ≤ ε,
    /// inverted with upward rounding (a larger scale only lowers ε).
    pub fn calibrate(order: u32, epsilon: f64, delta: f64) -> Fallible<Self> {
        crate::error::check_positive(Param::Epsilon, epsilon)?;
        let ok = |d: f64| generalized_gaussian_epsilon(order, d, delta).is_ok_and(|e| e <= epsilon);
        let (mut lo, mut hi) = (1.0, 1.0);
        while ok(hi) {
            hi *= 2.0;
            if hi > 1e150 {
                return Err(Error::NumericalLimit(format!(
                    "no scale reaches epsilon = {}",
                    crate::numerics::format::short(epsilon)
                )));
            }
        }
        while !ok(lo) {
            lo *= 0.5;
            if lo < 1e-150 {
                return Err(Error::NumericalLimit(format!(
                    "no scale reaches epsilon = {}",
                    crate::numerics::format::short(epsilon)
                )));
            }
        }
        let d = crate::analysis::gaussian_dp::bisect(lo, hi.max(2.0 * lo), false, ok);
        let scale = crate::numerics::rounding::div_up(1.0, d);
        Self::new(GeneralizedGaussian::new(order, 1.0, scale)?.with_standard_delta(delta)?)
    }

    /// The wrapped mechanism.
    pub fn inner(&self) -> &GeneralizedGaussian {
        &self.inner
    }
}

impl Mechanism for GeneralizedGaussianOnReals {
    type Point = f64;
    const EXACT_RELEASE: bool = true;

    /// `ApproxDp { ε, δ }` for neighbouring (values at most the sensitivity apart).
    fn guarantee(&self) -> Guarantee {
        self.claim
    }

    fn privatize_unprotected<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R, _: Unprotected) -> f64 {
        use rand::distr::Distribution;
        x + self.inner.noise().sample(rng)
    }

    /// Rounds onto the release grid (for callers that snap raw values themselves).
    fn snap(&self, z: &mut f64) {
        *z = crate::space::grid::round_to_grid(*z, self.inner.rounded().grid_log2());
    }

    /// The library's release: the exact cell of x + X (`docs/proofs/float_safety.md` §8c), not a rounded f64
    /// draw.
    fn privatize<R: rand::CryptoRng + ?Sized>(&self, x: &f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.inner.rounded().sample_at(*x, rng))
    }

    /// −(|z − x|/s)^N (up to the normalising constant).
    fn log_density(&self, z: &f64, x: &f64) -> f64 {
        self.inner.noise().ln_density(z - x)
    }

    fn name(&self) -> &'static str {
        "generalized-gaussian"
    }
}

/// The law of |z − x| of a Gaussian release, for the goodness-of-fit companion.
fn half_normal_reference(sigma: f64) -> ReferenceLaw<f64> {
    ReferenceLaw {
        quantity: "absolute noise |z - x|",
        center: 0.0,
        cdf_sorted: Box::new(move |s: &[f64]| {
            s.iter().map(|&t| erf(t.max(0.0) / (sigma * std::f64::consts::SQRT_2))).collect()
        }),
        distance: |a: &f64, b: &f64| (a - b).abs(),
    }
}

fn approx_claim_text(g: &Guarantee, what: String) -> String {
    format!("{g} for neighbouring values |x - x'| <= 1 (a query of sensitivity 1), {what}")
}

fn build_real_approx(request: &AuditRequest, name: AuditName, label: String) -> Fallible<Box<dyn Auditable>> {
    let eps = need_epsilon(request)?;
    crate::error::check_positive(Param::Epsilon, eps)?;
    let delta = request.delta.unwrap_or(DEFAULT_AUDIT_DELTA);
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::InvalidParameter { name: Param::Delta, value: delta, reason: "must lie in (0, 1)" });
    }
    let pairs = pairs::real_neighbour_pairs(1.0);
    Ok(match name {
        AuditName::Gaussian => {
            let m = GaussianOnReals::new(Gaussian::analytic(1.0, eps, delta)?)?;
            let g = m.guarantee();
            let sigma = m.inner().sigma();
            let claim = approx_claim_text(
                &g,
                format!(
                    "Gaussian noise sigma = {} (analytic calibration; outputs on the grid of spacing 2^{})",
                    crate::numerics::format::short(sigma),
                    m.inner().rounded().grid_log2()
                ),
            );
            target(m, label, eps, claim, pairs, Some(half_normal_reference(sigma)))
        }
        AuditName::GaussianHalfSigma => {
            let claimed = GaussianOnReals::new(Gaussian::analytic(1.0, eps, delta)?)?;
            let sigma = claimed.inner().sigma();
            let actual = GaussianOnReals::new(Gaussian::new(1.0, 0.5 * sigma)?)?;
            let m = controls::Miscalibrated::new(claimed, actual);
            let g = m.guarantee();
            let claim = approx_claim_text(
                &g,
                format!("claimed for sigma = {}, sampled with sigma/2", crate::numerics::format::short(sigma)),
            );
            target(m, label, eps, claim, pairs, Some(half_normal_reference(sigma)))
        }
        AuditName::GeneralizedGaussian => {
            let order = request.order.unwrap_or(DEFAULT_GG_ORDER);
            let m = GeneralizedGaussianOnReals::calibrate(order, eps, delta)?;
            let g = m.guarantee();
            let epsilon = g.epsilon().unwrap_or(eps);
            let noise = m.inner().noise().clone();
            let claim = approx_claim_text(
                &g,
                format!(
                    "generalized Gaussian of degree {order}, scale s = {} (outputs on the grid of spacing 2^{})",
                    noise.scale(),
                    m.inner().rounded().grid_log2()
                ),
            );
            let reference = ReferenceLaw {
                quantity: "absolute noise |z - x|",
                center: 0.0,
                cdf_sorted: Box::new(move |s: &[f64]| s.iter().map(|&t| 1.0 - noise.tail(t.max(0.0))).collect()),
                distance: |a: &f64, b: &f64| (a - b).abs(),
            };
            target(m, label, epsilon, claim, pairs, Some(reference))
        }
        _ => return Err(unknown(request)),
    })
}

pub(super) fn build_real(request: &AuditRequest, name: AuditName, label: String) -> Fallible<Box<dyn Auditable>> {
    if name.takes_delta(AuditSpace::Real) {
        return build_real_approx(request, name, label);
    }
    let eps = need_epsilon(request)?;
    if name != AuditName::Laplace && name != AuditName::Unsnapped {
        return Err(unknown(request));
    }
    let m = ScalarLaplaceOnReals::new(ScalarLaplace::for_epsilon(1.0, eps)?);
    let per_unit = m.epsilon_per_unit();
    let scale = m.inner.scale();
    let claim = format!(
        "metric DP on the real line, epsilon = {per_unit} per unit of |x - x'| (pure epsilon-DP with epsilon = {eps} \
         for a query of sensitivity 1; outputs on the grid of spacing 2^{})",
        m.inner.rounded().grid_log2()
    );
    let reference = ReferenceLaw {
        quantity: "absolute noise |z - x|",
        center: 0.0,
        cdf_sorted: Box::new(move |s: &[f64]| s.iter().map(|&t| -(-t.max(0.0) / scale).exp_m1()).collect()),
        distance: |a: &f64, b: &f64| (a - b).abs(),
    };
    let pairs = pairs::real_pairs(per_unit);
    Ok(if name == AuditName::Laplace {
        target(m, label, per_unit, claim, pairs, Some(reference))
    } else {
        target(controls::Unsnapped(m), label, per_unit, claim, pairs, Some(reference))
    })
}
