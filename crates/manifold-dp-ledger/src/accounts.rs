//! The arithmetic of a ledger: the accounting model, the cost of one release in each account, the total of a
//! data set's releases in one account, what remains of a budget, and the standard guarantee shown beside a total.
//!
//! **The model** (`docs/proofs/accounting.md`, "One model for local and central releases"). After a data set's
//! releases, two data sets that differ in one row, moved by d in the label's metric, are indistinguishable up to
//!
//! ```text
//! ε ≤ (Σ local ε per unit)·d + (Σ central ε) + (Σ additive costs)
//! ```
//!
//! A **local** release (it reports metric DP: every row released on its own) is charged to the label's metric
//! accounts, in each account's metric and unit: units of one distance convert (rad, deg; km on the Earth; h and
//! min on the clock) and ε per unit of chordal distance is also ε per rad of great-circle distance (d₂ ≤ d∠).
//! Its additive (rounding) cost ε₀ is carried beside, and capped by the metric budget's additive allowance
//! ([`DEFAULT_ADDITIVE_ALLOWANCE`] unless set). A **central** release (pure, approximate, zCDP, GDP or Rao DP
//! between data sets that differ in one row) is charged to the central accounts. Neither kind is charged to the
//! other's accounts; the optional [`Account::Overall`] cap counts both in pure ε, a local release at
//! ε·diameter + ε₀.
//!
//! Never 0 for an account a release touches: a release that implies nothing for an account with a budget (a
//! rotation release against a km budget, a tangent-plane release against a great-circle one, a zCDP release
//! against a pure budget) cannot be accounted there and is refused by the ledger.
//!
//! Every total is built from the library's accounting ([`express`] then [`compose`]), so it is rounded up
//! exactly as the library rounds. The approximate account charges each release one (εᵢ, δᵢ) and sums them: a
//! release that reports a pure or (ε, δ) guarantee is charged that one; a release that reports only zCDP, GDP
//! or Gaussian Rao DP is charged its (ε, δ) at the fixed δᵢ = [`REPORT_DELTA`], whatever was spent before it.
//!
//! The optional [`Account::LocalRdp`] budget, (ε, δ), charges the local releases again, by their Rényi curves
//! ([`local_curve`]) composed order by order and read by the filter's rule ([`local_rdp_epsilon`]).
//!
//! The ledger admits releases one by one against what is left, so each account is a privacy *filter*, and
//! each rule here is one whose filter is proven for parameters chosen adaptively: the basic sums (pure,
//! metric, approximate), Σρ (the Rényi filter) and √Σμ² (GDP's filter). Theorems and the reasons:
//! `docs/proofs/accounting.md`, "The ledger is a filter".

use manifold_dp::analysis::renyi_local::RDP_ORDERS;
use manifold_dp::privacy::accounting::radians_per_unit;
use manifold_dp::privacy::renyi::RdpCurve;
use manifold_dp::privacy::rounding::{add_up, div_up, fn_up, mul_up};
use manifold_dp::privacy::{Guarantee, Metric, Notion, RaoFamily, Target, compose, convert, express};
use std::f64::consts::PI;
use std::fmt;

/// The δ at which zCDP, GDP and Gaussian Rao totals are restated as (ε, δ)-DP beside them.
pub const REPORT_DELTA: f64 = 1e-6;

/// The additive allowance of a local (metric) budget that states none: the most that the additive (rounding)
/// costs ε₀ of its local releases may add up to. A local release costs ε₀ of about 10⁻³ or less
/// (`docs/proofs/float_safety.md`), so this admits about a hundred of them; a budget may state its own
/// (its `additive_epsilon`). It is part of the combined guarantee, never of a central budget.
pub const DEFAULT_ADDITIVE_ALLOWANCE: f64 = 0.1;

/// The account key of the optional overall standard-DP cap.
pub const OVERALL_KEY: &str = "overall";

/// The account key of the local releases' Rényi (ε, δ) budget ([`Account::LocalRdp`]).
pub const LOCAL_RDP_KEY: &str = "local_rdp";

/// The share of a local Rényi budget's δ set aside for the samplers' negligible events (their δ_B, about
/// 10⁻³⁰⁰ a release): 2⁻²⁰. The filter runs at δ_R = δ·(1 − 2⁻²⁰), which costs ε about 10⁻⁶/(α − 1)
/// (`docs/proofs/accounting.md`, "Local releases in Rényi DP").
pub const LOCAL_RDP_NEGLIGIBLE_SHARE: f64 = 1.0 / (1u64 << 20) as f64;

/// Whether a release is local (metric DP: each row released on its own, a guarantee per unit of distance) or
/// central (a guarantee between data sets that differ in one row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseKind {
    /// Metric DP per unit of distance.
    Local,
    /// Pure, approximate, zCDP, GDP or Rao DP.
    Central,
}

