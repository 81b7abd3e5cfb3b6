//! The generalized Gaussian mechanism of degree N (1 ≤ N ≤ 256): release q(D) + (X₁, …, X_k) with Xᵢ i.i.d. of density
//! ∝ exp(−(|x|/s)^N), calibrated by the Fisher–Rao distance of its location family in the **corrected**
//! parametrisation (docs/math.md §4): d_R(μ, μ′) = c_N‖μ − μ′‖₂/s with c_N = √(N²Γ(2 − 1/N)/Γ(1/N)).
//!
//! Rao DP is a distance, not a hypothesis-testing bound, so every instance also reports a standard guarantee
//! (`docs/proofs/scalar_mechanisms.md` §3–§5):
//!
//! - N = 1 is the Laplace mechanism: pure ε-DP with ε = √k·Δ/s (ℓ₂ sensitivity Δ, k coordinates), hence
//!   ε²/2-zCDP and (ε, 0)-DP;
//! - N = 2 is the Gaussian mechanism with σ = s/√2: μ-GDP with μ = √2Δ/s, μ²/2-zCDP, (ε(δ), δ)-DP;
//! - N ≥ 3: (ε, δ)-DP at the standard δ (10⁻⁶ unless changed), with ε from the exact privacy-loss
//!   distribution ([`generalized_gaussian_delta`]), composed over the k coordinates for vectors.
//!
//! **The exact profile for one coordinate.** Let d = |Δμ|/s and ℓ(u) = |u − d|^N − |u|^N (the privacy loss
//! at x = su of GG(0, s) against GG(Δμ, s)). |·|^N is convex, so ℓ is non-increasing, and δ(ε) =
//! ∫(f₀ − e^ε f_d)₊ = F(c) − e^ε F(c − d) with ℓ(c) = ε and F the unit GG CDF (regularised incomplete gamma).
//! The root c is found by bisection in log space on the all-positive forms (d + v)^N − v^N =
//! v^N·expm1(N·ln1p(d/v)) and (d − u)^N − u^N = (d − u)^N·(−expm1(N ln(u/(d − u)))); an error in c only
//! lowers the computed value to second order (c maximises F(t) − e^ε F(t − d) over t) and is covered by the
//! margin. The returned δ is the computed difference plus (10⁻¹² + 16uN(1 + x))·(F(c) + e^ε F(c − d)) +
//! 2.2·10⁻³⁰⁸, where u = 2⁻⁵² and x = min(|c − d|^N, 750) is the largest incomplete-gamma argument (whose
//! rounding the gamma function amplifies by x); the subtracted term is capped by F(c), its mathematical
//! bound, and dropped if it underflows — both only raise δ.
//!
//! **Floating point.** Releases are float-safe at no cost: each coordinate is the exact cell of x̄ + X on the
//! public grid of spacing 2^(⌊log₂ s⌋ − 20) ([`GeneralizedGaussian::grid_spacing`]), X drawn exactly by
//! rejection from a uniform body and an exponential tail on lazily drawn uniform bits
//! ([`RoundedGeneralizedGaussian`], `docs/proofs/float_safety.md` §8c). That is post-processing of the exact
//! mechanism, so every guarantee above holds exactly, with no ε₀ and no extra δ.

use crate::analysis::gaussian_dp::{bisect, epsilon_for_delta, gdp_epsilon};
use crate::error::Param;
use crate::error::{Error, Fallible, check_level, check_positive};
use crate::mechanism::scalar::DEFAULT_STANDARD_DELTA;
use crate::numerics::rounding::{div_up, mul_up, sqrt_up};
use crate::privacy::Guarantee;
use crate::privacy::guarantee::RaoFamily;
use crate::sample::generalized_gaussian::{GeneralizedGaussianNoise, check_order, pow_order, rao_constant, unit_tail};
use crate::sample::rounded_generalized_gaussian::RoundedGeneralizedGaussian;
use crate::space::so3::check_finite;
use rand::CryptoRng;

/// Relative margin on the CDF terms of the generalized Gaussian profile (beside the 16uN(1 + x) term).
pub const GG_DELTA_RELATIVE_MARGIN: f64 = 1e-12;

