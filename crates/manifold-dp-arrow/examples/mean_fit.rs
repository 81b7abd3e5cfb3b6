//! The exact (not private) Fréchet mean that `manifold-dp mean` computes before it adds noise: the same call,
//! `MeanPlan::fit`, on the rows of a CSV file. The command prints only its private release, so
//! `scripts/bench_frechet_vs_peers.sh` grades the command's Karcher mean through this example (results:
//! `docs/frechet_benchmark.md`). It is not a release and must never be used as one.
//!
//! Usage: `cargo run --release -p manifold-dp-arrow --example mean_fit -- SPACE CENTER RADIUS DATA.csv`
//!
//! - SPACE: as `mean --space` (`so3`, `sphere:3`, `spd:2`, …); CENTER: `identity` (so3, spd:K) or the centre's
//!   numbers separated by commas, in the table's form; RADIUS: in radians (the metric's unit on spd:K).
//! - DATA.csv: a header naming the columns as `mean` reads them by default (w,x,y,z / x1,…,xN / m11,…,mKK),
//!   then one point per row.
//!
//! Output: one JSON line with `mean` (the fit's coordinates: w,x,y,z on so3, the unit vector on spheres, the
//! row-major matrix on spd:K), `iterations` and `n`.

use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use manifold_dp::manifold::Outside;
use manifold_dp::registry::Space;
use manifold_dp_arrow::{MeanPlan, SpdMetric};
use std::process::ExitCode;
use std::sync::Arc;

fn run() -> Result<String, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [space, center, radius, path] = args.as_slice() else {
        return Err("usage: mean_fit SPACE CENTER RADIUS DATA.csv".into());
    };
    let space: Space = space.parse().map_err(|e| format!("{e:?}"))?;
    let center: Option<Vec<f64>> = if center == "identity" {
        None
    } else {
        Some(
            center
                .split(',')
                .map(|v| v.trim().parse::<f64>().map_err(|e| format!("center: {e}")))
                .collect::<Result<_, _>>()?,
        )
    };
    let radius: f64 = radius.parse().map_err(|e| format!("radius: {e}"))?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = text.lines();
    let names: Vec<&str> = lines.next().ok_or("no header")?.split(',').map(str::trim).collect();
    let mut columns = vec![Vec::new(); names.len()];
    for (i, line) in lines.filter(|l| !l.trim().is_empty()).enumerate() {
        let values: Vec<&str> = line.split(',').collect();
        if values.len() != names.len() {
            return Err(format!("{path}: row {} has {} values", i + 1, values.len()));
        }
        for (column, v) in columns.iter_mut().zip(values) {
            column.push(v.trim().parse::<f64>().map_err(|e| format!("{path}: row {}: {e}", i + 1))?);
        }
    }
    let n = columns[0].len();
    let schema = Schema::new(names.iter().map(|name| Field::new(*name, DataType::Float64, false)).collect::<Vec<_>>());
    let arrays: Vec<ArrayRef> = columns.into_iter().map(|c| Arc::new(Float64Array::from(c)) as ArrayRef).collect();
    let batch = RecordBatch::try_new(Arc::new(schema), arrays).map_err(|e| e.to_string())?;
    let plan = MeanPlan::new(space, None, None, center.as_deref(), radius, Outside::Error, SpdMetric::Affine)
        .map_err(|e| e.to_string())?;
    let fit = plan.fit(&[batch]).map_err(|e| e.to_string())?;
    if let Some((row, problem)) = fit.pass.problem {
        return Err(format!("row {}: {}", row + 1, problem.reason));
    }
    // Rust prints the shortest decimal that reads back as the same double, which JSON also reads.
    Ok(format!("{{\"mean\": {:?}, \"iterations\": {}, \"n\": {n}}}", fit.mean, fit.iterations))
}

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("mean_fit: {message}");
            ExitCode::FAILURE
        }
    }
}
