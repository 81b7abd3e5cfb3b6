//! Accounting: composing guarantees and converting between notions, rounding every result in the
//! conservative direction (a reported cost is never below the true one).
//!
//! | notion | sequential composition | parallel (parts split by a public key) |
//! |---|---|---|
//! | metric εd | Σε (same metric and unit only) | max ε |
//! | pure ε | Σε | max ε |
//! | approximate (ε, δ) | (Σε, Σδ), or advanced: see [`compose_advanced`] | (max ε, max δ) |
//! | zCDP ρ | Σρ | max ρ |
//! | GDP μ (up to δ) | √(Σμ²), Σδ | max μ, max δ |
//! | Rao θ | √(Σθ²) (a distance in the product family) | max θ |
//!
//! Conversions that hold ([`convert`]): pure ε → (ε, 0), ρ = ε²/2 zCDP, μ = −2Φ⁻¹(1/(1 + e^ε)) GDP (pure ε up
//! to a negligible δ: GDP up to the same δ); metric εd → pure ε·diameter; zCDP ρ → (ρ + 2√(ρ ln(1/δ)), δ); GDP
//! μ → ρ = μ²/2 zCDP and the exact (ε, δ) curve (GDP up to δ′ > 0: the curve plus δ′·(1 + e^ε), no zCDP);
//! Rao θ in the Gaussian family = θ-GDP. Everything else is refused with [`Error::Inconvertible`] and the
//! reason. Proofs and citations: `docs/proofs/accounting.md`.
//!
//! These are theorems for parameters fixed in advance. A ledger that admits releases one by one against what is
//! left is a privacy filter, and uses only the rules proven valid as filters (`docs/proofs/accounting.md`, "The
//! ledger is a filter").
//!
//! Rounding: IEEE 754 `+ − × ÷ √` are correctly rounded, so one step up ([`f64::next_up`]) after each bounds the
//! exact result; `ln`, `exp` and Φ are not guaranteed correctly rounded, so their results are raised by a
//! relative 1e-12 (far above their error) before use.

use crate::analysis::gaussian_dp::{gdp_delta, gdp_epsilon};
use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::privacy::guarantee::{Guarantee, Metric, RaoFamily};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A privacy notion: the kind of a [`Guarantee`], without its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Notion {
    /// Metric (ε·d) DP.
    Metric,
    /// Pure ε-DP.
    Pure,
    /// Approximate (ε, δ)-DP.
    Approx,
    /// ρ-zCDP.
    Zcdp,
    /// μ-GDP.
    Gdp,
    /// θ-Rao DP.
    Rao,
}

impl Notion {
    /// Every notion, in the order reports list them.
    pub const ALL: [Notion; 6] = [Notion::Pure, Notion::Approx, Notion::Zcdp, Notion::Gdp, Notion::Rao, Notion::Metric];

    /// The CLI spelling: `metric`, `pure`, `approx`, `zcdp`, `gdp`, `rao`.
    pub fn as_str(self) -> &'static str {
        match self {
            Notion::Metric => "metric",
            Notion::Pure => "pure",
            Notion::Approx => "approx",
            Notion::Zcdp => "zcdp",
            Notion::Gdp => "gdp",
            Notion::Rao => "rao",
        }
    }

    /// Parses the CLI spelling.
    pub fn parse(name: &str) -> Option<Notion> {
        Notion::ALL.into_iter().find(|n| n.as_str() == name)
    }

    /// Whether the notion bounds the power of every test between neighbouring inputs (a hypothesis-testing
    /// meaning). Rao DP is a distance between output laws within one parametric family and does not, by
    /// itself, bound any test (`docs/accounting.md`).
    pub fn has_testing_meaning(self) -> bool {
        !matches!(self, Notion::Rao)
    }
}

impl fmt::Display for Notion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Guarantee {
    /// The notion of this guarantee.
    pub fn notion(&self) -> Notion {
        match self {
            Guarantee::MetricDp { .. } => Notion::Metric,
            Guarantee::PureDp { .. } => Notion::Pure,
            Guarantee::ApproxDp { .. } => Notion::Approx,
            Guarantee::Zcdp { .. } => Notion::Zcdp,
            Guarantee::Gdp { .. } => Notion::Gdp,
            Guarantee::RaoDp { .. } => Notion::Rao,
        }
    }