fn check_nonnegative(name: Param, value: f64) -> Fallible<f64> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(Error::InvalidParameter { name, value, reason: "must be a finite number ≥ 0" })
    }
}

/// An upper bound of c_N: exact for N = 1 (1) and N = 2 (the double `SQRT_2` is above √2), and 10⁻¹³
/// above the log-gamma evaluation (accurate to about 10⁻¹⁵) for N ≥ 3.
fn rao_constant_up(order: u32) -> f64 {
    let c = rao_constant(order).unwrap_or(f64::NAN);
    if order <= 2 { c } else { c * (1.0 + 1e-13) }
}

/// ln(e^y − 1) for y > 0, without overflow for large y.
fn ln_expm1(y: f64) -> f64 {
    if y > 1.0 { y + (-(-y).exp()).ln_1p() } else { y.exp_m1().ln() }
}

/// The threshold c (in units of s) where the privacy loss ℓ(c) = |c − d|^N − |c|^N equals ε > 0, for d > 0;
/// `None` when ℓ never exceeds ε (N = 1 and ε ≥ d: then δ(ε) = 0).
fn threshold(order: u32, d: f64, epsilon: f64) -> Option<f64> {
    if epsilon == 0.0 {
        return Some(0.5 * d);
    }
    if order == 1 {
        return (epsilon < d).then_some(0.5 * (d - epsilon));
    }
    let n = order as f64;
    let target = epsilon.ln();
    let ln_d_n = n * d.ln();
    if target < ln_d_n {
        // c ∈ (0, d/2): ℓ(u) = (d − u)^N − u^N falls from d^N to 0.
        let above = |u: f64| n * (d - u).ln() + (-(n * (u / (d - u)).ln()).exp_m1()).ln() > target;
        Some(bisect(0.0, 0.5 * d, true, |u| !above(u)))
    } else {
        // c = −v ≤ 0: ℓ(−v) = (d + v)^N − v^N rises from d^N.
        let reaches = |v: f64| {
            let ln_loss = if v == 0.0 { ln_d_n } else { n * v.ln() + ln_expm1(n * (d / v).ln_1p()) };
            ln_loss >= target
        };
        let mut hi = d.max(1.0);
        while !reaches(hi) {
            hi *= 2.0;
            if !hi.is_finite() {
                // |c| beyond the largest double: F(c) is 0 in double precision, and so is δ.
                return Some(f64::NEG_INFINITY);
            }
        }
        Some(-bisect(0.0, hi, true, reaches))
    }
}

/// The unit generalized Gaussian CDF F(x) = P[X ≤ x] and its incomplete-gamma argument |x|^N.
fn unit_cdf(order: u32, x: f64) -> (f64, f64) {
    let arg = pow_order(x.abs(), order);
    let tail = 0.5 * unit_tail(order, x.abs());
    (if x < 0.0 { tail } else { 1.0 - tail }, arg)
}

fn gg_delta_upper(order: u32, d: f64, epsilon: f64) -> f64 {
    let Some(c) = threshold(order, d, epsilon) else {
        return f64::MIN_POSITIVE;
    };
    let (first, arg0) = unit_cdf(order, c);
    let (lower, arg1) = unit_cdf(order, c - d);
    let second = if lower > 0.0 { (epsilon + lower.ln()).exp().min(first) } else { 0.0 };
    let x = arg0.max(arg1).min(750.0);
    let margin = GG_DELTA_RELATIVE_MARGIN + 16.0 * f64::EPSILON * order as f64 * (1.0 + x);
    ((first - second).max(0.0) + margin * (first + second) + f64::MIN_POSITIVE).min(1.0)
}

/// An upper bound on the exact privacy profile δ(ε) = ∫(f₀ − e^ε f_d)₊ of one generalized Gaussian coordinate
/// of degree `order` whose location moves by `shift` = d = |Δμ|/s (in units of the scale). By log-concavity
/// it also bounds every smaller shift (`docs/proofs/scalar_mechanisms.md` §5). Never below the exact value
/// (margin in the module documentation); `shift` = 0 gives 0.
///
/// Errors: `order` outside [1, 256]; `shift` or `epsilon` negative, NaN or infinite.
pub fn generalized_gaussian_delta(order: u32, shift: f64, epsilon: f64) -> Fallible<f64> {
    let order = check_order(order)?;
    let d = check_nonnegative(Param::Shift, shift)?;
    let epsilon = check_nonnegative(Param::Epsilon, epsilon)?;
    if d == 0.0 {
        return Ok(0.0);
    }
    Ok(gg_delta_upper(order, d, epsilon))
}

