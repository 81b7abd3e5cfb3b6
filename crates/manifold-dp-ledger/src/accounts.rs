//! The arithmetic of a ledger: the total of a data set's releases in one account (a notion, or metric DP in
//! one metric and unit), what remains of a budget, and the standard guarantee shown beside a total.
//!
//! Every total is built from the library's accounting ([`express`] then [`compose`]), so it is rounded up
//! exactly as the library rounds. A metric account (local releases in its metric) converts between units of one
//! distance (rad, deg; km on the Earth, h and min on the clock) and leaves central releases, and local releases
//! in other metrics, to their own accounts.
//! Two additions, both sound:
//!
//! - Metric DP in a space of bounded diameter D (SO(3) and spheres in radians or degrees; chordal distance)
//!   is also pure (ε·D)-DP between data sets that differ in one record, because every record is released
//!   independently and two records are at most D apart. So a `privatize` release counts against pure,
//!   approximate, zCDP and GDP budgets too. Other metrics (tangent plane, SPD) are not converted.
//! - Approximate DP: every release is charged one (εᵢ, δᵢ) and the account is the basic sum (Σεᵢ, Σδᵢ). A
//!   release that reports a pure or (ε, δ) guarantee is charged that one; a release that reports only zCDP,
//!   GDP or Gaussian Rao DP is charged its (ε, δ) at the fixed δᵢ = [`REPORT_DELTA`], whatever was spent
//!   before it.
//!
//! The ledger admits releases one by one against what is left, so each account is a privacy *filter*, and
//! each rule here is one whose filter is proven for parameters chosen adaptively: the basic sums (pure,
//! metric, approximate), Σρ (the Rényi filter) and √Σμ² (GDP's filter). The approximate account once
//! converted the zCDP-type releases as one group at the δ′ its budget had left; no filter theorem covers a
//! conversion point chosen from the history, so it is gone. Theorems and the reasons:
//! `docs/proofs/accounting.md`, "The ledger is a filter".

use manifold_dp::privacy::rounding::{add_up, mul_up};
use manifold_dp::privacy::{Guarantee, Metric, Notion, RaoFamily, Target, compose, convert, express};
use std::f64::consts::PI;
use std::fmt;

/// The δ at which zCDP, GDP and Gaussian Rao totals are restated as (ε, δ)-DP beside them.
pub const REPORT_DELTA: f64 = 1e-6;

/// What a budget is kept in: a notion between neighbouring data sets, or metric DP in one metric and unit
/// (metric-DP guarantees in different metrics or units do not add up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Account {
    /// Pure, approximate, zCDP, GDP or Rao DP (never [`Notion::Metric`]).
    Notion(Notion),
    /// Metric DP per `unit` of `metric`.
    Metric {
        /// The metric.
        metric: Metric,
        /// Its unit.
        unit: &'static str,
    },
}

/// The snake_case name of a metric, as in its JSON form (`so3_geodesic`).
pub fn metric_name(metric: Metric) -> String {
    match serde_json::to_value(metric) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{metric:?}"),
    }
}

impl Account {
    /// The account a guarantee is charged to.
    pub fn of(g: &Guarantee) -> Account {
        match *g {
            Guarantee::MetricDp { metric, unit, .. } => Account::Metric { metric, unit },
            other => Account::Notion(other.notion()),
        }
    }

    /// The notion.
    pub fn notion(&self) -> Notion {
        match self {
            Account::Notion(n) => *n,
            Account::Metric { .. } => Notion::Metric,
        }
    }

    /// The account's name: the notion's CLI spelling (`pure`, `approx`, `zcdp`, `gdp`, `rao`), or
    /// `metric:METRIC:UNIT` (`metric:so3_geodesic:rad`).
    pub fn key(&self) -> String {
        match self {
            Account::Notion(n) => n.as_str().to_string(),
            Account::Metric { metric, unit } => format!("metric:{}:{unit}", metric_name(*metric)),
        }
    }

    /// The standard accounts every report lists, in order.
    pub(crate) const STANDARD: [Account; 5] = [
        Account::Notion(Notion::Pure),
        Account::Notion(Notion::Approx),
        Account::Notion(Notion::Zcdp),
        Account::Notion(Notion::Gdp),
        Account::Notion(Notion::Rao),
    ];

