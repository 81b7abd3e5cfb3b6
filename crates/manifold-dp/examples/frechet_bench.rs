//! Accuracy and single-thread speed of the Fréchet (Karcher) mean on one data file, for the side-by-side
//! comparison with geomstats' `FrechetMean` and pyriemann's `mean_riemann` in
//! `scripts/bench_frechet_vs_peers.sh` (results: `docs/frechet_benchmark.md`).
//!
//! Usage: `cargo run --release -p manifold-dp --example frechet_bench -- MANIFOLD DATA.csv [--repeats R]
//! [--min-seconds S] [--tolerance T] [--max-iterations M] [--start first|euclidean]`
//!
//! - MANIFOLD: `s2` (rows x,y,z: unit vectors of R³), `spdK` for K = 1..=64 (rows: the K·K entries of an SPD
//!   matrix, row-major; affine-invariant metric), or `so3` (rows w,x,y,z: unit quaternions, scalar first).
//! - DATA.csv: one point per row, comma-separated; blank lines and lines starting with `#` are skipped, and so
//!   is a first line that does not parse as numbers (a header). Points go through the library's validators
//!   (`unit_vector_default`, `spd_from_row_major`, `from_quat_wxyz`), as user data would.
//! - `--repeats R` (default 5) and `--min-seconds S` (default 0.5): after one untimed warm-up, the whole
//!   computation (the start point, then `frechet_mean`) is run on one thread at least R times and until the
//!   runs have taken S seconds in all (at most 100 000 runs); the best wall-clock time (`std::time::Instant`)
//!   counts. (Short runs are repeated many times so that a burst of other load does not spoil all of them.)
//! - `--tolerance T` (default 1e-12, the library's default) and `--max-iterations M` (default 1000): the
//!   [`KarcherOptions`].
//! - `--start first` (default; geomstats' default initialisation) starts the iteration at the first data point;
//!   `--start euclidean` at the arithmetic mean of the data (projected back onto the sphere / unit quaternions
//!   put in the first one's hemisphere; pyriemann's default initialisation on SPD): the extrinsic mean that
//!   `MeanPlan::fit`, and so `manifold-dp mean`, starts from.
//!
//! Output: one JSON line with `tool`, `manifold`, `n`, `iterations`, `gradient_norm` (the library's own
//! ‖(1/n) Σ log_mean x_i‖ at the returned mean), `seconds`, `mean` (flattened like the input rows),
//! `tolerance`, `max_iterations`, `start`, `runs` (the number of timed runs).

use manifold_dp::manifold::{
    FrechetMean, KarcherOptions, Manifold, So3, SpdAffine, SpdLogEuclidean, Sphere, frechet_mean,
};
use manifold_dp::space::so3::{Tolerance, from_quat_wxyz, to_quat_wxyz};
use manifold_dp::space::spd::{DEFAULT_SYMMETRY_TOLERANCE, spd_from_row_major, to_row_major};
use manifold_dp::space::sphere::unit_vector_default;
use nalgebra::{DMatrix, DVector, Quaternion, UnitQuaternion};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: frechet_bench MANIFOLD DATA.csv [--repeats R] [--min-seconds S] [--tolerance T] \
                     [--max-iterations M] [--start first|euclidean]\n  MANIFOLD: s2 | spdK (K = 1..=64) | so3";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    First,
    Euclidean,
    LogEuclidean,
}

impl Start {
    fn name(self) -> &'static str {
        match self {
            Start::First => "first",
            Start::Euclidean => "euclidean",
            Start::LogEuclidean => "log-euclidean",
        }
    }
}

struct Args {
    manifold: String,
    data: String,
    repeats: usize,
    min_seconds: f64,
    options: KarcherOptions,
    start: Start,
}