/// The smallest ε ≥ 0 with δ(ε) ≤ `delta` for one generalized Gaussian coordinate moved by `shift` = |Δμ|/s,
/// rounded up (upper end of a bisection on the conservative [`generalized_gaussian_delta`], against
/// δ·(1 − 10⁻¹³)).
///
/// Errors: `order` outside [1, 256]; `shift` negative or not finite; `delta` outside (0, 1); [`Error::NumericalLimit`]
/// when no finite ε certifies `delta`.
pub fn generalized_gaussian_epsilon(order: u32, shift: f64, delta: f64) -> Fallible<f64> {
    let order = check_order(order)?;
    let d = check_nonnegative(Param::Shift, shift)?;
    let delta = check_level(Param::Delta, delta)?;
    if d == 0.0 {
        return Ok(0.0);
    }
    epsilon_for_delta(delta, |e| gg_delta_upper(order, d, e)).ok_or_else(|| {
        Error::NumericalLimit(format!(
            "no finite epsilon gives delta = {delta:e} for the generalized Gaussian of order {order} at shift {d}"
        ))
    })
}

/// The generalized Gaussian mechanism of degree N on a query with values in ℝ^k whose ℓ₂ sensitivity is Δ:
/// independent noise of density ∝ exp(−(|x|/s)^N) on each of the k coordinates (`dimension`, 1 unless set
/// with [`GeneralizedGaussian::with_dimension`]; [`GeneralizedGaussian::release`] refuses other lengths,
/// because the standard guarantees depend on k). θ-Rao DP with θ = c_N·Δ/s, c_N = √(N²Γ(2 − 1/N)/Γ(1/N));
/// proofs in `docs/proofs/scalar_mechanisms.md` §3–§5. Released float-safe on the grid of
/// [`GeneralizedGaussian::grid_spacing`] (`docs/proofs/float_safety.md` §8c).
#[derive(Debug, Clone, PartialEq)]
pub struct GeneralizedGaussian {
    order: u32,
    sensitivity: f64,
    scale: f64,
    dimension: usize,
    standard_delta: f64,
    noise: GeneralizedGaussianNoise,
    rounded: RoundedGeneralizedGaussian,
    guarantees: Vec<Guarantee>,
}

impl GeneralizedGaussian {
    fn build(order: u32, sensitivity: f64, scale: f64, dimension: usize, standard_delta: f64) -> Fallible<Self> {
        let order = check_order(order)?;
        let sensitivity = check_positive(Param::Sensitivity, sensitivity)?;
        let scale = check_positive(Param::Scale, scale)?;
        if dimension == 0 {
            return Err(Error::InvalidParameter { name: Param::Dimension, value: 0.0, reason: "must be ≥ 1" });
        }
        let standard_delta = check_level(Param::StandardDelta, standard_delta)?;
        let noise = GeneralizedGaussianNoise::new(order, scale)?;
        let rounded =
            RoundedGeneralizedGaussian::new(order, scale, RoundedGeneralizedGaussian::default_grid_log2(scale))?;
        let theta = div_up(mul_up(sensitivity, rao_constant_up(order)), scale);
        let d = div_up(sensitivity, scale);
        let k = dimension as f64;
        let overflow = |x: f64| !mul_up(x, x).is_finite();
        if overflow(theta) || overflow(mul_up(d, sqrt_up(k))) {
            return Err(Error::InvalidParameter {
                name: Param::Scale,
                value: scale,
                reason: "is too small for the sensitivity: the privacy loss overflows",
            });
        }
        let mut guarantees = vec![Guarantee::RaoDp { theta, family: RaoFamily::GeneralizedGaussian { order } }];
        match order {
            1 => {
                // The Laplace mechanism of scale s: ‖Δμ‖₁ ≤ √k‖Δμ‖₂ ≤ √kΔ.
                let epsilon = mul_up(d, sqrt_up(k));
                guarantees.extend([
                    Guarantee::pure(epsilon),
                    Guarantee::ApproxDp { epsilon, delta: 0.0 },
                    Guarantee::Zcdp { rho: 0.5 * mul_up(epsilon, epsilon) },
                    Guarantee::RaoDp { theta, family: RaoFamily::Laplace },
                ]);
            }
            2 => {
                // The Gaussian mechanism with σ = s/√2: μ = Δ/σ = √2Δ/s = θ.
                let mu = theta;
                guarantees.extend([
                    Guarantee::gdp(mu),
                    Guarantee::Zcdp { rho: 0.5 * mul_up(mu, mu) },
                    Guarantee::RaoDp { theta: mu, family: RaoFamily::Gaussian },
                    Guarantee::ApproxDp { epsilon: gdp_epsilon(mu, standard_delta)?, delta: standard_delta },
                ]);
            }
            _ => {
                // Each coordinate moves by at most Δ: (ε₁, δ/k) per coordinate, basic composition over k.
                let mut per_delta = standard_delta / k;
                if k.mul_add(per_delta, -standard_delta) > 0.0 {
                    per_delta = per_delta.next_down();
                }
                let per_epsilon = generalized_gaussian_epsilon(order, d, per_delta)?;
                guarantees.push(Guarantee::ApproxDp { epsilon: mul_up(k, per_epsilon), delta: standard_delta });
            }
        }
        Ok(GeneralizedGaussian { order, sensitivity, scale, dimension, standard_delta, noise, rounded, guarantees })
    }