    /// Checks that the numbers are in range: ε, ρ, μ, θ finite and ≥ 0, δ ∈ [0, 1]; a metric guarantee's
    /// Rényi family has valid parameters and lives in the guarantee's space.
    pub fn validate(&self) -> Fallible<Guarantee> {
        fn nonneg(name: Param, v: f64) -> Fallible<()> {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(Error::InvalidParameter { name, value: v, reason: "must be a finite number >= 0" })
            }
        }
        match *self {
            Guarantee::MetricDp { epsilon, additive_epsilon, delta_base: delta, metric, renyi, .. } => {
                nonneg(Param::Epsilon, epsilon)?;
                nonneg(Param::AdditiveEpsilon, additive_epsilon)?;
                delta_in_range(delta)?;
                if let Some(family) = renyi {
                    family_fits(family, metric)?;
                }
            }
            Guarantee::PureDp { epsilon, delta, .. } => {
                nonneg(Param::Epsilon, epsilon)?;
                delta_in_range(delta)?;
            }
            Guarantee::ApproxDp { epsilon, delta } => {
                nonneg(Param::Epsilon, epsilon)?;
                delta_in_range(delta)?;
            }
            Guarantee::Zcdp { rho } => nonneg(Param::Rho, rho)?,
            Guarantee::Gdp { mu, delta } => {
                nonneg(Param::Mu, mu)?;
                delta_in_range(delta)?;
            }
            Guarantee::RaoDp { theta, .. } => nonneg(Param::Theta, theta)?,
        }
        Ok(*self)
    }

    /// Whether this cost fits within `budget` (same notion; for metric DP the same metric and unit):
    /// every component ≤ the budget's. Compares exact floats: the cost is already rounded up.
    ///
    /// A metric, pure or GDP budget bounds ε or μ (and ε₀ where it states one); it bounds the negligible δ of
    /// the samplers' events only where it states a δ > 0 (a cap). A budget with δ = 0 puts no cap on that δ: the
    /// accumulated δ is reported beside ε, never hidden (`docs/proofs/accounting.md`, "The negligible δ").
    pub fn fits_within(&self, budget: &Guarantee) -> Fallible<bool> {
        same_kind(self, budget)?;
        Ok(match (*self, *budget) {
            (Guarantee::ApproxDp { epsilon: e, delta: d }, Guarantee::ApproxDp { epsilon: eb, delta: db }) => {
                e <= eb && d <= db
            }
            (Guarantee::Zcdp { rho }, Guarantee::Zcdp { rho: b }) => rho <= b,
            (Guarantee::Gdp { mu, delta }, Guarantee::Gdp { mu: b, delta: db }) => {
                mu <= b && (db == 0.0 || delta <= db)
            }
            (Guarantee::RaoDp { theta, .. }, Guarantee::RaoDp { theta: b, .. }) => theta <= b,
            // A metric budget bounds ε per unit; it bounds the float-safety term ε₀ too when it states one
            // (a budget typed as "ε per km" states none, and the totals show ε₀ beside ε).
            (
                Guarantee::MetricDp { epsilon, additive_epsilon, delta_base: delta, .. },
                Guarantee::MetricDp { epsilon: eb, additive_epsilon: ab, delta_base: db, .. },
            ) => epsilon <= eb && (ab == 0.0 || additive_epsilon <= ab) && (db == 0.0 || delta <= db),
            (Guarantee::PureDp { epsilon, delta, .. }, Guarantee::PureDp { epsilon: eb, delta: db, .. }) => {
                epsilon <= eb && (db == 0.0 || delta <= db)
            }
            (a, b) => a.epsilon() <= b.epsilon(),
        })
    }
}

use crate::numerics::rounding::{add_up, div_up, fn_up, mul_up, sqrt_up};

fn delta_in_range(delta: f64) -> Fallible<()> {
    if (0.0..=1.0).contains(&delta) {
        Ok(())
    } else {
        Err(Error::InvalidParameter { name: Param::Delta, value: delta, reason: "must be in [0, 1]" })
    }
}

/// Σ δᵢ of the guarantees' δ's, rounded up and capped at 1 (a δ ≥ 1 is vacuous and stays true at 1).
fn delta_sum(costs: &[Guarantee]) -> f64 {
    sum_up(costs.iter().map(Guarantee::delta)).min(1.0)
}

/// Σ xᵢ, rounded up at every step.
fn sum_up(xs: impl IntoIterator<Item = f64>) -> f64 {
    xs.into_iter().fold(0.0, add_up)
}

/// √(Σ xᵢ²), rounded up at every step.
fn root_sum_squares_up(xs: impl IntoIterator<Item = f64>) -> f64 {
    sqrt_up(sum_up(xs.into_iter().map(|x| mul_up(x, x))))
}

fn incompatible(a: &Guarantee, b: &Guarantee, why: &'static str) -> Error {
    Error::Incompatible { left: a.to_string(), right: b.to_string(), why }
}

/// Errors unless `a` and `b` are the same notion (and, for metric DP, the same metric and unit).
fn same_kind(a: &Guarantee, b: &Guarantee) -> Fallible<()> {
    if a.notion() != b.notion() {
        return Err(incompatible(a, b, "different privacy notions; convert one first (`budget convert`)"));
    }
    if let (Guarantee::MetricDp { metric: m1, unit: u1, .. }, Guarantee::MetricDp { metric: m2, unit: u2, .. }) = (a, b)
        && (m1 != m2 || u1 != u2)
    {
        return Err(incompatible(a, b, "metric DP in different metrics or units does not add up"));
    }
    Ok(())
}