impl ReleaseKind {
    /// The kind of a release: local when it reports a metric-DP guarantee.
    pub fn of(release: &[Guarantee]) -> ReleaseKind {
        if release.iter().any(|g| matches!(g, Guarantee::MetricDp { .. })) {
            ReleaseKind::Local
        } else {
            ReleaseKind::Central
        }
    }
}

impl fmt::Display for ReleaseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReleaseKind::Local => "local",
            ReleaseKind::Central => "central",
        })
    }
}

/// What a budget is kept in: a central notion between neighbouring data sets, metric DP in one metric and unit
/// (the local releases), or the overall standard-DP cap over both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Account {
    /// Pure, approximate, zCDP, GDP or Rao DP (never [`Notion::Metric`]): central releases.
    Notion(Notion),
    /// Metric DP per `unit` of `metric`: local releases.
    Metric {
        /// The metric.
        metric: Metric,
        /// Its unit.
        unit: &'static str,
    },
    /// The optional overall cap, in pure ε: central releases at their pure ε, local ones at ε·diameter + ε₀.
    Overall,
    /// An (ε, δ) budget of the local releases, charged by their Rényi curves ([`local_curve`]) composed order
    /// by order and admitted while [`local_rdp_epsilon`] ≤ ε (the Rényi filter over the public orders,
    /// `docs/proofs/accounting.md`, "Local releases in Rényi DP"): k repeated local releases cost far less than
    /// k·(ε·diameter + ε₀) when each one's divergence is well below its pure ε.
    LocalRdp,
}

/// The snake_case name of a metric, as in its JSON form (`so3_geodesic`).
pub fn metric_name(metric: Metric) -> String {
    match serde_json::to_value(metric) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{metric:?}"),
    }
}

impl Account {
    /// The account a budget (or a guarantee) is kept in: its notion, or its metric and unit. (The overall cap
    /// is a pure-DP budget named [`Account::Overall`] explicitly.)
    pub fn of(g: &Guarantee) -> Account {
        match *g {
            Guarantee::MetricDp { metric, unit, .. } => Account::Metric { metric, unit },
            other => Account::Notion(other.notion()),
        }
    }

    /// The account named `key` ([`Account::key`]), if it is one.
    pub fn from_key(key: &str) -> Option<Account> {
        if key == OVERALL_KEY {
            return Some(Account::Overall);
        }
        if key == LOCAL_RDP_KEY {
            return Some(Account::LocalRdp);
        }
        if let Some(rest) = key.strip_prefix("metric:") {
            let (metric, unit) = rest.rsplit_once(':')?;
            let metric: Metric = serde_json::from_value(serde_json::Value::String(metric.into())).ok()?;
            let unit = manifold_dp::privacy::guarantee::static_unit(unit)?;
            return Some(Account::Metric { metric, unit });
        }
        Notion::parse(key).filter(|n| *n != Notion::Metric).map(Account::Notion)
    }

    /// The notion.
    pub fn notion(&self) -> Notion {
        match self {
            Account::Notion(n) => *n,
            Account::Metric { .. } => Notion::Metric,
            Account::Overall => Notion::Pure,
            Account::LocalRdp => Notion::Approx,
        }
    }

    /// The kind of release the account holds: `None` for the overall cap (both).
    pub fn kind(&self) -> Option<ReleaseKind> {
        match self {
            Account::Notion(_) => Some(ReleaseKind::Central),
            Account::Metric { .. } | Account::LocalRdp => Some(ReleaseKind::Local),
            Account::Overall => None,
        }
    }

    /// The account's name: the notion's CLI spelling (`pure`, `approx`, `zcdp`, `gdp`, `rao`),
    /// `metric:METRIC:UNIT` (`metric:so3_geodesic:rad`), `overall`, or `local_rdp`.
    pub fn key(&self) -> String {
        match self {
            Account::Notion(n) => n.as_str().to_string(),
            Account::Metric { metric, unit } => format!("metric:{}:{unit}", metric_name(*metric)),
            Account::Overall => OVERALL_KEY.to_string(),
            Account::LocalRdp => LOCAL_RDP_KEY.to_string(),
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
            Account::Notion(Notion::Approx) | Account::LocalRdp => Guarantee::ApproxDp { epsilon: 0.0, delta: 0.0 },
            Account::Notion(Notion::Zcdp) => Guarantee::Zcdp { rho: 0.0 },
            Account::Notion(Notion::Gdp) => Guarantee::gdp(0.0),
            Account::Notion(Notion::Rao) => {
                let family = match budget {
                    Some(Guarantee::RaoDp { family, .. }) => *family,
                    _ => RaoFamily::Gaussian,
                };
                Guarantee::RaoDp { theta: 0.0, family }
            }
            Account::Notion(_) | Account::Overall => Guarantee::pure(0.0),
        }
    }
}