    /// Noise of degree `order` ∈ [1, 256] and scale `scale` on a scalar query of sensitivity `sensitivity` (scale and
    /// sensitivity finite, > 0; s ∈ [2^-900, 2^900], where the float-safe release is proven), reporting its (ε, δ) guarantee at δ = 10⁻⁶ where it has one.
    pub fn new(order: u32, sensitivity: f64, scale: f64) -> Fallible<Self> {
        Self::build(order, sensitivity, scale, 1, DEFAULT_STANDARD_DELTA)
    }

    /// The Rao calibration: the scale s = c_N·Δ/θ (rounded up) that makes the mechanism θ-Rao DP in the
    /// generalized Gaussian family of degree `order`, for θ finite and > 0.
    pub fn for_rao(sensitivity: f64, theta: f64, order: u32) -> Fallible<Self> {
        let order = check_order(order)?;
        let sensitivity = check_positive(Param::Sensitivity, sensitivity)?;
        let theta = check_positive(Param::Theta, theta)?;
        Self::new(order, sensitivity, div_up(mul_up(sensitivity, rao_constant_up(order)), theta))
    }

    /// The same mechanism for vectors of `dimension` ≥ 1 coordinates (ℓ₂ sensitivity Δ); its guarantees are
    /// recomputed for that dimension.
    pub fn with_dimension(self, dimension: usize) -> Fallible<Self> {
        Self::build(self.order, self.sensitivity, self.scale, dimension, self.standard_delta)
    }

    /// The same mechanism reporting its (ε, δ) guarantee at `delta` ∈ (0, 1) (N ≥ 2; for N = 1 it stays
    /// (ε, 0)).
    pub fn with_standard_delta(self, delta: f64) -> Fallible<Self> {
        Self::build(self.order, self.sensitivity, self.scale, self.dimension, delta)
    }

    /// The degree N.
    pub fn order(&self) -> u32 {
        self.order
    }

    /// The ℓ₂ sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The scale s.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The number of coordinates k that [`GeneralizedGaussian::release`] accepts.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The δ of the reported (ε, δ) guarantee for N ≥ 2.
    pub fn standard_delta(&self) -> f64 {
        self.standard_delta
    }

    /// θ = c_N·Δ/s (rounded up), the Fisher–Rao distance bound.
    pub fn rao_theta(&self) -> f64 {
        match self.guarantees[0] {
            Guarantee::RaoDp { theta, .. } => theta,
            _ => f64::NAN,
        }
    }

    /// The noise law of one coordinate (density, CDF). Its f64 draws (`Distribution::sample`, Gamma(1/N)^{1/N})
    /// added to a value are the raw pipeline, **not float-safe** (Mironov 2012); for negative controls only.
    pub fn noise(&self) -> &GeneralizedGaussianNoise {
        &self.noise
    }

