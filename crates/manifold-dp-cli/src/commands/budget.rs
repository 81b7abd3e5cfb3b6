//! `manifold-dp budget compose|convert`: total cost of several releases and conversions between privacy
//! notions. The arithmetic is the library's (`manifold_dp::privacy::accounting`); this file parses and prints.

use crate::BadInput;
use anyhow::Result;
use clap::{Args, ValueEnum};
use manifold_dp::privacy::guarantee::short_up;
use manifold_dp::privacy::{
    Guarantee, Metric, Notion, RaoFamily, Target, compose, compose_advanced, compose_parallel, convert,
};
use serde_json::{Value, json};
use std::io::Write;

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
    fn notion(self) -> Notion {
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
    /// spd_affine_invariant, spd_log_euclidean).
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

    fn metric(&self) -> Result<(Metric, &'static str), BadInput> {
        let name = self.metric.trim().replace('-', "_");
        let metric: Metric = serde_json::from_value(json!(name)).map_err(|_| {
            BadInput(format!(
                "unknown --metric {:?}: use so3_geodesic, sphere_surface, sphere_chordal, tangent_plane, \
                 spd_affine_invariant or spd_log_euclidean",
                self.metric
            ))
        })?;
        let unit = match &self.unit {
            None => metric.unit(),
            Some(u) => manifold_dp::privacy::guarantee::static_unit(u.trim()).ok_or_else(|| {
                BadInput(format!("unknown --unit {u:?}: use one of {:?}", manifold_dp::privacy::guarantee::UNITS))
            })?,
        };
        Ok((metric, unit))
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
            NotionArg::Pure => Guarantee::PureDp { epsilon: number(value, "epsilon")? },
            NotionArg::Zcdp => Guarantee::Zcdp { rho: number(value, "rho")? },
            NotionArg::Gdp => Guarantee::Gdp { mu: number(value, "mu")? },
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
    /// The releases use disjoint parts of the data (each record in at most one part): the total is the
    /// largest cost, not the sum.
    #[arg(long)]
    pub parallel: bool,
    /// The delta at which totals in zCDP and GDP (and Gaussian Rao) are also stated as (epsilon, delta), and
    /// the slack of advanced composition for approx.
    #[arg(long, default_value_t = 1e-6)]
    pub delta: f64,
    #[command(flatten)]
    pub context: GuaranteeContext,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The guarantee to convert: a notion and its value, e.g. `--from gdp 1.0` or `--from approx 1,1e-6`.
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

fn implied_json(list: &[(String, manifold_dp::Fallible<Guarantee>)]) -> Value {
    Value::Object(
        list.iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    match v {
                        Ok(g) => json!(g),
                        Err(why) => json!({ "refused": why.to_string() }),
                    },
                )
            })
            .collect(),
    )
}

/// The most releases one `budget compose` adds up (values × --times): the composition holds them in memory.
pub const MAX_RELEASES: usize = 1_000_000;

