//! Guarantees as data: every mechanism returns one, the CLI prints it and writes it into reports.

use crate::analysis::renyi_local::LocalFamily;
use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::space::metric::Metric;

/// Units a metric-DP guarantee can be stated per. Units are `&'static str` so that [`Guarantee`] stays `Copy`;
/// deserialisation maps a unit name back onto this list (and refuses any other).
pub const UNITS: [&str; 6] = ["rad", "unit", "deg", "h", "km", "min"];

/// A unit's name. A type alias rather than `&'static str` in the field so that serde's derive does not treat
/// the field as borrowed from the input (which would require `'de: 'static`); `deserialize_unit` interns it.
pub type UnitName = &'static str;

/// The statically known spelling of a unit name, if it is one of [`UNITS`].
pub fn static_unit(name: &str) -> Option<&'static str> {
    UNITS.iter().copied().find(|u| *u == name)
}

fn deserialize_unit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let name = String::deserialize(d)?;
    static_unit(&name)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown unit {name:?}; expected one of {UNITS:?}")))
}

/// The parametric family a Rao-DP guarantee is measured in. The Fisher–Rao distance is a property of a family,
/// so θ-Rao DP for a Gaussian means something different from θ-Rao DP for a Laplace; only the Gaussian family
/// converts to a standard notion (θ-Rao Gaussian = θ-GDP, docs/math.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "snake_case")]
pub enum RaoFamily {
    /// Location family of the Gaussian N(μ, σ²I), σ fixed: d_R = ‖Δμ‖₂/σ.
    Gaussian,
    /// Location family of the Laplace, density ∝ exp(−|x − μ|/b): d_R = |Δμ|/b.
    Laplace,
    /// Location family of the generalized Gaussian of degree N, density ∝ exp(−(|x − μ|/s)^N):
    /// d_R = |Δμ|/s·√(N²Γ(2 − 1/N)/Γ(1/N)).
    GeneralizedGaussian {
        /// The degree N ≥ 1.
        order: u32,
    },
    /// A composition over different families: the product family's distance, with no standard conversion.
    Mixed,
}

impl RaoFamily {
    /// Human description.
    pub fn describe(self) -> String {
        match self {
            RaoFamily::Gaussian => "Gaussian location family".into(),
            RaoFamily::Laplace => "Laplace location family".into(),
            RaoFamily::GeneralizedGaussian { order } => format!("generalized Gaussian (N = {order}) location family"),
            RaoFamily::Mixed => "product of different location families".into(),
        }
    }
}

/// The pairs of data sets a pure guarantee compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Neighbouring {
    /// Any two data sets that differ in one record (replacing it).
    #[default]
    ReplaceOneRow,
    /// Only data sets that differ in one record inside the public ball (or bounds), replaced by another such
    /// record, with the same records outside it: a mean that leaves the records outside out (`outside = drop`).
    /// Whether a record lies outside, and how many do, is not protected; the noise scale is set by the number
    /// inside, which σ and Δ reveal (`docs/proofs/mean_outside_ball.md` §2).
    ReplaceOneRowInBall,
}

impl Neighbouring {
    /// Whether these are all pairs that differ in one record (the default, not serialised).
    pub fn is_replace_one_row(&self) -> bool {
        *self == Neighbouring::ReplaceOneRow
    }

    /// The narrower of two (a composition holds only where both parts do).
    pub fn and(self, other: Neighbouring) -> Neighbouring {
        if self == Neighbouring::ReplaceOneRow { other } else { self }
    }
}

impl Guarantee {
    /// Pure ε-DP for any two data sets that differ in one record.
    pub const fn pure(epsilon: f64) -> Guarantee {
        Guarantee::PureDp { epsilon, neighbouring: Neighbouring::ReplaceOneRow, delta: 0.0 }
    }

    /// μ-GDP, with no δ.
    pub const fn gdp(mu: f64) -> Guarantee {
        Guarantee::Gdp { mu, delta: 0.0 }
    }

