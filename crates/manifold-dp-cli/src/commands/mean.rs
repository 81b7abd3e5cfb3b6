//! `manifold-dp mean`: read a whole file of rotations, directions (unit vectors, latitude/longitude, angles,
//! times of day) or SPD matrices, and release its Fréchet mean with pure ε-DP by the Riemannian Laplace
//! mechanism. The work is the Arrow core's `MeanPlan` (the same as Python's and Spark's); this file parses,
//! reads the rows and prints. Nothing is written to disk; the result goes to stdout (text, or JSON with --json).

use crate::BadInput;
use crate::args::common::Flags;
use crate::args::{ConditioningArg, EstimatorArg, MeanArgs, MeanBounds, OutsideArg, SpdMetricArg};
use crate::io::stdout::outln;
use crate::io::table::{FileFormat, InputBatch, TableReader};
use anyhow::Result;
use arrow_array::RecordBatch;
use manifold_dp::Error as LibError;
use manifold_dp::error::Param;
use manifold_dp::manifold::Outside;
use manifold_dp::mechanism::Conditioning;
use manifold_dp::privacy::guarantee::short;
use manifold_dp::registry::Space;
use manifold_dp::sample::rng::{os_rng, seeded_rng_for_experiments};
use manifold_dp::space::representation::Representation;
use manifold_dp_arrow::{Estimator, ExtrinsicPlan, MeanCenter, MeanNoise, MeanRequest, SpdMetric};
use serde_json::json;

/// "FILE: row R (line L)" for a data row and its CSV line.
fn locate(path: &str, (row, line): (u64, Option<u64>)) -> String {
    match line {
        Some(line) => format!("{path}: row {row} (line {line})"),
        None => format!("{path}: row {row}"),
    }
}

/// (1-based data row, line in the CSV file) of every row read.
type Origins = Vec<(u64, Option<u64>)>;

/// The rows of a file held in memory, with where each came from.
fn read_all(mut reader: TableReader, path: &str) -> Result<(Vec<RecordBatch>, Origins)> {
    let mut batches = Vec::new();
    let mut rows = Vec::new();
    while let Some(input) = reader.next_batch()? {
        let InputBatch { batch, rows: numbers, lines, .. } = input;
        rows.extend(numbers.iter().enumerate().map(|(i, &r)| (r, lines.as_ref().map(|l| l[i]))));
        batches.push(batch);
    }
    if rows.is_empty() {
        return Err(BadInput(format!("{path} has no data rows; there is no mean to release")).into());
    }
    Ok((batches, rows))
}

/// What the mean's values are, for people.
fn form(space: Space, args: &MeanArgs) -> String {
    match space {
        Space::So3 => args.format.clone().unwrap_or_else(|| "quat-wxyz".into()),
        Space::Sphere(_) => "unit vector".into(),
        Space::LatLon => "latitude, longitude in degrees".into(),
        Space::Circle => format!("angle in {}", args.format.as_deref().unwrap_or("rad")),
        Space::TimeOfDay => "hours".into(),
        Space::Spd(_) => "row-major matrix".into(),
        Space::Real => "numbers".into(),
    }
}

/// A distance for people ([`manifold_dp::notes::show_distance`]).
fn shown(space: Space, x: f64) -> String {
    manifold_dp::notes::show_distance(space, x)
}

/// The value column names the plan reads.
fn column_names(space: Space, args: &MeanArgs) -> Result<Vec<String>> {
    if let Some(MeanBounds::PerColumn(each)) = &args.bounds {
        let named: Vec<String> = each.iter().map(|(c, _, _)| c.clone()).collect();
        if args.columns.as_ref().is_some_and(|c| *c != named) {
            return Err(BadInput(format!(
                "--columns {} and --bounds {} name different columns: the bounds name them already, drop --columns",
                args.columns.as_ref().map(|c| c.join(",")).unwrap_or_default(),
                args.bounds.as_ref().map(MeanBounds::text).unwrap_or_default()
            ))
            .into());
        }
        return Ok(named);
    }
    if let Some(c) = &args.columns {
        return Ok(c.clone());
    }
    Ok(match space {
        Space::So3 => args.format.as_deref().unwrap_or("quat-wxyz").parse::<Representation>()?.column_names(),
        Space::Spd(k) => manifold_dp_arrow::spd::default_names(k),
        Space::Real => vec![manifold_dp_arrow::real::DEFAULT_COLUMN.to_string()],
        _ => manifold_dp_arrow::direction::default_names(space),
    })
}

