//! `manifold-dp budget compose|convert`: total cost of several releases and conversions between privacy
//! notions. The arithmetic is the library's (`manifold_dp::privacy::accounting`); this file parses and prints.

use crate::BadInput;
use crate::args::{ComposeArgs, ConvertArgs, MAX_RELEASES, NotionArg};
use anyhow::Result;
use clap::ValueEnum;
use manifold_dp::error::Param;
use manifold_dp::privacy::guarantee::short_up;
use manifold_dp::privacy::{Guarantee, Target, compose, compose_advanced, compose_parallel, convert};
use serde_json::{Value, json};
use std::io::Write;

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
    let partition_key = parallel_key(&args)?;
    let one_each: Vec<Guarantee> =
        args.values.iter().map(|v| args.context.parse(args.notion, v)).collect::<Result<_, _>>()?;
    let costs: Vec<Guarantee> = one_each.iter().flat_map(|g| std::iter::repeat_n(*g, times)).collect();
    let total = if args.parallel { compose_parallel(&costs)? } else { compose(&costs)? };
    let advanced = match (args.notion, args.parallel) {
        (NotionArg::Approx | NotionArg::Pure, false) if costs.len() > 1 => Some(compose_advanced(&costs, args.delta)?),
        _ => None,
    };
    let implied = manifold_dp::privacy::implied(&costs, args.parallel, args.delta);
    let renyi = match &args.local_mechanism {
        Some(name) => Some(local_renyi(&args, name, &one_each)?),
        None => None,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut obj = json!({
            "notion": args.notion.notion().as_str(),
            "releases": costs.len(),
            "composition": if args.parallel { "parallel" } else { "sequential" },
            "partition_key": partition_key,
            "total": total,
            "implied": implied_json(&implied),
            "has_testing_meaning": args.notion.notion().has_testing_meaning(),
        });
        if let Some(a) = advanced {
            obj["advanced"] = json!(a);
        }
        if let Some(report) = &renyi {
            obj["renyi"] = json!(report);
        }
        writeln!(out, "{obj}")?;
        return Ok(());
    }
    let how = match partition_key {
        Some(key) => format!("parallel (parts split by the public key {key:?})"),
        None => "sequential".to_string(),
    };
    writeln!(out, "{} releases, {how} composition", costs.len())?;
    writeln!(out, "total:    {total}")?;
    if let Some(a) = advanced {
        writeln!(out, "advanced: {a} (slack delta' = {}; use whichever of the two suits you)", short_up(args.delta))?;
    }
    if let Some(r) = &renyi {
        writeln!(
            out,
            "renyi:    {}   [the {} releases' Renyi curves composed, read at order {}]",
            r.total, r.mechanism, r.order
        )?;
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

/// The sequential total of local releases by `name` composed by their Rényi curves and converted at
/// `--delta` (`docs/proofs/renyi_local.md` §5), and the order it was read at. Each value is a metric budget in
/// the space's unit, restated per radian to build the mechanism as `privatize` does.
fn local_renyi(
    args: &ComposeArgs,
    name: &str,
    one_each: &[Guarantee],
) -> Result<manifold_dp::privacy::renyi::RenyiReport> {
    use manifold_dp::privacy::renyi::{RdpCurve, RenyiReport};
    use manifold_dp::registry::{Budget, MechanismName, PointMechanism, Space};
    if args.notion != NotionArg::Metric || args.parallel {
        return Err(BadInput(
            "--local-mechanism composes local releases: use it with --notion metric, sequential".into(),
        )
        .into());
    }
    let space = args.context.metric.trim().parse::<Space>().ok().filter(|s| s.local_metric().is_some()).ok_or_else(
        || BadInput(format!("--local-mechanism needs --metric to name the space (so3, latlon, circle, timeofday, sphere:N), not {:?}", args.context.metric)),
    )?;
    let mechanism = name.trim().parse::<MechanismName>().map_err(|e| BadInput(format!("--local-mechanism: {e}")))?;
    let metric = space.local_metric().expect("filtered above");
    let mut curves = Vec::with_capacity(one_each.len());
    for g in one_each {
        let per_rad = convert(g, Target::Metric { metric, unit: "rad" })?.epsilon().expect("a metric guarantee");
        let m = PointMechanism::new(space, mechanism, Budget::Epsilon(per_rad))?;
        curves.push(m.renyi_curve()?.repeated(args.times));
    }
    let releases = one_each.len() as u64 * args.times;
    Ok(RenyiReport::new(mechanism.as_str(), releases, &RdpCurve::compose(&curves), args.delta)?)
}

/// The public key of a parallel composition: required with `--parallel`, because the largest cost bounds the
/// total only when a record's part cannot change between neighbouring data sets. Under replace-one neighbours a
/// partition by record values (latitude > 0) can move the replaced record from one part to another, so two
/// parts change and the cost can be their sum (`docs/proofs/accounting.md`, "Parallel composition").
fn parallel_key(args: &ComposeArgs) -> Result<Option<&str>> {
    if !args.parallel {
        return Ok(None);
    }
    match args.partition_key.as_deref().map(str::trim) {
        Some(key) if !key.is_empty() => Ok(Some(key)),
        _ => Err(BadInput(
            "--parallel needs --partition-key COLUMN: the public key that splits the data into parts (a column \
             whose values are public and stay the same when a record's private values are replaced, such as a \
             site or a day). A partition by the records' own values (latitude > 0, an angle, a time of day) is \
             not parallel composition: replacing one record can move it from one part to another, so both parts \
             change and the cost can be the sum of theirs. Compose such releases without --parallel"
                .into(),
        )
        .into()),
    }
}

pub fn convert_cmd(args: ConvertArgs) -> Result<()> {
    let [notion, value] = args.from.as_slice() else {
        return Err(BadInput("--from takes a notion and a value, e.g. --from gdp 1.0".into()).into());
    };
    let notion = NotionArg::from_str(notion, true).map_err(|_| {
        BadInput(format!("unknown notion {notion:?} after --from: use pure, approx, zcdp, gdp, rao or metric"))
    })?;
    let from = args.context.parse_with_delta(notion, value)?;
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
            Err(manifold_dp::Error::InvalidParameter { name: Param::Epsilon, .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(points)
}