    /// μ-GDP up to δ: every test has β ≥ G_μ(α + δ) − δ ([`Guarantee::Gdp`]; `docs/proofs/accounting.md`,
    /// "GDP up to δ").
    pub const fn gdp_with_delta(mu: f64, delta: f64) -> Guarantee {
        Guarantee::Gdp { mu, delta }
    }

    /// The μ of a GDP guarantee; `None` for other notions.
    pub fn mu(&self) -> Option<f64> {
        match *self {
            Guarantee::Gdp { mu, .. } => Some(mu),
            _ => None,
        }
    }
}

/// A privacy guarantee, as a value.
///
/// Serialised with a `notion` tag (`metric_dp`, `pure_dp`, `approx_dp`, `zcdp`, `gdp`, `rao_dp`) and snake_case
/// fields; the accounting rules for each notion are in [`crate::privacy::accounting`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "notion", rename_all = "snake_case")]
pub enum Guarantee {
    /// Metric (ε·d) differential privacy: `P[M(x) ∈ Z] ≤ exp(ε·d(x, x′))·P[M(x′) ∈ Z]` for all inputs
    /// x, x′ and events Z, with ε per unit of `metric`.
    ///
    /// A float-safe release adds a small `additive_epsilon` ε₀ that does not grow with the distance:
    /// `P[M(x) ∈ Z] ≤ exp(ε·d(x, x′) + ε₀)·P[M(x′) ∈ Z]`, the price of rounding every output onto the public
    /// `grid` (`docs/proofs/float_safety.md`).
    MetricDp {
        /// Privacy loss per unit of distance.
        epsilon: f64,
        /// The distance d.
        metric: Metric,
        /// Unit of d (and so ε is "per" this unit).
        #[serde(deserialize_with = "deserialize_unit")]
        unit: UnitName,
        /// Privacy loss ε₀ ≥ 0 added to ε·d for every pair of inputs (0 for a guarantee typed by a user).
        #[serde(default, skip_serializing_if = "is_zero")]
        additive_epsilon: f64,
        /// The public grid every release lies on, when the guarantee is a release's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grid: Option<Grid>,
        /// δ_B ≥ 0, a bound, under every input, on the probability of the samplers' negligible events, where
        /// the float bounds are not claimed (`docs/proofs/float_safety.md` §6). Between inputs d apart the
        /// additive slack is δ_B·(1 + e^{ε·d + ε₀}): `P[M(x) ∈ Z] ≤ e^{ε·d + ε₀}·P[M(x′) ∈ Z] +
        /// δ_B·(1 + e^{ε·d + ε₀})` ([`Guarantee::metric_delta_at`]). Serialised (key `delta_base`) only when > 0.
        #[serde(default, skip_serializing_if = "is_zero")]
        delta_base: f64,
        /// The noise law of a local release whose Rényi curve is known (its family and parameters, e.g.
        /// `{"family": "vmf", "dim": 3, "kappa": 0.1}`): with this guarantee's ε₀ and ε·diameter + ε₀ it gives
        /// the release's (α, ε(α))-RDP curve between any two inputs ([`crate::privacy::renyi::RdpCurve::of_guarantee`],
        /// `docs/proofs/renyi_local.md` §4), which the ledger composes order by order. Serialised only when
        /// present; dropped by composition and by every change of metric other than a change of unit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        renyi: Option<LocalFamily>,
    },
    /// Pure ε-differential privacy: `P[M(D) ∈ Z] ≤ exp(ε)·P[M(D′) ∈ Z]` for data sets D, D′ that differ in
    /// one record (replacing it), or the narrower pairs `neighbouring` names. ε = 0 is perfect privacy (output
    /// independent of the data).
    PureDp {
        /// Privacy loss.
        epsilon: f64,
        /// Which pairs of data sets the bound holds for (serialised only when narrower than any record).
        #[serde(default, skip_serializing_if = "Neighbouring::is_replace_one_row")]
        neighbouring: Neighbouring,
        /// Additive slack δ ≥ 0 between neighbours, `P[M(D) ∈ Z] ≤ e^ε·P[M(D′) ∈ Z] + δ`: for a release, the
        /// samplers' negligible events, δ = δ_B·(1 + e^ε) (`docs/proofs/float_safety.md` §6): the release equals
        /// an ε-DP one except on events of probability ≤ δ under every input, which is how the ledger's zCDP and
        /// GDP accounts read it (a general (ε, δ)-DP claim is an [`Guarantee::ApproxDp`]). Serialised only
        /// when > 0.
        #[serde(default, skip_serializing_if = "is_zero")]
        delta: f64,
    },
    /// Approximate (ε, δ)-differential privacy: `P[M(D) ∈ Z] ≤ exp(ε)·P[M(D′) ∈ Z] + δ` for neighbouring D, D′.
    ApproxDp {
        /// Privacy loss.
        epsilon: f64,
        /// Additive slack, in [0, 1).
        delta: f64,
    },
    /// ρ-zero-concentrated DP (Bun & Steinke 2016): D_α(M(D) ‖ M(D′)) ≤ ρα for every Rényi order α > 1.
    Zcdp {
        /// ρ ≥ 0.
        rho: f64,
    },
    /// μ-Gaussian DP (Dong, Roth & Su 2022): testing M(D) against M(D′) is at least as hard as testing
    /// N(0, 1) against N(μ, 1): every test's type-II error β at type-I error α has β ≥ G_μ(α).
    ///
    /// With `delta` δ > 0 ("μ-GDP up to δ"), β ≥ G_μ(α + δ) − δ, equivalently the (ε, δ) profile is at most
    /// δ_{G_μ}(ε) + δ·(1 + e^ε) for every ε: what a release within total variation δ of a μ-GDP one satisfies,
    /// and what the Riemannian Gaussian's certificate leaves beyond its numerical range
    /// (`docs/proofs/accounting.md`, "GDP up to δ"; `docs/proofs/riemannian_gaussian.md` §5).
    Gdp {
        /// μ ≥ 0.
        mu: f64,
        /// δ ≥ 0, the total-variation slack (serialised, key `delta`, only when > 0).
        #[serde(default, skip_serializing_if = "is_zero")]
        delta: f64,
    },
    /// θ-Rao DP (Soto et al.): the Fisher–Rao distance between the output laws of neighbouring inputs, within
    /// the mechanism's parametric `family`, is at most θ. A distance, not a hypothesis-testing bound: see
    /// `docs/accounting.md` for what it does and does not promise.
    RaoDp {
        /// θ ≥ 0.
        theta: f64,
        /// The family the distance is measured in.
        #[serde(flatten)]
        family: RaoFamily,
    },
}