/// The family of a composition of Rao guarantees: the common family, or `Mixed`.
fn merged_family(gs: &[Guarantee]) -> RaoFamily {
    let mut families = gs.iter().filter_map(|g| match g {
        Guarantee::RaoDp { family, .. } => Some(*family),
        _ => None,
    });
    let first = families.next().unwrap_or(RaoFamily::Mixed);
    if families.all(|f| f == first) { first } else { RaoFamily::Mixed }
}

fn check_all(costs: &[Guarantee]) -> Fallible<Guarantee> {
    let first = *costs.first().ok_or(Error::InvalidParameter {
        name: Param::NumberOfGuarantees,
        value: 0.0,
        reason: "composition needs at least one guarantee",
    })?;
    for g in costs {
        g.validate()?;
        same_kind(&first, g)?;
    }
    Ok(first)
}

/// The narrowest neighbouring relation among pure guarantees (any record where there is none).
fn narrowest(costs: &[Guarantee]) -> crate::privacy::guarantee::Neighbouring {
    costs.iter().fold(Default::default(), |n, g| match g {
        Guarantee::PureDp { neighbouring, .. } => n.and(*neighbouring),
        _ => n,
    })
}

/// Sequential composition of independent releases on the same data: the total cost, rounded up.
///
/// Pure and metric ε, zCDP ρ and approximate (ε, δ) add (basic composition); GDP μ and Rao θ add in
/// quadrature, √(Σμᵢ²) (Dong, Roth & Su 2022, Cor. 3.3) and √(Σθᵢ²) (the Fisher–Rao distance in the product
/// family). All costs must be the same notion (metric DP: the same metric and unit); otherwise
/// [`Error::Incompatible`]. The negligible δ's of metric and pure guarantees add, Σδᵢ (basic composition of
/// (ε, δ)-DP, valid for adaptively chosen releases and as a filter: Rogers, Roth, Ullman & Vadhan 2016); for
/// metric DP the bases δ_B add, since Σᵢ δ_Bᵢ(1 + e^{εᵢd + ε₀ᵢ}) ≤ (Σᵢ δ_Bᵢ)(1 + e^{(Σεᵢ)d + Σε₀ᵢ}).
/// Proofs: `docs/proofs/accounting.md`.
pub fn compose(costs: &[Guarantee]) -> Fallible<Guarantee> {
    let first = check_all(costs)?;
    Ok(match first {
        Guarantee::MetricDp { metric, unit, .. } => Guarantee::metric_dp_in(
            sum_up(costs.iter().filter_map(Guarantee::epsilon)),
            metric,
            unit,
            sum_up(costs.iter().map(Guarantee::additive_epsilon)),
        )
        .with_delta(delta_sum(costs)),
        // A composition holds only for the pairs every part covers (`Neighbouring::and`).
        Guarantee::PureDp { .. } => Guarantee::PureDp {
            epsilon: sum_up(costs.iter().filter_map(Guarantee::epsilon)),
            neighbouring: narrowest(costs),
            delta: delta_sum(costs),
        },
        Guarantee::ApproxDp { .. } => Guarantee::ApproxDp {
            epsilon: sum_up(costs.iter().filter_map(Guarantee::epsilon)),
            delta: sum_up(costs.iter().map(|g| if let Guarantee::ApproxDp { delta, .. } = g { *delta } else { 0.0 })),
        },
        Guarantee::Zcdp { .. } => Guarantee::Zcdp {
            rho: sum_up(costs.iter().map(|g| if let Guarantee::Zcdp { rho } = g { *rho } else { 0.0 })),
        },
        // δ's add (`docs/proofs/accounting.md`, "GDP up to δ").
        Guarantee::Gdp { .. } => {
            Guarantee::Gdp { mu: root_sum_squares_up(costs.iter().filter_map(Guarantee::mu)), delta: delta_sum(costs) }
        }
        Guarantee::RaoDp { .. } => Guarantee::RaoDp {
            theta: root_sum_squares_up(
                costs.iter().map(|g| if let Guarantee::RaoDp { theta, .. } = g { *theta } else { 0.0 }),
            ),
            family: merged_family(costs),
        },
    })
}