fn parse_args() -> Result<Args, String> {
    let mut positional = Vec::new();
    let mut repeats = 5;
    let mut min_seconds = 0.5;
    let mut options = KarcherOptions::default();
    let mut start = Start::First;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--repeats" => {
                repeats = value("--repeats")?.parse().map_err(|e| format!("--repeats: {e}"))?;
                if repeats == 0 {
                    return Err("--repeats must be at least 1".into());
                }
            }
            "--min-seconds" => {
                min_seconds = value("--min-seconds")?.parse().map_err(|e| format!("--min-seconds: {e}"))?
            }
            "--tolerance" => {
                options.tolerance = value("--tolerance")?.parse().map_err(|e| format!("--tolerance: {e}"))?
            }
            "--max-iterations" => {
                options.max_iterations =
                    value("--max-iterations")?.parse().map_err(|e| format!("--max-iterations: {e}"))?
            }
            "--start" => {
                start = match value("--start")?.as_str() {
                    "first" => Start::First,
                    "euclidean" => Start::Euclidean,
                    "log-euclidean" => Start::LogEuclidean,
                    other => {
                        return Err(format!("--start: expected first, euclidean or log-euclidean, got {other:?}"));
                    }
                }
            }
            "-h" | "--help" => return Err(USAGE.into()),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}\n{USAGE}")),
            _ => positional.push(arg),
        }
    }
    let [manifold, data]: [String; 2] =
        positional.try_into().map_err(|_| format!("expected MANIFOLD and DATA.csv\n{USAGE}"))?;
    Ok(Args { manifold, data, repeats, min_seconds, options, start })
}

/// The numeric rows of a CSV file (a non-numeric first line is taken as a header and skipped).
fn read_rows(path: &str, width: usize) -> Result<Vec<Vec<f64>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed: Result<Vec<f64>, _> = line.split(',').map(|field| field.trim().parse::<f64>()).collect();
        match parsed {
            Ok(row) if row.len() == width => rows.push(row),
            Ok(row) => return Err(format!("{path}:{}: expected {width} values, got {}", index + 1, row.len())),
            Err(_) if rows.is_empty() && index == 0 => continue,
            Err(e) => return Err(format!("{path}:{}: {e}", index + 1)),
        }
    }
    if rows.is_empty() {
        return Err(format!("{path}: no data rows"));
    }
    Ok(rows)
}

/// One warm-up, then timed runs of `compute` (at least `repeats`, and until they have taken `min_seconds`);
/// the (identical) result, the best time and the number of timed runs.
fn best_of<P: PartialEq + std::fmt::Debug>(
    repeats: usize,
    min_seconds: f64,
    mut compute: impl FnMut() -> Result<FrechetMean<P>, String>,
) -> Result<(FrechetMean<P>, f64, usize), String> {
    let result = compute()?;
    let mut best = f64::INFINITY;
    let mut total = 0.0;
    let mut runs = 0;
    while runs < repeats || (total < min_seconds && runs < 100_000) {
        let started = Instant::now();
        let again = black_box(compute()?);
        let seconds = started.elapsed().as_secs_f64();
        best = best.min(seconds);
        total += seconds;
        runs += 1;
        if again != result {
            return Err("the mean differs between runs".into());
        }
    }
    Ok((result, best, runs))
}

/// Times `frechet_mean` on `points` from the start that `start` computes, and returns the JSON line.
fn run<M: Manifold>(
    m: &M,
    name: &str,
    points: &[M::Point],
    start: impl Fn(&[M::Point]) -> M::Point,
    flatten: impl Fn(&M::Point) -> Vec<f64>,
    args: &Args,
) -> Result<String, String>
where
    M::Point: PartialEq,
{
    let (result, seconds, runs) = best_of(args.repeats, args.min_seconds, || {
        let points = black_box(points);
        let start_point = start(points);
        frechet_mean(m, points, &start_point, args.options).map_err(|e| format!("{}: {e}", m.describe()))
    })?;
    let line = serde_json::json!({
        "tool": "manifold-dp",
        "manifold": name,
        "n": points.len(),
        "iterations": result.iterations,
        "gradient_norm": result.gradient_norm,
        "seconds": seconds,
        "mean": flatten(&result.mean),
        "tolerance": args.options.tolerance,
        "max_iterations": args.options.max_iterations,
        "start": args.start.name(),
        "runs": runs,
    });
    Ok(line.to_string())
}