pub fn compose_cmd(args: ComposeArgs) -> Result<()> {
    let times = usize::try_from(args.times).unwrap_or(usize::MAX);
    if times == 0 || args.values.len().saturating_mul(times) > MAX_RELEASES {
        return Err(BadInput(format!(
            "--times {} with {} values is {} releases; compose at least 1 and at most {MAX_RELEASES}",
            args.times,
            args.values.len(),
            (args.values.len() as u128) * u128::from(args.times)
        ))
        .into());
    }
    let one_each: Vec<Guarantee> =
        args.values.iter().map(|v| args.context.parse(args.notion, v)).collect::<Result<_, _>>()?;
    let costs: Vec<Guarantee> = one_each.iter().flat_map(|g| std::iter::repeat_n(*g, times)).collect();
    let total = if args.parallel { compose_parallel(&costs)? } else { compose(&costs)? };
    let advanced = match (args.notion, args.parallel) {
        (NotionArg::Approx | NotionArg::Pure, false) if costs.len() > 1 => Some(compose_advanced(&costs, args.delta)?),
        _ => None,
    };
    let implied = manifold_dp::privacy::implied(&costs, args.parallel, args.delta);
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut obj = json!({
            "notion": args.notion.notion().as_str(),
            "releases": costs.len(),
            "composition": if args.parallel { "parallel" } else { "sequential" },
            "total": total,
            "implied": implied_json(&implied),
            "has_testing_meaning": args.notion.notion().has_testing_meaning(),
        });
        if let Some(a) = advanced {
            obj["advanced"] = json!(a);
        }
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    let how = if args.parallel { "parallel (disjoint data)" } else { "sequential" };
    writeln!(out, "{} releases, {how} composition", costs.len())?;
    writeln!(out, "total:    {total}")?;
    if let Some(a) = advanced {
        writeln!(out, "advanced: {a} (slack delta' = {}; use whichever of the two suits you)", short_up(args.delta))?;
    }
    for (name, g) in &implied {
        match g {
            Ok(g) => writeln!(out, "implies:  {g}   [{name}]")?,
            Err(why) => writeln!(out, "implies no {name} guarantee: {why}")?,
        }
    }
    if !args.notion.notion().has_testing_meaning() && implied.iter().all(|(_, g)| g.is_err()) {
        writeln!(
            out,
            "note:     a Rao total bounds a Fisher-Rao distance, not a test; report the standard guarantee each \
             mechanism states beside it (`budget ledger show` does)"
        )?;
    }
    Ok(())
}

pub fn convert_cmd(args: ConvertArgs) -> Result<()> {
    let [notion, value] = args.from.as_slice() else {
        return Err(BadInput("--from takes a notion and a value, e.g. --from gdp 1.0".into()).into());
    };
    let notion = NotionArg::from_str(notion, true).map_err(|_| {
        BadInput(format!("unknown notion {notion:?} after --from: use pure, approx, zcdp, gdp, rao or metric"))
    })?;
    let from = args.context.parse(notion, value)?;
    let target = match args.to {
        NotionArg::Pure => Target::Pure { diameter: args.diameter },
        NotionArg::Approx => Target::Approx { delta: args.delta, epsilon: args.epsilon },
        NotionArg::Zcdp => Target::Zcdp,
        NotionArg::Gdp => Target::Gdp,
        NotionArg::Rao => Target::Rao,
        NotionArg::Metric => {
            let (metric, unit) = args.context.metric()?;
            Target::Metric { metric, unit }
        }
    };
    let curve = if args.curve { Some(curve(&from)?) } else { None };
    let converted = match (args.to, args.delta, args.epsilon, &curve) {
        // With --curve and no point asked for, the curve is the answer.
        (NotionArg::Approx, None, None, Some(_)) => None,
        _ => Some(convert(&from, target)?),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut obj = json!({ "from": from, "to": args.to.notion().as_str() });
        if let Some(c) = converted {
            obj["result"] = json!(c);
        }
        if let Some(points) = &curve {
            obj["curve"] = json!(points.iter().map(|g| json!(g)).collect::<Vec<_>>());
        }
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    writeln!(out, "from:   {from}")?;
    if let Some(c) = converted {
        writeln!(out, "to:     {c}")?;
    }
    if let Some(points) = &curve {
        writeln!(out, "(epsilon, delta) curve:")?;
        writeln!(out, "  {:>10}  {:>12}", "epsilon", "delta")?;
        for g in points {
            if let Guarantee::ApproxDp { epsilon, delta } = g {
                writeln!(out, "  {:>10}  {:>12}", short_up(*epsilon), short_up(*delta))?;
            }
        }
    }
    Ok(())
}

/// Points of the (ε, δ) curve of a zCDP, GDP or Gaussian-Rao guarantee at round values of ε.
fn curve(from: &Guarantee) -> Result<Vec<Guarantee>> {
    const EPSILONS: [f64; 12] = [0.0, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0];
    let mut points = Vec::new();
    for e in EPSILONS {
        match convert(from, Target::Approx { delta: None, epsilon: Some(e) }) {
            Ok(g) => points.push(g),
            // zCDP's curve starts above ε = ρ.
            Err(manifold_dp::Error::InvalidParameter { name: "epsilon", .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(points)
}