/// Parallel composition: releases on parts of the data split by a **public key** cost the largest of their
/// costs, component by component: max cⱼ. The key must be public and unchanged between neighbouring data sets
/// (a site, a day), so that replacing one record changes one part. A partition by the records' own values is not
/// parallel: under replace-one neighbouring the replaced record can move between two parts, and the cost is then
/// the sum of those two (counterexample in `docs/proofs/accounting.md`, "Parallel composition").
pub fn compose_parallel(costs: &[Guarantee]) -> Fallible<Guarantee> {
    let first = check_all(costs)?;
    let max = |f: &dyn Fn(&Guarantee) -> f64| costs.iter().map(f).fold(0.0, f64::max);
    let eps = |g: &Guarantee| g.epsilon().unwrap_or(0.0);
    Ok(match first {
        Guarantee::MetricDp { metric, unit, .. } => {
            Guarantee::metric_dp_in(max(&eps), metric, unit, max(&Guarantee::additive_epsilon))
                .with_delta(max(&Guarantee::delta))
        }
        Guarantee::PureDp { .. } => {
            Guarantee::PureDp { epsilon: max(&eps), neighbouring: narrowest(costs), delta: max(&Guarantee::delta) }
        }
        Guarantee::ApproxDp { .. } => Guarantee::ApproxDp {
            epsilon: max(&eps),
            delta: max(&|g| if let Guarantee::ApproxDp { delta, .. } = g { *delta } else { 0.0 }),
        },
        Guarantee::Zcdp { .. } => {
            Guarantee::Zcdp { rho: max(&|g| if let Guarantee::Zcdp { rho } = g { *rho } else { 0.0 }) }
        }
        Guarantee::Gdp { .. } => Guarantee::Gdp { mu: max(&|g| g.mu().unwrap_or(0.0)), delta: max(&Guarantee::delta) },
        Guarantee::RaoDp { .. } => Guarantee::RaoDp {
            theta: max(&|g| if let Guarantee::RaoDp { theta, .. } = g { *theta } else { 0.0 }),
            family: merged_family(costs),
        },
    })
}

/// Advanced composition of approximate (or pure, as δ = 0) guarantees with slack δ′ (Dwork, Rothblum & Vadhan
/// 2010; heterogeneous form, Dwork & Roth 2014 Thm 3.20 proof): the composition is (ε′, Σδᵢ + δ′)-DP with
/// ε′ = √(2 ln(1/δ′)·Σεᵢ²) + Σ εᵢ(e^{εᵢ} − 1). Better than [`compose`] for many small εᵢ; the smaller of the
/// two is a valid choice, and both are valid at once only as the worse of the pair.
pub fn compose_advanced(costs: &[Guarantee], delta_slack: f64) -> Fallible<Guarantee> {
    if !(delta_slack > 0.0 && delta_slack < 1.0) {
        return Err(Error::InvalidParameter {
            name: Param::DeltaSlack,
            value: delta_slack,
            reason: "must be in (0, 1)",
        });
    }
    let as_approx = costs
        .iter()
        .map(|g| convert(g, Target::Approx { delta: None, epsilon: None }))
        .collect::<Fallible<Vec<_>>>()?;
    let eps: Vec<f64> = as_approx.iter().filter_map(Guarantee::epsilon).collect();
    let deltas = as_approx.iter().map(|g| if let Guarantee::ApproxDp { delta, .. } = g { *delta } else { 0.0 });
    let log_inv = fn_up(-delta_slack.ln());
    let quad = mul_up(2.0 * log_inv, sum_up(eps.iter().map(|e| mul_up(*e, *e))));
    let drift = sum_up(eps.iter().map(|e| mul_up(*e, fn_up(e.exp_m1()))));
    Ok(Guarantee::ApproxDp { epsilon: add_up(sqrt_up(quad), drift), delta: add_up(sum_up(deltas), delta_slack) })
}

/// What to convert a guarantee into, with the parameter the conversion needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// Metric DP in this metric and unit (only from metric DP in the same metric and unit).
    Metric {
        /// The metric.
        metric: Metric,
        /// The unit.
        unit: &'static str,
    },
    /// Pure DP; from metric DP needs the `diameter` of the input space (the largest distance between two
    /// records), in the guarantee's unit.
    Pure {
        /// Diameter of the input space, in the metric-DP guarantee's unit.
        diameter: Option<f64>,
    },
    /// Approximate DP. From pure DP: (ε, 0). From zCDP, GDP and Gaussian Rao: needs `delta` (gives the ε at
    /// that δ) or `epsilon` (gives the δ at that ε).
    Approx {
        /// The δ wanted.
        delta: Option<f64>,
        /// The ε wanted.
        epsilon: Option<f64>,
    },
    /// zCDP.
    Zcdp,
    /// GDP.
    Gdp,
    /// Rao DP (only from Rao DP).
    Rao,
}

impl Target {
    /// The notion converted to.
    pub fn notion(self) -> Notion {
        match self {
            Target::Metric { .. } => Notion::Metric,
            Target::Pure { .. } => Notion::Pure,
            Target::Approx { .. } => Notion::Approx,
            Target::Zcdp => Notion::Zcdp,
            Target::Gdp => Notion::Gdp,
            Target::Rao => Notion::Rao,
        }
    }
}

fn refuse(g: &Guarantee, to: Notion, why: &'static str) -> Error {
    Error::Inconvertible { from: g.to_string(), to: to.as_str(), why }
}

fn check_delta(delta: f64) -> Fallible<f64> {
    if delta > 0.0 && delta < 1.0 {
        Ok(delta)
    } else {
        Err(Error::InvalidParameter { name: Param::Delta, value: delta, reason: "must be in (0, 1)" })
    }
}