    /// Nothing spent yet, in this account.
    fn zero(&self, budget: Option<&Guarantee>) -> Guarantee {
        match *self {
            Account::Metric { metric, unit } => Guarantee::metric_dp_in(0.0, metric, unit, 0.0),
            Account::Notion(Notion::Approx) => Guarantee::ApproxDp { epsilon: 0.0, delta: 0.0 },
            Account::Notion(Notion::Zcdp) => Guarantee::Zcdp { rho: 0.0 },
            Account::Notion(Notion::Gdp) => Guarantee::Gdp { mu: 0.0 },
            Account::Notion(Notion::Rao) => {
                let family = match budget {
                    Some(Guarantee::RaoDp { family, .. }) => *family,
                    _ => RaoFamily::Gaussian,
                };
                Guarantee::RaoDp { theta: 0.0, family }
            }
            Account::Notion(_) => Guarantee::PureDp { epsilon: 0.0 },
        }
    }
}

impl fmt::Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// The largest distance between two inputs, in `unit` of `metric`, where it is finite and the same for every
/// data set: π rad (180 deg) on SO(3) and on spheres, 2 in chordal distance. `None` elsewhere.
pub fn diameter(metric: Metric, unit: &str) -> Option<f64> {
    match (metric, unit) {
        (Metric::So3Geodesic | Metric::SphereSurface, "rad") => Some(PI),
        (Metric::So3Geodesic | Metric::SphereSurface, "deg") => Some(180.0),
        (Metric::SphereChordal, "unit") => Some(2.0),
        _ => None,
    }
}

/// A release's guarantees plus, for each metric-DP guarantee in a space of bounded diameter, the pure-DP
/// guarantee it implies.
fn with_implied_pure(release: &[Guarantee]) -> Vec<Guarantee> {
    let mut out = release.to_vec();
    for g in release {
        if let Guarantee::MetricDp { metric, unit, .. } = *g
            && let Some(d) = diameter(metric, unit)
            && let Ok(pure) = convert(g, Target::Pure { diameter: Some(d) })
        {
            out.push(pure);
        }
    }
    out
}

/// Why a total cannot be formed: which release (its index in the list) cannot be expressed, and why.
#[derive(Debug, Clone)]
pub(crate) struct Unaccounted {
    /// Index of the release in the list given, if one release is to blame.
    pub index: Option<usize>,
    /// Why.
    pub reason: String,
}

/// The cost of one release in an account.
pub(crate) fn cost(account: Account, release: &[Guarantee]) -> Result<Guarantee, String> {
    let target = match account {
        Account::Metric { metric, unit } => {
            // A metric account holds the data set's local releases in its metric. A central release (no metric-DP
            // guarantee) or a local one in another metric (rotations beside locations) is charged to its own
            // accounts, not to this one.
            if !release.iter().any(|g| matches!(g, Guarantee::MetricDp { metric: m, .. } if *m == metric)) {
                return Ok(account.zero(None));
            }
            return express(release, Target::Metric { metric, unit }).map_err(s);
        }
        Account::Notion(Notion::Approx) => return approx_cost(&with_implied_pure(release)),
        Account::Notion(Notion::Zcdp) => Target::Zcdp,
        Account::Notion(Notion::Gdp) => Target::Gdp,
        Account::Notion(Notion::Rao) => Target::Rao,
        Account::Notion(_) => Target::Pure { diameter: None },
    };
    express(&with_implied_pure(release), target).map_err(s)
}

/// A release's (εᵢ, δᵢ) for the approximate account: the smallest pure or (ε, δ) guarantee it reports (smaller δ
/// first); else, for a release reporting only zCDP, GDP or Gaussian Rao DP, the smallest ε of those at the
/// fixed δᵢ = [`REPORT_DELTA`] (GDP's exact curve, zCDP's ρ + 2√(ρ ln(1/δ))). Any (εᵢ, δᵢ) the release satisfies
/// is a valid charge under the basic filter; a fixed δᵢ keeps a release's charge independent of the others.
/// What is not valid is converting several releases' composed zCDP total at a point chosen from the history,
/// as this account once did (`docs/proofs/accounting.md`, "The ledger is a filter").
fn approx_cost(release: &[Guarantee]) -> Result<Guarantee, String> {
    express(release, Target::Approx { delta: None, epsilon: None })
        .or_else(|_| express(release, Target::Approx { delta: Some(REPORT_DELTA), epsilon: None }))
        .map_err(s)
}

