//! `manifold-dp budget compose|convert`, and the notions and guarantees that `budget ledger` shares.

use super::LedgerArgs;
use crate::BadInput;
use clap::{Args, Subcommand, ValueEnum};
use manifold_dp::privacy::{Guarantee, Metric, Notion, RaoFamily};
use manifold_dp::registry::Space;
use serde_json::json;

/// `manifold-dp budget …`.
#[derive(Debug, Subcommand)]
pub enum BudgetCommand {
    /// Total cost of several releases in one notion (sequential, or --parallel over parts split by a public
    /// --partition-key), with the standard guarantees the total implies.
    Compose(ComposeArgs),
    /// Convert a guarantee to another notion where that holds (pure → zcdp, gdp, approx; metric → pure with a
    /// diameter; zcdp → approx; gdp → zcdp, approx and the exact (epsilon, delta) curve; Gaussian rao = gdp);
    /// conversions that do not hold are refused with the reason.
    Convert(ConvertArgs),
    /// A privacy ledger (an SQLite file): record releases per data set, hold budgets per notion, refuse a
    /// release over budget (exit 4), and answer "what have I spent, and may I release once more?".
    Ledger(LedgerArgs),
}

/// The most releases one `budget compose` adds up (values × --times): the composition holds them in memory.
pub const MAX_RELEASES: usize = 1_000_000;

/// A privacy notion on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NotionArg {
    /// Pure epsilon-DP (values: epsilon).
    Pure,
    /// Approximate (epsilon, delta)-DP (values: epsilon,delta).
    Approx,
    /// rho-zero-concentrated DP (values: rho).
    Zcdp,
    /// mu-Gaussian DP (values: mu).
    Gdp,
    /// theta-Rao DP (values: theta; the family with --family).
    Rao,
    /// Metric DP, epsilon per unit of --metric (values: epsilon).
    Metric,
}

impl NotionArg {
    /// The library's notion.
    pub fn notion(self) -> Notion {
        match self {
            NotionArg::Pure => Notion::Pure,
            NotionArg::Approx => Notion::Approx,
            NotionArg::Zcdp => Notion::Zcdp,
            NotionArg::Gdp => Notion::Gdp,
            NotionArg::Rao => Notion::Rao,
            NotionArg::Metric => Notion::Metric,
        }
    }
}

/// Options that complete a guarantee given as a bare number: the Rao family and the metric.
#[derive(Debug, Args)]
pub struct GuaranteeContext {
    /// Rao DP only: the parametric family the Fisher-Rao distance is measured in: gaussian, laplace or gg:N
    /// (generalized Gaussian of degree N). Only gaussian converts to a standard notion.
    #[arg(long, default_value = "gaussian")]
    pub family: String,
    /// Metric DP only: the metric (so3_geodesic, sphere_surface, sphere_chordal, tangent_plane,
    /// spd_affine_invariant, spd_log_euclidean, spd_computed_log_coordinates), or the space whose releases it
    /// is for (so3, latlon, timeofday, circle, sphere:N; latlon is per km and timeofday per h unless --unit).
    #[arg(long, default_value = "so3_geodesic")]
    pub metric: String,
    /// Metric DP only: the unit epsilon is per (rad, deg, h, km, min, unit); default: the metric's own.
    #[arg(long)]
    pub unit: Option<String>,
}