fn check_epsilon(epsilon: f64) -> Fallible<f64> {
    if epsilon.is_finite() && epsilon >= 0.0 {
        Ok(epsilon)
    } else {
        Err(Error::InvalidParameter { name: Param::Epsilon, value: epsilon, reason: "must be a finite number >= 0" })
    }
}

/// The GDP μ implied by pure ε-DP: μ = −2Φ⁻¹(1/(1 + e^ε)) (the Gaussian trade-off curve G_μ passes through
/// the kink (α*, α*), α* = 1/(1 + e^ε), of ε-DP's piecewise-linear curve and, being convex and symmetric, lies
/// below it everywhere; `docs/proofs/accounting.md`).
fn gdp_of_pure(epsilon: f64) -> f64 {
    use crate::analysis::gaussian_dp::normal_lower_tail_and_density;
    use statrs::distribution::{ContinuousCDF, Normal};
    if epsilon == 0.0 {
        return 0.0;
    }
    let alpha = 1.0 / (1.0 + epsilon.exp());
    if alpha < 1e-300 {
        // Φ(−t) ≤ e^{−t²/2} gives −Φ⁻¹(α) ≤ √(2 ln(1/α)) ≤ √(2(ε + ln 2)): a valid, slightly larger μ.
        return mul_up(2.0, sqrt_up(mul_up(2.0, fn_up(epsilon + std::f64::consts::LN_2))));
    }
    // statrs' Φ⁻¹ (and its Φ) are good to about 1e-10 relative only; two Newton steps on Φ(z) = α with the
    // crate's own Φ (accurate to ~1e-15 in the lower tail) bring z to full precision, and the 1e-10 margin
    // covers what remains.
    let mut z = Normal::standard().inverse_cdf(alpha).min(0.0);
    for _ in 0..2 {
        let (cdf, pdf) = normal_lower_tail_and_density(z);
        z = (z - (cdf - alpha) / pdf).min(0.0);
    }
    (-2.0 * z * (1.0 + 1e-10)).next_up()
}

/// The ε of ρ-zCDP at δ: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3), rounded up.
fn zcdp_epsilon(rho: f64, delta: f64) -> f64 {
    add_up(rho, mul_up(2.0, sqrt_up(mul_up(rho, fn_up(-delta.ln())))))
}

/// The δ of ρ-zCDP at ε > ρ: δ = exp(−(ε − ρ)²/(4ρ)) (the inverse of [`zcdp_epsilon`]), rounded up.
fn zcdp_delta(rho: f64, epsilon: f64) -> Fallible<f64> {
    if rho == 0.0 {
        return Ok(0.0);
    }
    if epsilon <= rho {
        return Err(Error::InvalidParameter {
            name: Param::Epsilon,
            value: epsilon,
            reason: "must exceed rho for zCDP",
        });
    }
    // (ε − ρ) rounded down keeps the exponent's magnitude low, so δ high.
    let gap = (epsilon - rho).next_down();
    Ok(fn_up((-(gap * gap).next_down() / mul_up(4.0, rho)).exp()).min(1.0))
}

/// Radians per `unit` of `metric`, for the units one distance can be stated in: rad and deg on SO(3) and on
/// spheres; on great-circle distance also km (the Earth, as `latlon` measures it), h and min (the 24-hour
/// clock, as `timeofday` measures it). `None` for other pairs.
pub fn radians_per_unit(metric: Metric, unit: &str) -> Option<f64> {
    use crate::space::sphere::{EARTH_RADIUS_KM, Periodic};
    let hour = Periodic::HOURS_OF_DAY.radians_per_unit();
    match (metric, unit) {
        (Metric::So3Geodesic | Metric::SphereSurface, "rad") => Some(1.0),
        (Metric::So3Geodesic | Metric::SphereSurface, "deg") => Some(std::f64::consts::PI / 180.0),
        (Metric::SphereSurface, "km") => Some(1.0 / EARTH_RADIUS_KM),
        (Metric::SphereSurface, "h") => Some(hour),
        (Metric::SphereSurface, "min") => Some(hour / 60.0),
        _ => None,
    }
}