fn main_inner() -> Result<String, String> {
    let args = parse_args()?;
    let manifold = args.manifold.to_ascii_lowercase();
    let start_kind = args.start;
    if manifold == "s2" {
        let points: Vec<DVector<f64>> = read_rows(&args.data, 3)?
            .iter()
            .enumerate()
            .map(|(i, row)| unit_vector_default(row).map_err(|e| format!("row {}: {e}", i + 1)))
            .collect::<Result<_, _>>()?;
        let start = move |xs: &[DVector<f64>]| match start_kind {
            Start::First => xs[0].clone(),
            Start::Euclidean | Start::LogEuclidean => {
                let sum = xs.iter().fold(DVector::zeros(3), |acc, x| acc + x);
                let norm = sum.norm();
                sum / norm
            }
        };
        let flatten = |x: &DVector<f64>| x.iter().copied().collect();
        run(&Sphere::new(3).map_err(|e| e.to_string())?, "s2", &points, start, flatten, &args)
    } else if manifold == "so3" {
        let tolerance = Tolerance::default();
        let points: Vec<UnitQuaternion<f64>> = read_rows(&args.data, 4)?
            .iter()
            .enumerate()
            .map(|(i, row)| {
                from_quat_wxyz([row[0], row[1], row[2], row[3]], &tolerance).map_err(|e| format!("row {}: {e}", i + 1))
            })
            .collect::<Result<_, _>>()?;
        let start = move |xs: &[UnitQuaternion<f64>]| match start_kind {
            Start::First => xs[0],
            Start::Euclidean | Start::LogEuclidean => {
                // Sign-aligned with the first quaternion (q and −q are the same rotation), then normalised.
                let first = xs[0].quaternion();
                let sum = xs.iter().fold(Quaternion::new(0.0, 0.0, 0.0, 0.0), |acc, x| {
                    let q = x.quaternion();
                    if q.dot(first) < 0.0 { acc - q } else { acc + q }
                });
                UnitQuaternion::new_normalize(sum)
            }
        };
        let flatten = |q: &UnitQuaternion<f64>| to_quat_wxyz(q).to_vec();
        run(&So3, "so3", &points, start, flatten, &args)
    } else if let Some(k) = manifold.strip_prefix("spd").and_then(|k| k.parse::<usize>().ok()) {
        let spd = SpdAffine::new(k).map_err(|e| e.to_string())?;
        let points: Vec<DMatrix<f64>> = read_rows(&args.data, k * k)?
            .iter()
            .enumerate()
            .map(|(i, row)| {
                spd_from_row_major(row, k, DEFAULT_SYMMETRY_TOLERANCE).map_err(|e| format!("row {}: {e}", i + 1))
            })
            .collect::<Result<_, _>>()?;
        let start = move |xs: &[DMatrix<f64>]| match start_kind {
            Start::First => xs[0].clone(),
            Start::Euclidean => xs.iter().fold(DMatrix::zeros(k, k), |acc, x| acc + x) / xs.len() as f64,
            Start::LogEuclidean => {
                let le = SpdLogEuclidean::new(k).expect("k is valid");
                let mean_log = le.mean_log(&DMatrix::identity(k, k), xs);
                le.exp(&DMatrix::identity(k, k), &mean_log)
            }
        };
        run(&spd, &format!("spd{k}"), &points, start, to_row_major, &args)
    } else {
        Err(format!("unknown manifold {:?}\n{USAGE}", args.manifold))
    }
}

fn main() -> ExitCode {
    match main_inner() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("frechet_bench: {message}");
            ExitCode::FAILURE
        }
    }
}