impl fmt::Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// A metric budget as the ledger keeps it: with its additive allowance stated ([`DEFAULT_ADDITIVE_ALLOWANCE`]
/// where it gives none). Other budgets are returned as they are.
pub fn with_allowance(budget: Guarantee) -> Guarantee {
    match budget {
        Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, .. } => {
            let allowance = if additive_epsilon > 0.0 { additive_epsilon } else { DEFAULT_ADDITIVE_ALLOWANCE };
            Guarantee::metric_dp_in(epsilon, metric, unit, allowance)
        }
        other => other,
    }
}

/// The largest distance between two inputs, in `unit` of `metric`, where it is finite and the same for every
/// data set: π rad on SO(3) and on spheres (180 deg; half the Earth's circumference in km; 12 h and 720 min on
/// the clock), 2 in chordal distance. `None` elsewhere.
pub fn diameter(metric: Metric, unit: &str) -> Option<f64> {
    match (metric, unit) {
        (Metric::So3Geodesic | Metric::SphereSurface, "rad") => Some(PI),
        (Metric::So3Geodesic | Metric::SphereSurface, "deg") => Some(180.0),
        (Metric::SphereChordal, "unit") => Some(2.0),
        (Metric::So3Geodesic | Metric::SphereSurface, _) => radians_per_unit(metric, unit).map(|per| div_up(PI, per)),
        _ => None,
    }
}

/// A release's guarantees plus what they imply for metric accounts: ε per unit of chordal distance is also ε per
/// rad of great-circle distance (d₂ ≤ d∠ between unit vectors), with the same ε₀.
fn with_implied_metrics(release: &[Guarantee]) -> Vec<Guarantee> {
    let mut out = release.to_vec();
    for g in release {
        if let Guarantee::MetricDp { epsilon, metric: Metric::SphereChordal, unit: "unit", additive_epsilon, .. } = *g {
            out.push(Guarantee::metric_dp_in(epsilon, Metric::SphereSurface, "rad", additive_epsilon));
        }
    }
    out
}

/// A local release's pure ε between data sets that differ in one row: the smallest ε·diameter + ε₀ over its
/// metric-DP guarantees in spaces of bounded diameter, with that guarantee's δ at the diameter.
fn local_as_pure(release: &[Guarantee]) -> Result<Guarantee, String> {
    let mut best: Option<Guarantee> = None;
    let mut why = String::from("it states metric DP in no metric of finite diameter (tangent plane, SPD)");
    for g in release {
        if let Guarantee::MetricDp { metric, unit, .. } = *g {
            match diameter(metric, unit).map(|d| convert(g, Target::Pure { diameter: Some(d) })) {
                Some(Ok(p)) => {
                    let e = |g: &Guarantee| g.epsilon().unwrap_or(f64::INFINITY);
                    if best.as_ref().is_none_or(|b| e(&p) < e(b)) {
                        best = Some(p);
                    }
                }
                Some(Err(e)) => why = e.to_string(),
                None => {}
            }
        }
    }
    best.ok_or(why)
}

/// A local release's Rényi curve between any two inputs, and the probability β of its samplers' negligible
/// events: at each order the smallest over its metric guarantees in spaces of bounded diameter D of the curve
/// its noise law gives ([`RdpCurve::of_guarantee`], `docs/proofs/renyi_local.md` §4) or, for a guarantee that
/// carries no law, the curve of its pure ε_p = ε·D + ε₀, min(ε_p, αε_p²/2); β the largest δ_B among them.
pub fn local_curve(release: &[Guarantee]) -> Result<(RdpCurve, f64), String> {
    let mut best: Option<RdpCurve> = None;
    let mut events: f64 = 0.0;
    let mut why = String::from("it states metric DP in no metric of finite diameter (tangent plane, SPD)");
    for g in release {
        let Guarantee::MetricDp { epsilon, metric, unit, additive_epsilon, delta_base, .. } = *g else { continue };
        let Some(d) = diameter(metric, unit) else { continue };
        let curve = match cached_curve(g, d) {
            Ok(Some(c)) => c,
            Ok(None) => RdpCurve::pure(add_up(mul_up(epsilon, d), additive_epsilon)),
            Err(e) => {
                why = e;
                continue;
            }
        };
        best = Some(best.map_or(curve, |b| b.min(&curve)));
        events = events.max(delta_base);
    }
    best.map(|c| (c, events)).ok_or(why)
}