/// Converts a guarantee into `to`, where that holds; otherwise [`Error::Inconvertible`] says why.
/// The result is rounded in the conservative direction. Proofs: `docs/proofs/accounting.md`.
pub fn convert(g: &Guarantee, to: Target) -> Fallible<Guarantee> {
    let g = g.validate()?;
    let to_notion = to.notion();
    match (g, to) {
        (
            Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, delta_base: delta, .. },
            Target::Metric { metric: m, unit: u },
        ) => {
            if metric == m && unit == u {
                return Ok(g);
            }
            match (metric == m, radians_per_unit(metric, unit), radians_per_unit(m, u)) {
                // A unit is a unit: ε per `unit` is ε·(b/a) per `u` when one `u` is b/a of `unit`.
                (true, Some(a), Some(b)) => {
                    Ok(Guarantee::metric_dp_in(mul_up(epsilon, div_up(b, a)), m, u, additive_epsilon).with_delta(delta))
                }
                (true, _, _) => {
                    Err(refuse(&g, to_notion, "these units do not measure the same distance on this metric"))
                }
                (false, _, _) => {
                    Err(refuse(&g, to_notion, "metric DP in one metric says nothing in another; restate it explicitly"))
                }
            }
        }
        // Two records are at most the diameter apart, where the metric δ is δ_B·(1 + e^{ε·D + ε₀}).
        (Guarantee::MetricDp { epsilon, additive_epsilon, .. }, Target::Pure { diameter }) => match diameter {
            Some(d) if d.is_finite() && d > 0.0 => Ok(Guarantee::pure(add_up(mul_up(epsilon, d), additive_epsilon))
                .with_delta(g.metric_delta_at(d).unwrap_or(0.0))),
            Some(d) => {
                Err(Error::InvalidParameter { name: Param::Diameter, value: d, reason: "must be finite and > 0" })
            }
            None => Err(refuse(&g, to_notion, "needs the diameter of the input space (ε·d ≤ ε·diameter)")),
        },
        (Guarantee::MetricDp { .. }, _) => Err(refuse(
            &g,
            to_notion,
            "metric DP bounds the loss per unit of distance; convert to pure DP with a diameter first",
        )),
        (_, Target::Metric { .. }) => {
            Err(refuse(&g, to_notion, "a guarantee between neighbouring data sets is not a metric-DP guarantee"))
        }
        (Guarantee::PureDp { .. }, Target::Pure { .. })
        | (Guarantee::Zcdp { .. }, Target::Zcdp)
        | (Guarantee::Gdp { .. }, Target::Gdp)
        | (Guarantee::RaoDp { .. }, Target::Rao) => Ok(g),
        (Guarantee::PureDp { epsilon, delta, .. }, Target::Approx { .. }) => Ok(Guarantee::ApproxDp { epsilon, delta }),
        // A pure guarantee's δ > 0 is the samplers' negligible events: the release is within total variation δ
        // of an ε-DP one, hence μ-GDP up to the same δ (`docs/proofs/accounting.md`, "GDP up to δ"). zCDP has
        // no δ to carry it: the route is through GDP or (ε, δ).
        (Guarantee::PureDp { delta, .. }, Target::Zcdp) if delta > 0.0 => Err(refuse(
            &g,
            to_notion,
            "pure DP up to a delta > 0 (the samplers' negligible events) is GDP up to that delta, but a zCDP \
             guarantee has no delta to carry it; convert to gdp or to (epsilon, delta) instead",
        )),
        (Guarantee::PureDp { epsilon, .. }, Target::Zcdp) => {
            Ok(Guarantee::Zcdp { rho: div_up(mul_up(epsilon, epsilon), 2.0) })
        }
        (Guarantee::PureDp { epsilon, delta, .. }, Target::Gdp) => {
            Ok(Guarantee::gdp_with_delta(gdp_of_pure(epsilon), delta))
        }
        (Guarantee::ApproxDp { .. }, Target::Approx { .. }) => Ok(g),
        (Guarantee::ApproxDp { .. }, _) => Err(refuse(
            &g,
            to_notion,
            "(ε, δ)-DP allows a δ-probability of unbounded loss, so it implies no pure, zCDP, GDP or Rao bound",
        )),
        (Guarantee::Zcdp { rho }, Target::Approx { delta, epsilon }) => match (delta, epsilon) {
            (Some(d), _) => Ok(Guarantee::ApproxDp { epsilon: zcdp_epsilon(rho, check_delta(d)?), delta: d }),
            (None, Some(e)) => Ok(Guarantee::ApproxDp { epsilon: e, delta: zcdp_delta(rho, check_epsilon(e)?)? }),
            (None, None) => Err(refuse(&g, to_notion, "needs a delta (or an epsilon) to pick a point on the curve")),
        },
        (Guarantee::Zcdp { .. }, _) => {
            Err(refuse(&g, to_notion, "zCDP implies (ε, δ)-DP only; it bounds no pure, GDP or Rao quantity"))
        }
        (Guarantee::Gdp { delta, .. }, Target::Zcdp) if delta > 0.0 => Err(refuse(
            &g,
            to_notion,
            "GDP up to a delta > 0 implies zCDP only up to that delta, which a zCDP guarantee cannot carry; \
             convert to (epsilon, delta) instead",
        )),
        (Guarantee::Gdp { mu, .. }, Target::Zcdp) => Ok(Guarantee::Zcdp { rho: div_up(mul_up(mu, mu), 2.0) }),
        // μ-GDP up to δ is (ε, δ_{G_μ}(ε) + δ·(1 + e^ε))-DP at every ε (`docs/proofs/accounting.md`, "GDP up
        // to δ"); with δ = 0 the exact curve.
        (Guarantee::Gdp { mu, delta: extra }, Target::Approx { delta, epsilon }) => {
            let plus = |point: Guarantee| match point {
                Guarantee::ApproxDp { epsilon: e, delta: d } if extra > 0.0 => Guarantee::ApproxDp {
                    epsilon: e,
                    delta: add_up(d, crate::privacy::float_safety::negligible_delta(extra, e)).min(1.0),
                },
                p => p,
            };
            match (delta, epsilon) {
                (Some(d), _) => Ok(plus(Guarantee::ApproxDp { epsilon: gdp_epsilon(mu, check_delta(d)?)?, delta: d })),
                (None, Some(e)) => {
                    Ok(plus(Guarantee::ApproxDp { epsilon: e, delta: gdp_delta(mu, check_epsilon(e)?)? }))
                }
                (None, None) => {
                    Err(refuse(&g, to_notion, "needs a delta (or an epsilon) to pick a point on the curve"))
                }
            }
        }
        (Guarantee::Gdp { .. }, _) => Err(refuse(
            &g,
            to_notion,
            "GDP implies zCDP and (ε, δ)-DP; it bounds no pure ε, and no Rao distance in a given family",
        )),
        (Guarantee::RaoDp { theta, family: RaoFamily::Gaussian }, target) => {
            // θ-Rao DP in the Gaussian location family with fixed σ is θ-GDP (docs/math.md §4).
            convert(&Guarantee::gdp(theta), target)
        }
        (Guarantee::RaoDp { .. }, _) => Err(refuse(
            &g,
            to_notion,
            "Rao DP outside the Gaussian family bounds a Fisher-Rao distance, not a test; \
             use the standard guarantee the mechanism reports beside it",
        )),
        (Guarantee::PureDp { .. }, Target::Rao) => {
            Err(refuse(&g, to_notion, "a Rao distance belongs to a parametric family; pure DP names none"))
        }
    }
}