fn s(e: manifold_dp::Error) -> String {
    e.to_string()
}

/// The total of `releases` (each the list of guarantees its mechanism reported) in `account`, composed
/// sequentially and rounded up: Σεᵢ (pure, metric), (Σεᵢ, Σδᵢ) (approximate), Σρᵢ, √Σμᵢ², √Σθᵢ². Each
/// release's cost depends on that release alone, so admitting while the total fits the budget is the filter
/// of `docs/proofs/accounting.md` ("The ledger is a filter"). `budget` only names the Rao family of an empty
/// total.
pub(crate) fn total(
    account: Account,
    releases: &[&[Guarantee]],
    budget: Option<&Guarantee>,
) -> Result<Guarantee, Unaccounted> {
    let costs = releases
        .iter()
        .enumerate()
        .map(|(i, r)| cost(account, r).map_err(|reason| Unaccounted { index: Some(i), reason }))
        .collect::<Result<Vec<_>, _>>()?;
    if costs.is_empty() {
        return Ok(account.zero(budget));
    }
    compose(&costs).map_err(|e| Unaccounted { index: None, reason: e.to_string() })
}

/// The largest double ≤ a − b: the negation of the upward-rounded b − a.
fn sub_down(a: f64, b: f64) -> f64 {
    -add_up(b, -a)
}

/// The largest double ≤ √(b² − t²), or 0 when t ≥ b.
fn quadrature_left(b: f64, t: f64) -> f64 {
    let x = sub_down(-mul_up(-b, b), mul_up(t, t));
    if x <= 0.0 {
        return 0.0;
    }
    let r = x.sqrt();
    if r.mul_add(r, -x) > 0.0 { r.next_down() } else { r }
}

/// What is left of `budget` after `total`, rounded down and never below zero: a difference for ε, δ and ρ,
/// √(b² − t²) for GDP μ and Rao θ (they compose in quadrature).
pub(crate) fn remaining(total: &Guarantee, budget: &Guarantee) -> Option<Guarantee> {
    let minus = |b: f64, t: f64| sub_down(b, t).max(0.0);
    let quad = quadrature_left;
    Some(match (*total, *budget) {
        (
            Guarantee::MetricDp { epsilon: t, additive_epsilon: at, .. },
            Guarantee::MetricDp { epsilon: b, metric, unit, additive_epsilon: ab, .. },
        ) => Guarantee::metric_dp_in(minus(b, t), metric, unit, minus(ab, at)),
        (Guarantee::PureDp { epsilon: t }, Guarantee::PureDp { epsilon: b }) => {
            Guarantee::PureDp { epsilon: minus(b, t) }
        }
        (Guarantee::ApproxDp { epsilon: t, delta: dt }, Guarantee::ApproxDp { epsilon: b, delta: db }) => {
            Guarantee::ApproxDp { epsilon: minus(b, t), delta: minus(db, dt) }
        }
        (Guarantee::Zcdp { rho: t }, Guarantee::Zcdp { rho: b }) => Guarantee::Zcdp { rho: minus(b, t) },
        (Guarantee::Gdp { mu: t }, Guarantee::Gdp { mu: b }) => Guarantee::Gdp { mu: quad(b, t) },
        (Guarantee::RaoDp { theta: t, .. }, Guarantee::RaoDp { theta: b, family }) => {
            Guarantee::RaoDp { theta: quad(b, t), family }
        }
        _ => return None,
    })
}