impl Guarantee {
    /// Metric DP with `epsilon` per unit of `metric` (no additive term, no grid).
    pub fn metric_dp(epsilon: f64, metric: Metric) -> Self {
        Guarantee::MetricDp {
            epsilon,
            metric,
            unit: metric.unit(),
            additive_epsilon: 0.0,
            grid: None,
            delta_base: 0.0,
            renyi: None,
        }
    }

    /// Metric DP per `unit` of `metric` with an additive term and no grid (a budget or a total).
    pub fn metric_dp_in(epsilon: f64, metric: Metric, unit: UnitName, additive_epsilon: f64) -> Self {
        Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, grid: None, delta_base: 0.0, renyi: None }
    }

    /// The float-safe release guarantee: ε per unit of `metric` plus `additive_epsilon`, outputs on `grid`.
    pub fn snapped_metric_dp(epsilon: f64, metric: Metric, additive_epsilon: f64, grid: Grid) -> Self {
        Guarantee::MetricDp {
            epsilon,
            metric,
            unit: metric.unit(),
            additive_epsilon,
            grid: Some(grid),
            delta_base: 0.0,
            renyi: None,
        }
    }

    /// A local release's metric guarantee with the noise law its Rényi curve is computed from
    /// (`docs/proofs/renyi_local.md` §4, §6); other notions are returned unchanged.
    pub fn with_renyi(self, family: LocalFamily) -> Guarantee {
        match self {
            Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, grid, delta_base, .. } => {
                Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, grid, delta_base, renyi: Some(family) }
            }
            g => g,
        }
    }

    /// The noise law a metric guarantee carries for its Rényi curve, if any.
    pub fn renyi(&self) -> Option<LocalFamily> {
        match *self {
            Guarantee::MetricDp { renyi, .. } => renyi,
            _ => None,
        }
    }

    /// The additive ε₀ of a metric guarantee (0 for other notions).
    pub fn additive_epsilon(&self) -> f64 {
        match *self {
            Guarantee::MetricDp { additive_epsilon, .. } => additive_epsilon,
            _ => 0.0,
        }
    }

    /// The δ field: the additive δ of a pure or approximate guarantee; for a metric guarantee its base δ_B,
    /// whose δ between inputs d apart is [`Guarantee::metric_delta_at`]; a GDP guarantee's total-variation δ;
    /// 0 for the other notions. Sums of these are what composition adds (`docs/proofs/accounting.md`, "The
    /// negligible δ", "GDP up to δ").
    pub fn delta(&self) -> f64 {
        match *self {
            Guarantee::MetricDp { delta_base: delta, .. }
            | Guarantee::PureDp { delta, .. }
            | Guarantee::ApproxDp { delta, .. }
            | Guarantee::Gdp { delta, .. } => delta,
            _ => 0.0,
        }
    }

    /// The additive δ of a metric guarantee between inputs `distance` apart (in its unit):
    /// δ_B·(1 + e^{ε·d + ε₀}), rounded up and capped at 1 (`docs/proofs/float_safety.md` §6, "Per pair");
    /// `None` for other notions.
    pub fn metric_delta_at(&self, distance: f64) -> Option<f64> {
        use crate::numerics::rounding::{add_up, fn_up, mul_up};
        let Guarantee::MetricDp { epsilon, additive_epsilon, delta_base, .. } = *self else { return None };
        if delta_base <= 0.0 {
            return Some(0.0);
        }
        let loss = add_up(mul_up(epsilon, distance.max(0.0)), additive_epsilon);
        let delta = mul_up(delta_base, add_up(1.0, fn_up(loss.exp())));
        Some(if delta.is_finite() { delta.min(1.0) } else { 1.0 })
    }

    /// This guarantee with `extra` added to its δ field ([`Guarantee::delta`]; rounded up: a larger δ is a
    /// weaker, still true claim). For a metric guarantee `extra` is a base δ_B (an event's probability); for
    /// a pure or approximate one, an additive δ (`float_safety::with_negligible_events` converts an event's
    /// probability into one); for a GDP one, a total-variation δ. Notions without a δ field are returned
    /// unchanged.
    pub fn with_delta(self, extra: f64) -> Guarantee {
        let add = |d: f64| crate::numerics::rounding::add_up(d, extra).min(1.0);
        match self {
            Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, grid, delta_base, renyi } => {
                Guarantee::MetricDp {
                    epsilon,
                    metric,
                    unit,
                    additive_epsilon,
                    grid,
                    delta_base: add(delta_base),
                    renyi,
                }
            }
            Guarantee::PureDp { epsilon, neighbouring, delta } => {
                Guarantee::PureDp { epsilon, neighbouring, delta: add(delta) }
            }
            Guarantee::ApproxDp { epsilon, delta } => Guarantee::ApproxDp { epsilon, delta: add(delta) },
            Guarantee::Gdp { mu, delta } => Guarantee::Gdp { mu, delta: add(delta) },
            g => g,
        }
    }

    /// The grid of a release's guarantee, if any.
    pub fn grid(&self) -> Option<Grid> {
        match *self {
            Guarantee::MetricDp { grid, .. } => grid,
            _ => None,
        }
    }

    /// The ε of a metric, pure or approximate guarantee; `None` for zCDP, GDP and Rao DP, which have no single ε.
    pub fn epsilon(&self) -> Option<f64> {
        match *self {
            Guarantee::MetricDp { epsilon, .. }
            | Guarantee::PureDp { epsilon, .. }
            | Guarantee::ApproxDp { epsilon, .. } => Some(epsilon),
            Guarantee::Zcdp { .. } | Guarantee::Gdp { .. } | Guarantee::RaoDp { .. } => None,
        }
    }

    /// A great-circle guarantee restated per `unit` of distance, where one `unit` is `radians_per_unit`
    /// radians of great-circle angle (2π/24 for an hour on a 24 h circle, 1/R for a km on a sphere of radius
    /// R km, π/180 for a degree): ε per unit = ε per rad · radians per unit. A chordal guarantee is first
    /// weakened to the great-circle one it implies (d₂ ≤ d∠). Other guarantees are returned unchanged.
    pub fn in_unit(&self, unit: &'static str, radians_per_unit: f64) -> Guarantee {
        match *self {
            Guarantee::MetricDp {
                epsilon,
                metric: Metric::SphereSurface | Metric::SphereChordal,
                additive_epsilon,
                grid,
                delta_base,
                renyi,
                ..
            } => Guarantee::MetricDp {
                epsilon: epsilon * radians_per_unit,
                metric: Metric::SphereSurface,
                unit,
                additive_epsilon,
                grid,
                delta_base,
                // The law, and so its curve between any two inputs, does not depend on the unit it is stated in.
                renyi,
            },
            g => g,
        }
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The δ of a pure or GDP guarantee, as an upper bound ("+ delta ≤ 1e-300"); nothing when it is 0.
fn write_delta(f: &mut fmt::Formatter<'_>, delta: f64) -> fmt::Result {
    if delta > 0.0 { write!(f, " + delta ≤ {}", short_up(delta)) } else { Ok(()) }
}

/// The δ of a metric guarantee, per pair of inputs d apart ("+ delta(d) ≤ 1e-300·(1 + exp(epsilon·d + 0.001))"),
/// never a number taken at a diameter; nothing when δ_B is 0.
pub fn write_metric_delta(f: &mut impl fmt::Write, delta_base: f64, additive_epsilon: f64) -> fmt::Result {
    if delta_base <= 0.0 {
        return Ok(());
    }
    write!(f, " + delta(d) ≤ {}·(1 + exp(epsilon·d", short_up(delta_base))?;
    if additive_epsilon > 0.0 {
        write!(f, " + {}", short_up(additive_epsilon))?;
    }
    f.write_str("))")
}

pub use crate::numerics::format::{Rounding, SHORT_DIGITS, short, short_down, short_rounded, short_up};
pub use crate::space::grid::{Chart, Grid};

impl fmt::Display for Guarantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, grid, delta_base, .. } => {
                write!(f, "metric DP, epsilon = {} per {unit} of {}", short_up(epsilon), metric.describe())?;
                if additive_epsilon > 0.0 {
                    write!(f, " + {}", short_up(additive_epsilon))?;
                }
                if let Some(grid) = grid {
                    write!(f, " (outputs on the {grid})")?;
                }
                write_metric_delta(f, delta_base, additive_epsilon)
            }
            Guarantee::PureDp { epsilon, neighbouring: Neighbouring::ReplaceOneRow, delta } => {
                write!(f, "pure DP, epsilon = {}", short_up(epsilon))?;
                write_delta(f, delta)
            }
            Guarantee::PureDp { epsilon, neighbouring: Neighbouring::ReplaceOneRowInBall, delta } => {
                write!(
                    f,
                    "pure DP, epsilon = {} (only between data sets with the same rows outside the ball or bounds: \
                     whether a row lies outside, and how many do, is not protected)",
                    short_up(epsilon)
                )?;
                write_delta(f, delta)
            }
            Guarantee::ApproxDp { epsilon, delta } => {
                write!(f, "approximate DP, epsilon = {}, delta = {}", short_up(epsilon), short_up(delta))
            }
            Guarantee::Zcdp { rho } => write!(f, "zCDP, rho = {}", short_up(rho)),
            Guarantee::Gdp { mu, delta } => {
                write!(f, "Gaussian DP, mu = {}", short_up(mu))?;
                write_delta(f, delta)
            }
            Guarantee::RaoDp { theta, family } => {
                write!(f, "Rao DP, theta = {} (Fisher-Rao distance in the {})", short_up(theta), family.describe())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_and_serialises() {
        let g = Guarantee::metric_dp(5.729577951308232, Metric::So3Geodesic);
        assert_eq!(g.to_string(), "metric DP, epsilon = 5.72958 per rad of geodesic rotation angle on SO(3) (phi6)");
        assert_eq!(
            Guarantee::metric_dp(8.0, Metric::So3Geodesic).to_string().split(',').nth(1).unwrap(),
            " epsilon = 8 per rad of geodesic rotation angle on SO(3) (phi6)"
        );
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, r#"{"notion":"metric_dp","epsilon":5.729577951308232,"metric":"so3_geodesic","unit":"rad"}"#);
        let pure = Guarantee::pure(1.0);
        assert_eq!(pure.to_string(), "pure DP, epsilon = 1");
        assert_eq!(serde_json::to_string(&pure).unwrap(), r#"{"notion":"pure_dp","epsilon":1.0}"#);
    }

    #[test]
    fn a_local_release_carries_its_renyi_family_in_json() {
        let family = LocalFamily::Vmf { dim: 3, kappa: 0.5 };
        let g = Guarantee::metric_dp(0.5, Metric::SphereChordal).with_renyi(family);
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(
            json,
            r#"{"notion":"metric_dp","epsilon":0.5,"metric":"sphere_chordal","unit":"unit","renyi":{"family":"vmf","dim":3,"kappa":0.5}}"#
        );
        let back: Guarantee = serde_json::from_value(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back, g);
        assert_eq!(back.renyi(), Some(family));
        // The text is unchanged; a change of unit keeps the law; composition drops it (no single family).
        assert_eq!(g.to_string(), Guarantee::metric_dp(0.5, Metric::SphereChordal).to_string());
        assert_eq!(g.in_unit("rad", 1.0).renyi(), Some(family));
        assert_eq!(crate::privacy::accounting::compose(&[g, g]).unwrap().renyi(), None);
        // A family that is no law of the guarantee's space, or has bad parameters, is refused.
        assert!(Guarantee::metric_dp(0.5, Metric::So3Geodesic).with_renyi(family).validate().is_err());
        let bad = LocalFamily::Vmf { dim: 3, kappa: -1.0 };
        assert!(Guarantee::metric_dp(0.5, Metric::SphereChordal).with_renyi(bad).validate().is_err());
        assert!(g.validate().is_ok());
    }

    #[test]
    fn short_numbers_stay_short_and_costs_round_up() {
        assert_eq!(short(1e300), "1e300");
        assert_eq!(short(1e-300), "1e-300");
        assert_eq!(short(0.0), "0");
        assert_eq!(short(-0.0), "0");
        assert_eq!(short(5.729577951308232), "5.72958");
        assert_eq!(short(123456.7), "123457");
        assert_eq!(short(999999.5), "1e6");
        assert_eq!(short(1e-4), "0.0001");
        assert_eq!(short(9.99999e-5), "9.99999e-5");
        assert_eq!(short(-2.5e-7), "-2.5e-7");
        assert_eq!(short(f64::MAX), "1.79769e308");
        assert_eq!(short(5e-324), "4.94066e-324");
        assert_eq!(short(f64::NAN), "NaN");
        assert_eq!(short(f64::INFINITY), "inf");
        assert_eq!(short_up(0.1 + 0.2), "0.300001");
        assert_eq!(short_up(1.0 / 3.0), "0.333334");
        assert_eq!(short_down(1.0 / 3.0), "0.333333");
        assert_eq!(short_down(2.0 / 3.0), "0.666666");
        assert_eq!(short_up(-1.0 / 3.0), "-0.333333");
        assert_eq!(short_up(0.9999999999999999), "1");
        assert_eq!(short_up(999999.7), "1e6");
        assert_eq!(short_down(999999.7), "999999");
        assert_eq!(short_up(1e-300), "1e-300");
        assert_eq!(Guarantee::pure(1e300).to_string(), "pure DP, epsilon = 1e300");
        // A drop mean's narrower neighbouring are stated in words and in JSON; the default is not serialised.
        let drop = Guarantee::PureDp { epsilon: 1.0, neighbouring: Neighbouring::ReplaceOneRowInBall, delta: 0.0 };
        assert!(drop.to_string().contains("same rows outside") && drop.to_string().contains("not protected"));
        let json = serde_json::to_string(&drop).unwrap();
        assert_eq!(json, r#"{"notion":"pure_dp","epsilon":1.0,"neighbouring":"replace_one_row_in_ball"}"#);
        assert_eq!(serde_json::from_str::<Guarantee>(&json).unwrap(), drop);
        assert_eq!(serde_json::to_string(&Guarantee::pure(1.0)).unwrap(), r#"{"notion":"pure_dp","epsilon":1.0}"#);
        let both = crate::privacy::accounting::compose(&[Guarantee::pure(0.5), drop]).unwrap();
        assert_eq!(
            both,
            Guarantee::PureDp { epsilon: 1.5, neighbouring: Neighbouring::ReplaceOneRowInBall, delta: 0.0 }
        );
        assert_eq!(Guarantee::pure(1e-300).to_string(), "pure DP, epsilon = 1e-300");
        assert_eq!(
            Guarantee::ApproxDp { epsilon: 2.0 / 3.0, delta: 1e-6 }.to_string(),
            "approximate DP, epsilon = 0.666667, delta = 1e-6"
        );
    }

    #[test]
    fn short_rounds_in_the_direction_asked_for_everywhere() {
        // Every binade, with values whose seventh digit is anything: read back, up is never below, down never
        // above, both within one unit of the sixth digit, and the text stays short.
        let mut x = 1e-310_f64;
        let mut step = 0u64;
        while x < 1e308 {
            for v in [x, -x] {
                let (up, down, near) = (short_up(v), short_down(v), short(v));
                let (u, d, n): (f64, f64, f64) = (up.parse().unwrap(), down.parse().unwrap(), near.parse().unwrap());
                assert!(u >= v && d <= v, "{v:e}: up {up}, down {down}");
                if v.abs() > 1e-300 {
                    assert!(
                        (u - v).abs() <= 1.01e-5 * v.abs() && (d - v).abs() <= 1.01e-5 * v.abs(),
                        "{v:e}: {up} {down}"
                    );
                    assert!((n - v).abs() <= 0.51e-5 * v.abs(), "{v:e}: {near}");
                }
                assert!(up.len() <= 13 && down.len() <= 13 && near.len() <= 13, "{up} {down} {near}");
            }
            step += 1;
            x *= 1.0 + 0.37 / (1.0 + (step % 7) as f64);
        }
    }

    #[test]
    fn restates_sphere_guarantees_in_user_units() {
        let per_hour = std::f64::consts::TAU / 24.0;
        let g = Guarantee::metric_dp(2.0, Metric::SphereChordal).in_unit("h", per_hour);
        assert_eq!(g, Guarantee::metric_dp_in(2.0 * per_hour, Metric::SphereSurface, "h", 0.0));
        assert_eq!(g.to_string(), "metric DP, epsilon = 0.523599 per h of great-circle distance");
        let so3 = Guarantee::metric_dp(2.0, Metric::So3Geodesic);
        assert_eq!(so3.in_unit("h", per_hour), so3);
    }
}