/// The cost of one release (all the guarantees its mechanism reports) in the notion of `to`: the smallest
/// of the guarantees that are of, or convert to, that notion. [`Error::Inconvertible`] when none does.
pub fn express(release: &[Guarantee], to: Target) -> Fallible<Guarantee> {
    let mut best: Option<Guarantee> = None;
    let mut last_err = None;
    for g in release {
        match convert(g, to) {
            Ok(c) => {
                best = Some(match best {
                    None => c,
                    Some(b) if smaller(&c, &b) => c,
                    Some(b) => b,
                })
            }
            Err(e) => last_err = Some(e),
        }
    }
    best.ok_or_else(|| {
        last_err.unwrap_or(Error::InvalidParameter {
            name: Param::NumberOfGuarantees,
            value: 0.0,
            reason: "a release must report at least one guarantee",
        })
    })
}

/// The guarantees in other notions that several releases imply together, each labelled with its route:
/// each release converted first and then composed in the target notion (`zcdp`, `gdp`; ten pure releases
/// are much cheaper composed in GDP than their pure total converted), the zCDP and GDP totals stated as (ε, δ)
/// at `delta` (`approx from the … total`), and for pure releases the basic (ε, 0) (`approx, basic`). A Rao
/// total is never left alone: for Rao costs the `zcdp` and `gdp` routes are listed even when refused, so the
/// refusal is the answer. Approximate and metric costs imply nothing further here.
pub fn implied(costs: &[Guarantee], parallel: bool, delta: f64) -> Vec<(String, Fallible<Guarantee>)> {
    let Some(first) = costs.first() else { return Vec::new() };
    let notion = first.notion();
    let combine = |gs: &[Guarantee]| if parallel { compose_parallel(gs) } else { compose(gs) };
    let route =
        |t: Target| costs.iter().map(|g| convert(g, t)).collect::<Fallible<Vec<_>>>().and_then(|each| combine(&each));
    let mut out = Vec::new();
    if matches!(notion, Notion::Approx | Notion::Metric) {
        return out;
    }
    for (name, target) in [("zcdp", Target::Zcdp), ("gdp", Target::Gdp)] {
        if target.notion() == notion {
            continue;
        }
        let total = route(target);
        if total.is_ok() || notion == Notion::Rao {
            out.push((name.to_string(), total));
        }
    }
    let mut totals = Vec::new();
    if matches!(notion, Notion::Zcdp | Notion::Gdp) {
        totals.push((notion.as_str().to_string(), combine(costs)));
    }
    totals.extend(out.iter().filter_map(|(name, g)| g.as_ref().ok().map(|g| (name.clone(), Ok(*g)))));
    let at_delta = Target::Approx { delta: Some(delta), epsilon: None };
    for (name, total) in totals {
        out.push((format!("approx from the {name} total"), total.and_then(|g| convert(&g, at_delta))));
    }
    if notion == Notion::Pure {
        out.push(("approx, basic".to_string(), route(Target::Approx { delta: None, epsilon: None })));
    }
    out
}