/// A row that is not a point (or otherwise unusable), named by file, row and column: nothing is released.
fn bad_row(at: &str, problem: &manifold_dp_arrow::Problem) -> anyhow::Error {
    let column = problem.column.as_ref().map(|c| format!(", column {c:?}")).unwrap_or_default();
    BadInput(format!("{at}{column}: {}\nNothing was released; fix or remove the row", problem.reason)).into()
}

/// The release's generator: the operating system's, or a seeded one for experiments (`--seed`).
fn release_rng(seed: Option<u64>) -> Result<manifold_dp::sample::rng::ReleaseRng> {
    Ok(match seed {
        Some(seed) => seeded_rng_for_experiments(seed),
        None => os_rng()?,
    })
}

/// A library or table error of the mean, as the command line reports it.
fn plan_error(path: &str, e: manifold_dp_arrow::Error) -> anyhow::Error {
    match e {
        manifold_dp_arrow::Error::Library(e @ LibError::InvalidParameter { name: Param::Sigma, .. }) => {
            BadInput(format!("{e} (--conditioning ball)")).into()
        }
        manifold_dp_arrow::Error::Library(e) => e.into(),
        other => crate::codec_error(path, other).into(),
    }
}

pub fn run(args: MeanArgs) -> Result<()> {
    crate::commands::seeded(args.seed.is_some(), args.ledger.ledger.is_some())?;
    let space: Space = args.space.parse().map_err(BadInput::from)?;
    let radius_text = args.radius.as_deref().unwrap_or_default();
    let conditioning = match args.conditioning {
        ConditioningArg::Auto => Conditioning::Auto,
        ConditioningArg::None => Conditioning::Unconditioned,
        ConditioningArg::Ball => Conditioning::Ball,
    };
    // Which budget goes with which mechanism is the core's rule (Python's too); it speaks in flags here.
    let noise =
        MeanNoise::from_arguments(args.mechanism.as_deref(), args.epsilon, args.delta, args.mu, conditioning, |a| {
            format!("--{a}")
        })
        .map_err(|e| BadInput(e.to_string()))?;
    // The Laplace's ε, or the Gaussian's μ: what messages and the ledger's record say was asked.
    let epsilon = match noise {
        MeanNoise::Laplace { epsilon, .. } => Some(epsilon),
        MeanNoise::Gaussian { .. } => None,
    };
    let outside = match args.outside {
        OutsideArg::Error => Outside::Error,
        OutsideArg::Drop => Outside::Drop,
        OutsideArg::Clip => Outside::Clip,
    };
    let in_fmt = FileFormat::resolve(args.input_format, &args.input, "--input-format")?;
    let path = args.input.as_str();
    // The options' rules, the centre and radius in the space's units: the core's request, as Python's.
    let request = MeanRequest {
        center: args.center.clone().map(MeanCenter::Text),
        radius: args.radius.clone(),
        bounds: args.bounds.as_ref().map(|b| match b {
            MeanBounds::Shared(lo, hi) => manifold_dp_arrow::MeanBounds::Shared(*lo, *hi),
            MeanBounds::PerColumn(each) => manifold_dp_arrow::MeanBounds::PerColumn {
                bounds: each.iter().map(|&(_, lo, hi)| (lo, hi)).collect(),
                names: Some(each.iter().map(|(c, _, _)| c.clone()).collect()),
            },
        }),
        format: args.format.clone(),
        metric: (args.metric != SpdMetricArg::Affine).then_some(SpdMetric::LogEuclidean),
        columns: args.columns.clone(),
        outside,
        estimator: match args.estimator {
            EstimatorArg::Frechet => Estimator::Frechet,
            EstimatorArg::Extrinsic => Estimator::Extrinsic,
        },
        ..MeanRequest::new(space)
    };
    if request.estimator == Estimator::Extrinsic {
        let (plan, epsilon) = request.extrinsic_plan(&noise, &Flags).map_err(|e| BadInput(e.to_string()))?;
        let label = request.ledger_label("mean", &noise, &args.input);
        return run_extrinsic(args, space, plan, epsilon, label);
    }
    let plan = request.plan(Some(&noise), &Flags).map_err(|e| BadInput(e.to_string()))?;
    // With --ledger, a release over the data set's budget is refused before the file is read.
    let charge = crate::commands::ledger::Charge::prepare(
        &args.ledger,
        &args.input,
        request.ledger_label("mean", &noise, &args.input),
        &[plan.guarantee_for(&noise)],
    )?;
    let names = column_names(space, &args)?;
    let (batches, rows) = read_all(TableReader::open(path, in_fmt, args.delimiter, false)?, path)?;
    // Refusals and warnings that depend only on the rows the mean is over, the radius and ε come before the
    // Karcher iteration: every row, or with --outside drop the rows in the ball (a counting pass, the fit's own
    // placement without the logs).
    let over = match outside {
        Outside::Drop => plan.count_inside(&batches).map_err(|e| plan_error(path, e))?,
        Outside::Error | Outside::Clip => batches.iter().map(|b| b.num_rows() as u64).sum(),
    };
    for warning in plan.check_rows(over, &noise, radius_text, &Flags).map_err(|e| plan_error(path, e))? {
        eprintln!("warning: {warning}");
    }
    let fit = plan.fit(&batches).map_err(|e| plan_error(path, e))?;
    if let Some((i, problem)) = &fit.pass.problem {
        let at = locate(path, rows[*i]);
        if let (Some(bounds), Some(_)) = (&args.bounds, fit.pass.outside_distance) {
            return Err(BadInput(format!(
                "{at}: {}, outside --bounds {}.\nNothing was released: use --outside clip (clamp such values) \
                 or --outside drop, widen the bounds without looking at the data, or remove the row",
                problem.reason,
                bounds.text()
            ))
            .into());
        }
        if let Some(distance) = fit.pass.outside_distance {
            let d = shown(space, distance);
            return Err(BadInput(format!(
                "{at}: the point is at distance {d} from --center, outside --radius {}.\nEvery point must lie within \
                 the public radius (that is what bounds one row's influence). Nothing was released: choose a larger \
                 radius or a better centre without looking at the data, use --outside clip (move such rows onto the \
                 ball) or --outside drop, or remove the row",
                radius_text
            ))
            .into());
        }
        return Err(bad_row(&at, problem));
    }
    let mut rng = release_rng(args.seed)?;
    let released = match plan.release_with(&fit.mean, fit.pass.used, &noise, &mut rng) {
        Ok(r) => r,
        Err(manifold_dp_arrow::Error::Library(e @ LibError::Unrepresentable(_))) => {
            // The refusal is a function of the noise draw, so it costs what a release costs: charge it, or a
            // retry would be a silent redraw.
            if let Some(c) = charge.as_ref() {
                c.record(&[plan.guarantee_for(&noise)], false)?;
            }
            return Err(e.into());
        }
        Err(e) => return Err(plan_error(path, e)),
    };
    let guarantee = released.guarantee;
    // Recorded before the mean is printed: a refusal prints nothing.
    if let Some(c) = charge.as_ref() {
        c.record(std::slice::from_ref(&guarantee), false)?;
    }
    let n = released.n;
    let radius = plan.radius();
    // The core's warnings, as every front end prints them.
    let facts = manifold_dp::notes::MeanFacts {
        space,
        used: n,
        dropped: fit.pass.dropped,
        clipped: fit.pass.clipped,
        expected_error: released.expected_error,
        radius,
        // Warned before the Karcher iteration (the same rows, the same cost).
        rounding_cost: 0.0,
        // The rounding-cost warning measures a share of ε; the Gaussian's cost is inside its certified μ.
        epsilon: epsilon.unwrap_or(f64::INFINITY),
    };
    for warning in manifold_dp::notes::mean_warnings(&facts) {
        eprintln!("warning: {warning}");
    }
    let angular = !matches!(space, Space::Spd(_) | Space::Real);
    let describe = plan.describe();
    let randomness = if args.seed.is_some() { "seeded (experiments only, not a release)" } else { "os" };
    let unit = space.natural_unit();
    let natural = |x: f64| x / unit.radians;
    if args.json {
        let mut obj = json!({
            "space": space.to_string(),
            "manifold": describe,
            "format": form(space, &args),
            "columns": names,
            "n": n,
            "mean": released.mean,
            "epsilon": epsilon,
            "mechanism": if released.mu.is_some() { "gaussian" } else { "laplace" },
            "mu": released.mu,
            // With --outside drop, the guarantee says what it does not protect.
            "guarantee": match &released.stated {
                Some(stated) => json!(stated),
                None => json!(guarantee),
            },
            "radius": radius,
            "outside": outside.to_string(),
            "dropped": fit.pass.dropped,
            "clipped": fit.pass.clipped,
            "sensitivity": released.sensitivity,
            "sigma": released.sigma,
            "conditioned": released.conditioned,
            "expected_error": released.expected_error,
            "unit": if angular { "rad" } else { "unit" },
            "randomness": randomness,
            "grid": released.grid,
            "rounding_cost": released.rounding_cost,
            "noise_epsilon": epsilon.map(|_| released.noise_epsilon),
        });
        if angular {
            // Distances also in the unit people think in on the space: deg, km on latlon, h on timeofday.
            let name = unit.name;
            obj[format!("radius_{name}")] = json!(natural(radius));
            obj[format!("sensitivity_{name}")] = json!(natural(released.sensitivity));
            obj[format!("sigma_{name}")] = json!(natural(released.sigma));
            obj[format!("expected_error_{name}")] = json!(natural(released.expected_error));
        }
        outln!("{obj}");
        return Ok(());
    }
    let dist = |x: f64| shown(space, x);
    let joined: Vec<String> = released.mean.iter().map(|v| v.to_string()).collect();
    let what = if space == Space::Real { "mean of {n} rows" } else { "Fréchet mean of {n} points" };
    outln!("Private {} on {describe} ({}):", what.replace("{n}", &n.to_string()), form(space, &args));
    outln!("  {} = {}", names.join(","), joined.join(","));
    match &args.bounds {
        Some(b) => {
            outln!("Guarantee: {guarantee}, for data sets of {n} rows with {} that differ in one row.", b.describe())
        }
        None => outln!(
            "Guarantee: {guarantee}, for data sets of {n} points within {} of the centre that differ in one row.",
            dist(radius)
        ),
    }
    let ball = if space == Space::Real { "bounds" } else { "radius" };
    match outside {
        Outside::Error => {}
        Outside::Clip => outln!(
            "Rows outside the {}: {} moved onto it (--outside clip; the guarantee covers every row). This \
             count is for you, not private: do not publish it.",
            ball,
            fit.pass.clipped
        ),
        Outside::Drop => outln!(
            "Rows outside the {}: {} left out (--outside drop): whether a row lies outside is not protected. \
             This count is for you, not private: do not publish it.",
            ball,
            fit.pass.dropped
        ),
    }
    if let Some(b) = &args.bounds {
        let how = match b {
            MeanBounds::Shared(..) => "k·(hi − lo)/n",
            MeanBounds::PerColumn(_) => "Σ_k (hi_k − lo_k)/n",
        };
        outln!("Sensitivity: Δ = {} (ℓ₁, {how}).", short(released.sensitivity));
    } else {
        outln!(
            "Sensitivity: Δ = {} (Reimherr, Bharath & Soto, Theorem 2: 2r(2 − h)/(n·h)).",
            dist(released.sensitivity)
        );
    }
    if let Some(mu) = released.mu {
        let at_center = released.grid.map(|g| g.chart) == Some(manifold_dp::space::grid::Chart::SpdLogAtCenter);
        if at_center {
            // The affine-invariant Gaussian: the wrapped Gaussian at the centre, its chart's float error in σ.
            outln!(
                "Noise: Gaussian N(0, σ²) on each isometric coordinate of the log chart at the centre (the \
                 exponential-wrapped Gaussian there), σ = (Δ + 2e_F)/μ = {} with e_F the chart's float error, each \
                 coordinate drawn as its exact grid cell.",
                dist(released.sigma)
            );
        } else if matches!(space, Space::Spd(_)) {
            // The log-Euclidean Gaussian: flat, so σ = Δ/μ exactly and the cells are exact (no certificate).
            outln!(
                "Noise: Gaussian N(0, σ²) on each isometric log coordinate (the log domain is flat), σ = Δ/μ = {}, \
                 each coordinate drawn as its exact grid cell.",
                dist(released.sigma)
            );
        } else {
            outln!(
                "Noise: Riemannian Gaussian (density ∝ exp(−d²/2σ²)), σ = {} (the smallest whose certified μ, \
                 rounding included, is at most {mu}; Δ/μ = {}).",
                dist(released.sigma),
                dist(released.sensitivity / mu)
            );
        }
        if at_center {
            outln!(
                "Expected error: {} in the chart at the centre (the distance between the release and the exact mean \
                 is at least that).",
                dist(released.expected_error)
            );
        } else {
            outln!("Expected error: {} between the release and the exact mean.", dist(released.expected_error));
        }
        if let Some(grid) = released.grid {
            outln!(
                "Rounding: float-safe, on the {grid}; its cost {} is inside the certified μ.",
                short(released.rounding_cost)
            );
        }
        outln!("Randomness: {randomness}.");
        return Ok(());
    }
    let epsilon = epsilon.unwrap_or(f64::NAN);
    let how = match (released.conditioned, released.noise_epsilon < epsilon) {
        (true, false) => "σ = 2Δ/ε, conditioned on the ball (the release lies within the radius of the centre)".into(),
        (false, false) => "σ = Δ/ε, unconditioned".to_string(),
        (true, true) => format!(
            "σ = 2Δ/ε′ with ε′ = {} (ε less the rounding cost), conditioned on the ball (the release lies within \
             the radius of the centre)",
            manifold_dp::privacy::guarantee::short_down(released.noise_epsilon)
        ),
        (false, true) => format!(
            "σ = Δ/ε′ with ε′ = {} (ε less the rounding cost), unconditioned",
            manifold_dp::privacy::guarantee::short_down(released.noise_epsilon)
        ),
    };
    let law = if space == Space::Real { "Laplace (exact, on a public grid)" } else { "Riemannian Laplace" };
    outln!("Noise: {law}, scale {} ({how}).", dist(released.sigma));
    let at = if released.conditioned { " (when the mean is at the centre)" } else { "" };
    outln!("Expected error: {} between the release and the exact mean{at}.", dist(released.expected_error));
    match released.grid {
        Some(grid) => outln!(
            "Rounding: float-safe, on the {grid}; its cost {} is taken inside epsilon{}.",
            short(released.rounding_cost),
            if released.conditioned { " (twice: once per cell, once in the ball's normaliser)" } else { "" }
        ),
        None if space == Space::Real => outln!("Rounding: the exact cell of a power-of-two grid (no cost)."),
        None => outln!("Rounding: none (this release is not rounded onto a public grid)."),
    }
    outln!("Randomness: {randomness}.");
    Ok(())
}