/// The standard guarantee shown beside a total: (ε, δ) at [`REPORT_DELTA`] for zCDP, GDP and Gaussian Rao
/// totals; pure ε·diameter for metric totals in a bounded space; for a Rao total outside the Gaussian family
/// (which implies no test bound), the data set's pure total, or else its approximate total.
pub(crate) fn standard_companion(
    total: &Guarantee,
    pure: Option<&Guarantee>,
    approx: Option<&Guarantee>,
) -> Option<Guarantee> {
    let at_delta = Target::Approx { delta: Some(REPORT_DELTA), epsilon: None };
    match *total {
        Guarantee::Zcdp { .. } | Guarantee::Gdp { .. } | Guarantee::RaoDp { family: RaoFamily::Gaussian, .. } => {
            convert(total, at_delta).ok()
        }
        Guarantee::RaoDp { .. } => pure.or(approx).copied(),
        Guarantee::MetricDp { metric, unit, .. } => {
            diameter(metric, unit).and_then(|d| convert(total, Target::Pure { diameter: Some(d) }).ok())
        }
        Guarantee::PureDp { .. } | Guarantee::ApproxDp { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_diameters() {
        assert_eq!(Account::of(&Guarantee::PureDp { epsilon: 1.0 }).key(), "pure");
        assert_eq!(Account::of(&Guarantee::metric_dp(1.0, Metric::So3Geodesic)).key(), "metric:so3_geodesic:rad");
        assert_eq!(diameter(Metric::SphereChordal, "unit"), Some(2.0));
        assert_eq!(diameter(Metric::SpdAffineInvariant, "unit"), None);
    }

    #[test]
    fn metric_release_counts_as_pure_in_bounded_spaces() {
        let release = [Guarantee::metric_dp(1.0, Metric::So3Geodesic)];
        let pure = cost(Account::Notion(Notion::Pure), &release).unwrap();
        assert!(pure.epsilon().unwrap() >= PI && pure.epsilon().unwrap() < PI + 1e-12);
        let spd = [Guarantee::metric_dp(1.0, Metric::SpdAffineInvariant)];
        assert!(cost(Account::Notion(Notion::Pure), &spd).is_err());
    }

    #[test]
    fn approximate_total_of_gdp_uses_the_exact_curve() {
        let g = [Guarantee::Gdp { mu: 0.5 }];
        let t = total(Account::Notion(Notion::Approx), &[&g], None).unwrap();
        let exact = convert(&g[0], Target::Approx { delta: Some(REPORT_DELTA), epsilon: None }).unwrap();
        assert_eq!(t, exact);
        // zCDP's bound at the same δ is looser: ρ + 2√(ρ ln 1/δ) with ρ = μ²/2.
        let rho: f64 = 0.125;
        assert!(t.epsilon().unwrap() < rho + 2.0 * (rho * 1e6f64.ln()).sqrt() - 0.1);
    }

    #[test]
    fn remaining_is_rounded_down() {
        let left = remaining(&Guarantee::PureDp { epsilon: 0.75 }, &Guarantee::PureDp { epsilon: 1.0 }).unwrap();
        assert_eq!(left, Guarantee::PureDp { epsilon: 0.25 });
        let left = remaining(&Guarantee::Gdp { mu: 0.6 }, &Guarantee::Gdp { mu: 1.0 }).unwrap();
        let Guarantee::Gdp { mu } = left else { panic!() };
        assert!(mu <= 0.8 && mu > 0.8 - 1e-15 && mu * mu + 0.36 <= 1.0 + 1e-15, "{mu}");
        assert_eq!(
            remaining(&Guarantee::Zcdp { rho: 2.0 }, &Guarantee::Zcdp { rho: 1.0 }),
            Some(Guarantee::Zcdp { rho: 0.0 })
        );
    }

    #[test]
    fn approximate_charge_of_a_zcdp_release_is_fixed_and_releases_add() {
        // A release with only a zCDP guarantee costs its (ε, δ) at REPORT_DELTA, whatever the budget and the
        // releases before it; the account is the plain sum (Σε, Σδ).
        let pure = [Guarantee::PureDp { epsilon: 0.5 }];
        let z = [Guarantee::Zcdp { rho: 0.01 }];
        let at = Target::Approx { delta: Some(REPORT_DELTA), epsilon: None };
        let one = convert(&z[0], at).unwrap();
        let budget = Guarantee::ApproxDp { epsilon: 10.0, delta: 1e-5 };
        let approx = Account::Notion(Notion::Approx);
        assert_eq!(total(approx, &[&z], Some(&budget)).unwrap(), one);
        let t = total(approx, &[&pure, &z, &z], Some(&budget)).unwrap();
        let Guarantee::ApproxDp { epsilon, delta } = t else { panic!("{t}") };
        assert_eq!(delta, add_up(REPORT_DELTA, REPORT_DELTA));
        let e1 = one.epsilon().unwrap();
        assert_eq!(epsilon, add_up(add_up(0.5, e1), e1));
        // ε = ρ + 2√(ρ ln(1/δ)) at δ = 1e-6, not at the 1e-5 of the budget.
        assert!((e1 - (0.01 + 2.0 * (0.01 * 1e6f64.ln()).sqrt())).abs() < 1e-9, "{e1}");
    }
}