/// Orders two costs of the same notion: smaller δ first, then the smaller main parameter; among equal Rao θ,
/// the Gaussian family first (it converts to standard notions).
fn smaller(a: &Guarantee, b: &Guarantee) -> bool {
    match (*a, *b) {
        (Guarantee::ApproxDp { epsilon: e1, delta: d1 }, Guarantee::ApproxDp { epsilon: e2, delta: d2 }) => {
            (d1, e1) < (d2, e2)
        }
        (Guarantee::Zcdp { rho: x }, Guarantee::Zcdp { rho: y }) => x < y,
        (Guarantee::Gdp { mu: x, delta: d1 }, Guarantee::Gdp { mu: y, delta: d2 }) => (d1, x) < (d2, y),
        (Guarantee::RaoDp { theta: x, family: f }, Guarantee::RaoDp { theta: y, .. }) => {
            x < y || (x == y && f == RaoFamily::Gaussian)
        }
        (a, b) => a.epsilon() < b.epsilon(),
    }
}

/// A metric guarantee's Rényi family: valid parameters, and a law on the space the guarantee is stated in
/// (the sphere for VMF, chordal or great-circle, and Purkayastha, great-circle; SO(3) for Laplace and Bingham).
fn family_fits(family: crate::analysis::renyi_local::LocalFamily, metric: Metric) -> Fallible<()> {
    use crate::analysis::renyi_local::LocalFamily;
    family.validate()?;
    let fits = match family {
        LocalFamily::Vmf { .. } => matches!(metric, Metric::SphereChordal | Metric::SphereSurface),
        LocalFamily::Purkayastha { .. } => metric == Metric::SphereSurface,
        LocalFamily::LaplaceSo3 { .. } | LocalFamily::BinghamSo3 { .. } => metric == Metric::So3Geodesic,
    };
    if fits {
        Ok(())
    } else {
        Err(Error::NotApplicable(format!("the Rényi family {family:?} is not a law in the {metric:?} metric's space")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_guarantees_convert_between_units_of_one_distance() {
        let per_rad = Guarantee::metric_dp_in(6371.0088, Metric::SphereSurface, "rad", 1e-4);
        let per_km = convert(&per_rad, Target::Metric { metric: Metric::SphereSurface, unit: "km" }).unwrap();
        let Guarantee::MetricDp { epsilon, unit, additive_epsilon, .. } = per_km else { panic!("{per_km:?}") };
        assert!(unit == "km" && (epsilon - 1.0).abs() < 1e-12 && epsilon >= 1.0 && additive_epsilon == 1e-4);
        let per_h = convert(&per_rad, Target::Metric { metric: Metric::SphereSurface, unit: "h" }).unwrap();
        assert!((per_h.epsilon().unwrap() - 6371.0088 * std::f64::consts::PI / 12.0).abs() < 1e-9);
        // Kilometres mean nothing on SO(3), and metrics never convert into one another.
        let so3 = Guarantee::metric_dp_in(1.0, Metric::So3Geodesic, "rad", 0.0);
        assert!(convert(&so3, Target::Metric { metric: Metric::So3Geodesic, unit: "km" }).is_err());
        assert!(convert(&so3, Target::Metric { metric: Metric::So3Geodesic, unit: "deg" }).is_ok());
        assert!(convert(&so3, Target::Metric { metric: Metric::SphereSurface, unit: "rad" }).is_err());
    }

    #[test]
    fn sums_round_up() {
        // 0.1 ten times sums to 0.9999999999999999 in round-to-nearest; the accountant must not say < 1.
        let costs = vec![Guarantee::pure(0.1); 10];
        let total = compose(&costs).unwrap().epsilon().unwrap();
        assert!((1.0..1.0 + 1e-14).contains(&total), "{total}");
        let naive: f64 = costs.iter().filter_map(Guarantee::epsilon).sum();
        assert!(naive < 1.0);
    }

    #[test]
    fn notions_parse() {
        for n in Notion::ALL {
            assert_eq!(Notion::parse(n.as_str()), Some(n));
        }
        assert_eq!(Notion::parse("renyi"), None);
        assert!(!Notion::Rao.has_testing_meaning());
    }

    #[test]
    fn refuses_mixing() {
        let a = Guarantee::pure(1.0);
        let b = Guarantee::Zcdp { rho: 1.0 };
        assert!(matches!(compose(&[a, b]), Err(Error::Incompatible { .. })));
        let m1 = Guarantee::metric_dp(1.0, Metric::So3Geodesic);
        let m2 = Guarantee::metric_dp(1.0, Metric::SphereSurface);
        assert!(matches!(compose(&[m1, m2]), Err(Error::Incompatible { .. })));
        assert!(compose(&[]).is_err());
        assert!(compose(&[Guarantee::pure(f64::NAN)]).is_err());
    }
}