/// `mean --estimator extrinsic`: the mean of the embedded rows with ℓ₂ K-norm noise, projected back; no ball.
fn run_extrinsic(args: MeanArgs, space: Space, plan: ExtrinsicPlan, epsilon: f64, what: String) -> Result<()> {
    let in_fmt = FileFormat::resolve(args.input_format, &args.input, "--input-format")?;
    let path = args.input.as_str();
    let asked = manifold_dp::privacy::Guarantee::pure(epsilon);
    let charge = crate::commands::ledger::Charge::prepare(&args.ledger, &args.input, what, &[asked])?;
    let names = column_names(space, &args)?;
    let (batches, rows) = read_all(TableReader::open(path, in_fmt, args.delimiter, false)?, path)?;
    let fit = plan.fit(&batches).map_err(|e| plan_error(path, e))?;
    if let Some((i, problem)) = &fit.problem {
        let at = locate(path, rows[*i]);
        return Err(bad_row(&at, problem));
    }
    let mut rng = release_rng(args.seed)?;
    let released = plan.release(fit.sum.as_ref(), epsilon, &mut rng).map_err(|e| plan_error(path, e))?;
    if let Some(c) = charge.as_ref() {
        c.record(std::slice::from_ref(&released.guarantee), false)?;
    }
    for warning in &released.warnings {
        eprintln!("warning: {warning}");
    }
    let randomness = if args.seed.is_some() { "seeded (experiments only, not a release)" } else { "os" };
    let unit = space.natural_unit();
    let n = released.n;
    if args.json {
        let mut obj = json!({
            "space": space.to_string(),
            "manifold": plan.describe(),
            "estimator": "extrinsic",
            "format": form(space, &args),
            "columns": names,
            "n": n,
            "mean": released.mean,
            "epsilon": epsilon,
            "guarantee": released.stated,
            "sensitivity": released.sensitivity,
            "sigma": released.sigma,
            "expected_error": released.expected_error,
            "unit": "embedding",
            "embedded": released.embedded,
            "stable": released.error_bound.is_some(),
            "confidence": released.confidence,
            "error_bound": released.error_bound,
            "noise_radius": released.noise_radius,
            "degeneracy_distance": released.degeneracy_distance,
            "degeneracy_probability": released.degeneracy_probability,
            "randomness": randomness,
            "grid": released.grid,
            "rounding_cost": released.rounding_cost,
            "noise_epsilon": released.noise_epsilon,
        });
        obj[format!("error_bound_{}", unit.name)] = json!(released.error_bound.map(|b| b / unit.radians));
        outln!("{obj}");
        return Ok(());
    }
    let shown_mean = match &released.mean {
        Some(m) => m.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(","),
        None => "undefined (the noisy embedded mean is degenerate: no nearest point)".into(),
    };
    let (embedded, metric) = match space {
        Space::So3 => ("rotation matrices in R^9", "Frobenius"),
        _ => ("unit vectors", "chordal"),
    };
    outln!("Private extrinsic mean of {n} points on {} ({}):", plan.describe(), form(space, &args));
    outln!("  {} = {shown_mean}", names.join(","));
    outln!(
        "Guarantee: {}, for data sets of {n} rows anywhere on the space that differ in one row (replaced).",
        released.guarantee
    );
    let diameter = if space == Space::So3 { "2√2/n" } else { "2/n" };
    outln!(
        "Sensitivity: Δ = {} ({metric}, between the means of the {embedded}: {diameter} plus twice the mean's float \
         error bound).",
        short(released.sensitivity)
    );
    let how = if released.noise_epsilon < epsilon {
        format!(
            "σ = Δ/ε′ with ε′ = {} (ε less the rounding cost)",
            manifold_dp::privacy::guarantee::short_down(released.noise_epsilon)
        )
    } else {
        "σ = Δ/ε".into()
    };
    outln!(
        "Noise: l2 K-norm (density ∝ exp(−‖z‖/σ): radius Gamma(D, σ), direction uniform), scale {} ({how}); \
         expected size {} ({metric}).",
        short(released.sigma),
        short(released.expected_error)
    );
    match released.error_bound {
        Some(b) => outln!(
            "Error: with probability {} (over the noise) the release is within {} of the projection of the exact \
             extrinsic mean.",
            released.confidence,
            shown(space, b)
        ),
        None => outln!(
            "Error: unstable — the noisy embedded mean is {} from degeneracy, within the noise radius {} (probability \
             {}); noise that large had probability {}. The release may show the noise, not the data.",
            short(released.degeneracy_distance),
            short(released.noise_radius),
            released.confidence,
            short(released.degeneracy_probability)
        ),
    }
    outln!(
        "Rounding: float-safe, on the {}; its cost {} is taken inside epsilon. The projection onto the space is \
         post-processing.",
        released.grid,
        short(released.rounding_cost)
    );
    outln!("Randomness: {randomness}.");
    Ok(())
}