/// [`RdpCurve::of_guarantee`], remembered: a curve takes 24 integrals over 2¹⁷ cells, and a ledger recomputes
/// the totals of every release of a data set at each check, mostly of the same few laws.
fn cached_curve(g: &Guarantee, diameter: f64) -> Result<Option<RdpCurve>, String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, RdpCurve>>> = OnceLock::new();
    let Some(family) = g.renyi() else { return Ok(None) };
    // Every input of the curve, exactly (Debug prints an f64 so that it reads back to the same double).
    let key = format!("{family:?}|{:?}|{:?}|{diameter:?}", g.epsilon(), g.additive_epsilon());
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(c) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(Some(*c));
    }
    let curve = RdpCurve::of_release(family, g, diameter).map_err(s)?;
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= 256 {
        map.clear();
    }
    map.insert(key, curve);
    Ok(Some(curve))
}

/// The ε the local Rényi filter reads off a composed curve `sum` at the filter's δ_R:
/// min over the orders α of Σρ(α) + ln(|Λ|/δ_R)/(α − 1), |Λ| = [`RDP_ORDERS`]`.len()`, rounded up. A release
/// is admitted while this is at most the budget's ε, that is while some order has Σρ(α) ≤
/// B_α = ε − ln(|Λ|/δ_R)/(α − 1) (`docs/proofs/accounting.md`, "Local releases in Rényi DP"). Infinite when
/// δ_R is too small for |Λ|/δ_R to be a double.
pub fn local_rdp_epsilon(sum: &RdpCurve, delta_r: f64) -> f64 {
    let ratio = div_up(RDP_ORDERS.len() as f64, delta_r);
    if !(ratio.is_finite() && delta_r > 0.0) {
        return f64::INFINITY;
    }
    let log = fn_up(ratio.ln());
    RDP_ORDERS
        .iter()
        .zip(sum.epsilons)
        // α − 1 is exact for these dyadic orders.
        .map(|(&alpha, rho)| add_up(rho, div_up(log, alpha - 1.0)))
        .fold(f64::INFINITY, f64::min)
}

/// The δ_R a local Rényi budget's filter runs at, and the share kept for negligible events:
/// δ_N = δ·[`LOCAL_RDP_NEGLIGIBLE_SHARE`] (exact: a power of two) and δ_R = δ − δ_N rounded down.
pub fn local_rdp_split(delta: f64) -> (f64, f64) {
    let share = delta * LOCAL_RDP_NEGLIGIBLE_SHARE;
    (-add_up(share, -delta), share)
}

/// The local Rényi account's total ([`Account::LocalRdp`]): over the local releases, S(α) = Σ ρₜ(α) of their
/// curves ([`local_curve`]) and β = Σ βₜ of their negligible events, both rounded up, read as (ε_T, δ_T)
/// with ε_T = [`local_rdp_epsilon`]`(S, δ_R)` at the budget's δ (else [`REPORT_DELTA`]) and δ_T the budget's
/// δ while β·(1 + e^ε) ≤ δ_N (ε the budget's), else δ_R + β·(1 + e^ε), which exceeds it. Within the budget
/// exactly when the filter admits (`docs/proofs/accounting.md`, "Local releases in Rényi DP"). Central
/// releases are not held here; with `strict`, a local release in a metric of unbounded diameter is an error.
pub(crate) fn local_rdp_total(
    releases: &[&[Guarantee]],
    budget: Option<&Guarantee>,
    strict: bool,
) -> Result<Guarantee, Unaccounted> {
    let (budget_epsilon, delta) = match budget {
        Some(Guarantee::ApproxDp { epsilon, delta }) => (Some(*epsilon), *delta),
        _ => (None, REPORT_DELTA),
    };
    let mut sum: Option<RdpCurve> = None;
    let mut events = 0.0;
    for (i, r) in releases.iter().enumerate() {
        if ReleaseKind::of(r) != ReleaseKind::Local {
            continue;
        }
        match local_curve(r) {
            Ok((c, beta)) => {
                sum = Some(sum.map_or(c, |s| RdpCurve::compose(&[s, c])));
                events = add_up(events, beta);
            }
            Err(reason) if strict => return Err(Unaccounted { index: Some(i), reason }),
            Err(_) => {}
        }
    }
    let Some(sum) = sum else { return Ok(Account::LocalRdp.zero(budget)) };
    let (delta_r, share) = local_rdp_split(delta);
    let epsilon = local_rdp_epsilon(&sum, delta_r);
    let negligible = manifold_dp::privacy::float_safety::negligible_delta(events, budget_epsilon.unwrap_or(epsilon));
    let delta = if negligible <= share { delta } else { add_up(delta_r, negligible).min(1.0) };
    Ok(Guarantee::ApproxDp { epsilon, delta })
}

/// Why a total cannot be formed: which release (its index in the list) cannot be expressed, and why.
#[derive(Debug, Clone)]
pub(crate) struct Unaccounted {
    /// Index of the release in the list given, if one release is to blame.
    pub index: Option<usize>,
    /// Why.
    pub reason: String,
}