    /// The exact rounded law every release is drawn from.
    pub fn rounded(&self) -> &RoundedGeneralizedGaussian {
        &self.rounded
    }

    /// The public grid's spacing 2^(⌊log₂ s⌋ − 20): every released coordinate is a multiple of it
    /// (`docs/proofs/float_safety.md` §8c).
    pub fn grid_spacing(&self) -> f64 {
        self.rounded.spacing()
    }

    /// Every guarantee, first `RaoDp { θ, GeneralizedGaussian { N } }`, then the standard ones listed in the
    /// module documentation.
    pub fn guarantees(&self) -> Vec<Guarantee> {
        self.guarantees.clone()
    }

    /// `value` (exactly `dimension` coordinates, all finite) plus independent noise on each coordinate,
    /// rounded exactly to the nearest multiple of [`GeneralizedGaussian::grid_spacing`] (coordinates beyond
    /// 2^100·s are clamped first): each coordinate is fl(c·h) for the cell c of x̄ + X drawn exactly
    /// ([`RoundedGeneralizedGaussian`], `docs/proofs/float_safety.md` §8c). Errors before drawing any noise
    /// otherwise.
    pub fn release<R: CryptoRng + ?Sized>(&self, value: &[f64], rng: &mut R) -> Fallible<Vec<f64>> {
        if value.len() != self.dimension {
            return Err(Error::WrongLength { expected: self.dimension, got: value.len() });
        }
        check_finite(value)?;
        Ok(value.iter().map(|&x| self.rounded.sample_at(x, rng)).collect())
    }

    /// One real value plus noise (dimension 1 only).
    pub fn release_scalar<R: CryptoRng + ?Sized>(&self, value: f64, rng: &mut R) -> Fallible<f64> {
        Ok(self.release(&[value], rng)?[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_solves_the_loss_equation() {
        for order in 2..=5u32 {
            for &(d, eps) in &[(0.5, 0.01), (0.5, 0.2), (1.0, 3.0), (2.0, 40.0), (0.1, 2.0)] {
                let c = threshold(order, d, eps).unwrap();
                let loss = pow_order((c - d).abs(), order) - pow_order(c.abs(), order);
                assert!((loss - eps).abs() <= 1e-12 * (1.0 + eps), "N {order} d {d} eps {eps}: {loss}");
            }
        }
        assert_eq!(threshold(1, 1.0, 2.0), None);
        assert_eq!(threshold(1, 1.0, 0.5), Some(0.25));
    }

    #[test]
    fn releases_on_the_public_grid() {
        use crate::sample::rng::seeded_rng_for_experiments;
        for order in [1, 2, 3, 8, 256] {
            let m = GeneralizedGaussian::new(order, 1.0, 3.0).unwrap().with_dimension(4).unwrap();
            assert_eq!(m.grid_spacing(), 2f64.powi(-19));
            let value = [1.0, -2.5, 1e-300, 0.0];
            let v = m.release(&value, &mut seeded_rng_for_experiments(1)).unwrap();
            assert!(v.iter().all(|z| (z / m.grid_spacing()).fract() == 0.0), "{v:?}");
            assert_eq!(v, m.release(&value, &mut seeded_rng_for_experiments(1)).unwrap());
            let mut rng = seeded_rng_for_experiments(2);
            assert!(matches!(
                m.release(&[1.0, f64::NAN, 0.0, 0.0], &mut rng),
                Err(Error::NonFinite { component: 1, .. })
            ));
            assert!(matches!(m.release(&[1.0], &mut rng), Err(Error::WrongLength { expected: 4, got: 1 })));
        }
        // s outside [2^-900, 2^900] is refused with the reason, not released on an unproven grid.
        assert!(matches!(
            GeneralizedGaussian::new(3, 1.0, 1e280),
            Err(Error::InvalidParameter { name: Param::Scale, .. })
        ));
    }

    #[test]
    fn rao_calibration_meets_its_target() {
        for order in 1..=6 {
            let m = GeneralizedGaussian::for_rao(1.0, 0.5, order).unwrap();
            assert!(m.rao_theta() <= 0.5 && m.rao_theta() > 0.5 * (1.0 - 1e-12));
        }
    }
}