impl GuaranteeContext {
    fn family(&self) -> Result<RaoFamily, BadInput> {
        match self.family.trim() {
            "gaussian" => Ok(RaoFamily::Gaussian),
            "laplace" => Ok(RaoFamily::Laplace),
            other => other
                .strip_prefix("gg:")
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|&n| n >= 1)
                .map(|order| RaoFamily::GeneralizedGaussian { order })
                .ok_or_else(|| BadInput(format!("unknown --family {other:?}: use gaussian, laplace or gg:N (N >= 1)"))),
        }
    }

    /// The metric of --metric, and the unit of --unit (default: the metric's own).
    pub fn metric(&self) -> Result<(Metric, &'static str), BadInput> {
        let name = self.metric.trim().replace('-', "_");
        // A space's name stands for the metric of its releases, per the unit its reports speak.
        let space = name.parse::<Space>().ok().filter(|s| s.local_metric().is_some());
        let metric = match space.and_then(Space::local_metric) {
            Some(m) => m,
            None => serde_json::from_value(json!(name)).map_err(|_| {
                BadInput(format!(
                    "unknown --metric {:?}: use so3_geodesic, sphere_surface, sphere_chordal, tangent_plane, \
                     spd_affine_invariant, spd_log_euclidean or spd_computed_log_coordinates, or a space's name \
                     (so3, latlon, timeofday, circle, sphere:N)",
                    self.metric
                ))
            })?,
        };
        let unit = match &self.unit {
            None => space.map_or(metric.unit(), Space::budget_unit),
            Some(u) => manifold_dp::privacy::guarantee::static_unit(u.trim()).ok_or_else(|| {
                BadInput(format!("unknown --unit {u:?}: use one of {:?}", manifold_dp::privacy::guarantee::UNITS))
            })?,
        };
        Ok((metric, unit))
    }

    /// [`GuaranteeContext::parse`], where a pure or GDP value may also carry a release's negligible δ
    /// (`1,1e-300`): pure ε up to δ, μ-GDP up to δ, as a release's report states them.
    pub fn parse_with_delta(&self, notion: NotionArg, value: &str) -> Result<Guarantee, BadInput> {
        let Some((main, delta)) = value.split_once(',').filter(|_| matches!(notion, NotionArg::Pure | NotionArg::Gdp))
        else {
            return self.parse(notion, value);
        };
        let delta = delta
            .trim()
            .parse::<f64>()
            .map_err(|_| BadInput(format!("cannot read delta {delta:?} in {value:?}: write a number")))?;
        let g = match self.parse(notion, main)? {
            Guarantee::PureDp { epsilon, neighbouring, .. } => Guarantee::PureDp { epsilon, neighbouring, delta },
            Guarantee::Gdp { mu, .. } => Guarantee::gdp_with_delta(mu, delta),
            other => other,
        };
        g.validate().map_err(|e| BadInput(format!("{value:?}: {e}")))
    }

    /// The guarantee of `notion` written as `value` (`0.5`, or `0.5,1e-6` for approx).
    pub fn parse(&self, notion: NotionArg, value: &str) -> Result<Guarantee, BadInput> {
        let number = |s: &str, what: &str| {
            s.trim()
                .parse::<f64>()
                .map_err(|_| BadInput(format!("cannot read {what} {s:?} in {value:?}: write a number")))
        };
        let g = match notion {
            NotionArg::Approx => {
                let (e, d) = value.split_once(',').ok_or_else(|| {
                    BadInput(format!("cannot read {value:?} as an approximate guarantee: write epsilon,delta (1,1e-6)"))
                })?;
                Guarantee::ApproxDp { epsilon: number(e, "epsilon")?, delta: number(d, "delta")? }
            }
            NotionArg::Pure => Guarantee::pure(number(value, "epsilon")?),
            NotionArg::Zcdp => Guarantee::Zcdp { rho: number(value, "rho")? },
            NotionArg::Gdp => Guarantee::gdp(number(value, "mu")?),
            NotionArg::Rao => Guarantee::RaoDp { theta: number(value, "theta")?, family: self.family()? },
            NotionArg::Metric => {
                let (metric, unit) = self.metric()?;
                Guarantee::metric_dp_in(number(value, "epsilon")?, metric, unit, 0.0)
            }
        };
        g.validate().map_err(|e| BadInput(format!("{value:?}: {e}")))
    }
}

#[derive(Debug, Args)]
pub struct ComposeArgs {
    /// The notion every value is stated in.
    #[arg(long, value_enum)]
    pub notion: NotionArg,
    /// One value per release: epsilon (pure, metric), epsilon,delta (approx), rho (zcdp), mu (gdp), theta (rao).
    #[arg(required = true, num_args = 1..)]
    pub values: Vec<String>,
    /// Count every value this many times (ten releases at the same cost: one value and --times 10); at most
    /// 1000000 releases in all.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=MAX_RELEASES as u64))]
    pub times: u64,
    /// The releases use disjoint parts of the data, split by the public key given with --partition-key (each
    /// record in one part, fixed by a value that is public and the same in neighbouring data sets): the total
    /// is the largest cost, not the sum.
    #[arg(long)]
    pub parallel: bool,
    /// With --parallel, required: the public key that splits the data into parts (a column whose values are
    /// public and not changed by replacing a record's private values, such as a site or a day). A partition
    /// by the records' own values is not parallel composition: compose those releases sequentially.
    #[arg(long, value_name = "COLUMN", requires = "parallel")]
    pub partition_key: Option<String>,
    /// The delta at which totals in zCDP and GDP (and Gaussian Rao) are also stated as (epsilon, delta), and
    /// the slack of advanced composition for approx.
    #[arg(long, default_value_t = 1e-6)]
    pub delta: f64,
    /// With --notion metric and --metric a space (so3, latlon, circle, timeofday, sphere:N): the values are
    /// the budgets of local releases by this mechanism (vmf, purkayastha, laplace, bingham), each value in the
    /// metric's unit; the total is also composed by the mechanism's Rényi curve and stated as
    /// (epsilon, --delta), usually far below the linear total for many releases of one person's point.
    #[arg(long, value_name = "MECHANISM")]
    pub local_mechanism: Option<String>,
    #[command(flatten)]
    pub context: GuaranteeContext,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The guarantee to convert: a notion and its value, e.g. `--from gdp 1.0` or `--from approx 1,1e-6`. A pure
    /// or gdp value may carry a release's negligible delta as its report states it (`--from pure 1,1e-300`:
    /// pure epsilon up to the samplers' events of probability at most that delta; `--from gdp 1,2e-280`: GDP up
    /// to delta); a general (epsilon, delta) guarantee is `approx`.
    #[arg(long, num_args = 2, value_names = ["NOTION", "VALUE"], allow_hyphen_values = true)]
    pub from: Vec<String>,
    /// The notion wanted.
    #[arg(long, value_enum)]
    pub to: NotionArg,
    /// To approx: the delta wanted (gives the epsilon at this delta).
    #[arg(long)]
    pub delta: Option<f64>,
    /// To approx: the epsilon wanted (gives the delta at this epsilon).
    #[arg(long)]
    pub epsilon: Option<f64>,
    /// From metric to pure: the diameter of the input space (the largest distance between two records) in the
    /// metric's unit (pi for directions or rotations in rad).
    #[arg(long)]
    pub diameter: Option<f64>,
    /// From gdp (or Gaussian rao) or zcdp to approx: print the whole (epsilon, delta) curve.
    #[arg(long)]
    pub curve: bool,
    #[command(flatten)]
    pub context: GuaranteeContext,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}