/// The cost of one release in an account: `Ok(None)` when the account does not hold releases of its kind (a
/// local release in a central account, a central one in a metric account); `Err` when it does, but the release
/// implies nothing there (it is then refused against a budget, never charged 0).
pub(crate) fn cost(account: Account, release: &[Guarantee]) -> Result<Option<Guarantee>, String> {
    let kind = ReleaseKind::of(release);
    let target = match account {
        Account::Metric { metric, unit } => {
            if kind != ReleaseKind::Local {
                return Ok(None);
            }
            return express(&with_implied_metrics(release), Target::Metric { metric, unit }).map(Some).map_err(s);
        }
        Account::Overall if kind == ReleaseKind::Local => return local_as_pure(release).map(Some),
        // Totalled by [`local_rdp_total`], never summed as guarantees; a central release is not held there.
        Account::LocalRdp if kind == ReleaseKind::Local => return local_curve(release).map(|_| None),
        Account::LocalRdp => return Ok(None),
        Account::Overall => Target::Pure { diameter: None },
        Account::Notion(_) if kind == ReleaseKind::Local => return Ok(None),
        Account::Notion(Notion::Approx) => return approx_cost(release).map(Some),
        // The pure part of a release with a negligible δ (its ideal law's ε) is charged here; its δ, a bound
        // on the distance to that law, is summed beside ([`negligible_delta`]).
        Account::Notion(Notion::Zcdp) => return express(&ideal(release), Target::Zcdp).map(Some).map_err(s),
        Account::Notion(Notion::Gdp) => return express(&ideal(release), Target::Gdp).map(Some).map_err(s),
        Account::Notion(Notion::Rao) => Target::Rao,
        Account::Notion(_) => Target::Pure { diameter: None },
    };
    express(release, target).map(Some).map_err(s)
}

/// The release's guarantees with the negligible δ of its pure and GDP ones set to 0: the guarantees of the ideal
/// mechanism its computed one is within total variation δ of (under every input for the samplers' events,
/// `docs/proofs/float_safety.md` §6; per pair of neighbours for a GDP δ, `docs/proofs/accounting.md`, "GDP up to
/// δ"). Only for the zCDP and GDP accounts, which sum that δ beside their total.
fn ideal(release: &[Guarantee]) -> Vec<Guarantee> {
    release
        .iter()
        .map(|g| match *g {
            Guarantee::PureDp { epsilon, neighbouring, .. } => Guarantee::PureDp { epsilon, neighbouring, delta: 0.0 },
            Guarantee::Gdp { mu, .. } => Guarantee::gdp(mu),
            other => other,
        })
        .collect()
}

/// The negligible δ a zCDP or GDP account states beside its total: Σ over the releases it holds of the largest
/// δ of their pure and GDP guarantees (each ≥ the total-variation distance between the computed release and
/// its ideal one), rounded up and capped at 1. The whole view is then within total
/// variation of this sum from a view the account's own rule bounds (a union bound over the releases' events,
/// valid adaptively: `docs/proofs/accounting.md`, "The negligible δ"). 0 for other accounts, whose totals
/// carry their δ's themselves.
pub(crate) fn negligible_delta(account: Account, releases: &[&[Guarantee]]) -> f64 {
    if !matches!(account, Account::Notion(Notion::Zcdp | Notion::Gdp)) {
        return 0.0;
    }
    let per_release = releases.iter().filter(|r| ReleaseKind::of(r) == ReleaseKind::Central).map(|r| {
        r.iter()
            .filter(|g| matches!(g, Guarantee::PureDp { .. } | Guarantee::Gdp { .. }))
            .map(Guarantee::delta)
            .fold(0.0, f64::max)
    });
    per_release.fold(0.0, add_up).min(1.0)
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
/// sequentially and rounded up: Σεᵢ (pure, metric, with Σε₀ᵢ beside), (Σεᵢ, Σδᵢ) (approximate), Σρᵢ, √Σμᵢ²,
/// √Σθᵢ², over the releases the account holds. Each release's cost depends on that release alone, so admitting
/// while the total fits the budget is the filter of `docs/proofs/accounting.md` ("The ledger is a filter").
/// With `strict` a release the account holds but cannot express is an error (an account with a budget);
/// without, it is left out of this view. `budget` only names the Rao family of an empty total.
pub(crate) fn total(
    account: Account,
    releases: &[&[Guarantee]],
    budget: Option<&Guarantee>,
    strict: bool,
) -> Result<Guarantee, Unaccounted> {
    if account == Account::LocalRdp {
        return local_rdp_total(releases, budget, strict);
    }
    let mut costs = Vec::new();
    for (i, r) in releases.iter().enumerate() {
        match cost(account, r) {
            Ok(Some(c)) => costs.push(c),
            Ok(None) => {}
            Err(reason) if strict => return Err(Unaccounted { index: Some(i), reason }),
            Err(_) => {}
        }
    }
    if costs.is_empty() {
        return Ok(account.zero(budget));
    }
    compose(&costs).map_err(|e| Unaccounted { index: None, reason: e.to_string() })
}

/// Whether `total`, the rounded-up total of `releases` releases, fits `budget` as the decimals people write
/// (`docs/proofs/accounting.md`, "Decimals"). Each ε asked and the budget are the doubles nearest the decimals
/// typed (within 2^-53 of their size), and every sum, conversion and root is rounded up (within 2^-52 per step),
/// so a total that equals its budget in decimal exceeds it in binary by a few ulps (0.1 + 0.1 + 0.1 > 0.3): three
/// releases at ε = 0.1 were refused on a budget of 0.3. The budget is compared widened by (4·releases + 4)·2^-53
/// of itself, which covers those roundings, and never by more than [`DECIMAL_SLACK`] (so many tiny releases
/// cannot add up to more): the total admitted is at most that fraction above the stated budget.
pub(crate) fn fits(total: &Guarantee, budget: &Guarantee, releases: usize) -> bool {
    let widen = 1.0 + ((4.0 * releases as f64 + 4.0) * (f64::EPSILON / 2.0)).min(DECIMAL_SLACK);
    let w = |x: f64| x * widen;
    let widened = match *budget {
        Guarantee::PureDp { epsilon, neighbouring, delta } => {
            Guarantee::PureDp { epsilon: w(epsilon), neighbouring, delta: w(delta) }
        }
        Guarantee::ApproxDp { epsilon, delta } => Guarantee::ApproxDp { epsilon: w(epsilon), delta: w(delta) },
        Guarantee::Zcdp { rho } => Guarantee::Zcdp { rho: w(rho) },
        Guarantee::Gdp { mu, delta } => Guarantee::gdp_with_delta(w(mu), w(delta)),
        Guarantee::RaoDp { theta, family } => Guarantee::RaoDp { theta: w(theta), family },
        Guarantee::MetricDp { epsilon, additive_epsilon, metric, unit, grid, delta_base, renyi } => {
            Guarantee::MetricDp {
                epsilon: w(epsilon),
                additive_epsilon: w(additive_epsilon),
                metric,
                unit,
                grid,
                delta_base: w(delta_base),
                renyi,
            }
        }
    };
    total.fits_within(&widened).unwrap_or(false)
}

/// [`fits`] in `account`: the local Rényi account compares exactly (its total is already a bound read off
/// the filter's rule, `docs/proofs/accounting.md`, "Local releases in Rényi DP"), every other one as [`fits`].
pub(crate) fn fits_in(account: Account, total: &Guarantee, budget: &Guarantee, releases: usize) -> bool {
    if account == Account::LocalRdp {
        return total.fits_within(budget).unwrap_or(false);
    }
    fits(total, budget, releases)
}

/// The most a budget is widened by for decimal sums (`fits`): 2^-40 ≈ 9.1·10⁻¹³ of it, reached at 2046
/// releases. Beyond, sums of decimals that equal the budget may be refused by a few ulps, as before.
pub const DECIMAL_SLACK: f64 = 1.0 / (1u64 << 40) as f64;

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
/// √(b² − t²) for GDP μ and Rao θ (they compose in quadrature). A metric or pure budget's δ is a cap only
/// where it is > 0; with none, none is left to state (0).
pub(crate) fn remaining(total: &Guarantee, budget: &Guarantee) -> Option<Guarantee> {
    let minus = |b: f64, t: f64| sub_down(b, t).max(0.0);
    let quad = quadrature_left;
    Some(match (*total, *budget) {
        (
            Guarantee::MetricDp { epsilon: t, additive_epsilon: at, .. },
            Guarantee::MetricDp { epsilon: b, metric, unit, additive_epsilon: ab, .. },
        ) => Guarantee::metric_dp_in(minus(b, t), metric, unit, minus(ab, at))
            .with_delta(minus(budget.delta(), total.delta())),
        (
            Guarantee::PureDp { epsilon: t, delta: dt, .. },
            Guarantee::PureDp { epsilon: b, neighbouring, delta: db },
        ) => Guarantee::PureDp { epsilon: minus(b, t), neighbouring, delta: minus(db, dt) },
        (Guarantee::ApproxDp { epsilon: t, delta: dt }, Guarantee::ApproxDp { epsilon: b, delta: db }) => {
            Guarantee::ApproxDp { epsilon: minus(b, t), delta: minus(db, dt) }
        }
        (Guarantee::Zcdp { rho: t }, Guarantee::Zcdp { rho: b }) => Guarantee::Zcdp { rho: minus(b, t) },
        (Guarantee::Gdp { mu: t, delta: dt }, Guarantee::Gdp { mu: b, delta: db }) => {
            Guarantee::gdp_with_delta(quad(b, t), minus(db, dt))
        }
        (Guarantee::RaoDp { theta: t, .. }, Guarantee::RaoDp { theta: b, family }) => {
            Guarantee::RaoDp { theta: quad(b, t), family }
        }
        _ => return None,
    })
}

/// The standard guarantee shown beside a total: (ε, δ) at [`REPORT_DELTA`] for zCDP, GDP and Gaussian Rao
/// totals (plus `negligible` Δ as Δ·(1 + e^ε): the view is within total variation Δ of one that is
/// (ε, [`REPORT_DELTA`])-DP); pure ε·diameter for metric totals in a bounded space; for a Rao total outside the
/// Gaussian family (which implies no test bound), the data set's pure total, or else its approximate total.
pub(crate) fn standard_companion(
    total: &Guarantee,
    negligible: f64,
    pure: Option<&Guarantee>,
    approx: Option<&Guarantee>,
) -> Option<Guarantee> {
    let at_delta = Target::Approx { delta: Some(REPORT_DELTA), epsilon: None };
    match *total {
        Guarantee::Zcdp { .. } | Guarantee::Gdp { .. } | Guarantee::RaoDp { family: RaoFamily::Gaussian, .. } => {
            convert(total, at_delta).ok().map(|g| {
                let loss = g.epsilon().unwrap_or(f64::INFINITY);
                g.with_delta(manifold_dp::privacy::float_safety::negligible_delta(negligible, loss))
            })
        }
        Guarantee::RaoDp { .. } => pure.or(approx).copied(),
        Guarantee::MetricDp { metric, unit, .. } => {
            diameter(metric, unit).and_then(|d| convert(total, Target::Pure { diameter: Some(d) }).ok())
        }
        Guarantee::PureDp { .. } | Guarantee::ApproxDp { .. } => None,
    }
}

/// The combined guarantee of a data set's releases: `local` (Σ ε per unit of the label's metric, with Σε₀
/// beside as its `additive_epsilon`) and `central` (the central releases' pure total, or their (ε, δ) total
/// when some has no pure ε), read as ε ≤ ε_L·d + (ε_C + Σε₀), and as standard DP through the metric's
/// diameter. `None` when the central total has no (ε, δ) form (a Rao total outside the Gaussian family).
pub(crate) fn combined(local: Option<Guarantee>, central: Option<Guarantee>) -> Option<crate::Combined> {
    let central = central?;
    let (central_epsilon, delta) = match central {
        Guarantee::PureDp { epsilon, delta, .. } | Guarantee::ApproxDp { epsilon, delta } => (epsilon, delta),
        _ => return None,
    };
    let additive = local.map_or(0.0, |l| l.additive_epsilon());
    let constant = add_up(central_epsilon, additive);
    let per_unit = local.and_then(|l| l.epsilon()).unwrap_or(0.0);
    let diameter = match local {
        Some(Guarantee::MetricDp { metric, unit, .. }) => diameter(metric, unit),
        _ => None,
    };
    let at_most =
        if per_unit == 0.0 { Some(constant) } else { diameter.map(|d| add_up(mul_up(per_unit, d), constant)) };
    // At d ≤ diameter the local releases' δ is at most δ_B·(1 + e^{ε_L·D + Σε₀}); the central δ adds.
    let local_delta = match (local, diameter) {
        (Some(l), Some(d)) => l.metric_delta_at(d).unwrap_or(0.0),
        _ => 0.0,
    };
    let standard = at_most.map(|epsilon| match central {
        Guarantee::ApproxDp { .. } => Guarantee::ApproxDp { epsilon, delta: add_up(delta, local_delta).min(1.0) },
        _ => Guarantee::pure(epsilon).with_delta(delta).with_delta(local_delta),
    });
    Some(crate::Combined { local, central, constant, delta, diameter, standard })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_diameters() {
        assert_eq!(Account::of(&Guarantee::pure(1.0)).key(), "pure");
        assert_eq!(Account::of(&Guarantee::metric_dp(1.0, Metric::So3Geodesic)).key(), "metric:so3_geodesic:rad");
        for a in [
            Account::Overall,
            Account::Notion(Notion::Zcdp),
            Account::Metric { metric: Metric::SphereSurface, unit: "km" },
        ] {
            assert_eq!(Account::from_key(&a.key()), Some(a));
        }
        assert_eq!(Account::from_key("metric"), None);
        assert_eq!(diameter(Metric::SphereChordal, "unit"), Some(2.0));
        assert_eq!(diameter(Metric::SpdAffineInvariant, "unit"), None);
        let km = diameter(Metric::SphereSurface, "km").unwrap();
        assert!(km > 20015.0 && km < 20016.0, "{km}");
        let h = diameter(Metric::SphereSurface, "h").unwrap();
        assert!((12.0..12.0 + 1e-12).contains(&h), "{h}");
    }

    #[test]
    fn local_releases_count_in_metric_accounts_and_the_overall_cap_only() {
        let release = [Guarantee::metric_dp(1.0, Metric::So3Geodesic)];
        assert_eq!(cost(Account::Notion(Notion::Pure), &release).unwrap(), None);
        let overall = cost(Account::Overall, &release).unwrap().unwrap();
        assert!(overall.epsilon().unwrap() >= PI && overall.epsilon().unwrap() < PI + 1e-12);
        let spd = [Guarantee::metric_dp(1.0, Metric::SpdAffineInvariant)];
        assert!(cost(Account::Overall, &spd).is_err());
        let central = [Guarantee::pure(1.0)];
        assert_eq!(cost(Account::Metric { metric: Metric::So3Geodesic, unit: "rad" }, &central).unwrap(), None);
    }

    #[test]
    fn chordal_implies_great_circle_and_other_metrics_imply_nothing() {
        let vmf = [Guarantee::metric_dp_in(0.5, Metric::SphereChordal, "unit", 1e-4)];
        let rad = cost(Account::Metric { metric: Metric::SphereSurface, unit: "rad" }, &vmf).unwrap().unwrap();
        assert_eq!(rad, Guarantee::metric_dp_in(0.5, Metric::SphereSurface, "rad", 1e-4));
        let km = cost(Account::Metric { metric: Metric::SphereSurface, unit: "km" }, &vmf).unwrap().unwrap();
        assert!(km.epsilon().unwrap() > 0.5 / 6372.0 && km.additive_epsilon() == 1e-4, "{km}");
        let so3 = [Guarantee::metric_dp(1.0, Metric::So3Geodesic)];
        assert!(cost(Account::Metric { metric: Metric::SphereSurface, unit: "km" }, &so3).is_err());
        let tangent = [Guarantee::metric_dp(1.0, Metric::TangentPlane)];
        assert!(cost(Account::Metric { metric: Metric::SphereSurface, unit: "rad" }, &tangent).is_err());
    }

    #[test]
    fn approximate_total_of_gdp_uses_the_exact_curve() {
        let g = [Guarantee::gdp(0.5)];
        let t = total(Account::Notion(Notion::Approx), &[&g], None, true).unwrap();
        let exact = convert(&g[0], Target::Approx { delta: Some(REPORT_DELTA), epsilon: None }).unwrap();
        assert_eq!(t, exact);
        // zCDP's bound at the same δ is looser: ρ + 2√(ρ ln 1/δ) with ρ = μ²/2.
        let rho: f64 = 0.125;
        assert!(t.epsilon().unwrap() < rho + 2.0 * (rho * 1e6f64.ln()).sqrt() - 0.1);
    }

    #[test]
    fn remaining_is_rounded_down() {
        let left = remaining(&Guarantee::pure(0.75), &Guarantee::pure(1.0)).unwrap();
        assert_eq!(left, Guarantee::pure(0.25));
        let left = remaining(&Guarantee::gdp(0.6), &Guarantee::gdp(1.0)).unwrap();
        let Guarantee::Gdp { mu, .. } = left else { panic!() };
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
        let pure = [Guarantee::pure(0.5)];
        let z = [Guarantee::Zcdp { rho: 0.01 }];
        let at = Target::Approx { delta: Some(REPORT_DELTA), epsilon: None };
        let one = convert(&z[0], at).unwrap();
        let budget = Guarantee::ApproxDp { epsilon: 10.0, delta: 1e-5 };
        let approx = Account::Notion(Notion::Approx);
        assert_eq!(total(approx, &[&z], Some(&budget), true).unwrap(), one);
        let t = total(approx, &[&pure, &z, &z], Some(&budget), true).unwrap();
        let Guarantee::ApproxDp { epsilon, delta } = t else { panic!("{t}") };
        assert_eq!(delta, add_up(REPORT_DELTA, REPORT_DELTA));
        let e1 = one.epsilon().unwrap();
        assert_eq!(epsilon, add_up(add_up(0.5, e1), e1));
        // ε = ρ + 2√(ρ ln(1/δ)) at δ = 1e-6, not at the 1e-5 of the budget.
        assert!((e1 - (0.01 + 2.0 * (0.01 * 1e6f64.ln()).sqrt())).abs() < 1e-9, "{e1}");
    }
}
