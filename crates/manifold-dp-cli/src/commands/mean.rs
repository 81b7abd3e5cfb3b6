//! `manifold-dp mean`: read a whole file of rotations, unit vectors or SPD matrices, and release its Fréchet
//! mean with pure ε-DP by the Riemannian Laplace mechanism (library: `mechanism::riemannian_laplace`).
//! Nothing is written to disk; the result goes to stdout (text, or one JSON object with --json).

use crate::BadInput;
use crate::args::{ConditioningArg, MeanArgs, SpdMetricArg};
use crate::io::table::{FileFormat, InputBatch, TableReader};
use anyhow::Result;
use arrow_array::RecordBatch;
use manifold_dp::Error as LibError;
use manifold_dp::manifold::{So3, SpdAffine, SpdLogEuclidean, Sphere};
use manifold_dp::mechanism::{Conditioning, LaplaceManifold, PrivateFrechetMean};
use manifold_dp::privacy::guarantee::short;
use manifold_dp::registry::Space;
use manifold_dp::sample::rng::{os_rng, seeded_rng_for_experiments};
use manifold_dp::space::representation::Representation;
use manifold_dp::space::so3::Tolerance;
use manifold_dp::space::spd::{DEFAULT_SYMMETRY_TOLERANCE, spd_from_row_major, to_row_major};
use manifold_dp::space::sphere::unit_vector_default;
use manifold_dp_arrow::{Decoded, DirectionColumns, PointColumns, Problem, RotationColumns, SpdColumns};
use nalgebra::{DMatrix, UnitQuaternion};
use serde_json::json;
use std::f64::consts::PI;

pub(crate) fn numbers(s: &str, what: &str) -> Result<Vec<f64>, BadInput> {
    s.split(',')
        .map(|t| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| BadInput(format!("--center {s:?}: {t:?} is not a finite number; {what}")))
        })
        .collect()
}

/// Where each point came from, for messages about one of them.
struct Located<P> {
    points: Vec<P>,
    /// (1-based data row, line in the CSV file).
    rows: Vec<(u64, Option<u64>)>,
}

fn locate(path: &str, (row, line): (u64, Option<u64>)) -> String {
    match line {
        Some(line) => format!("{path}: row {row} (line {line})"),
        None => format!("{path}: row {row}"),
    }
}

/// Reads every row; the first invalid one is an error naming its row and column.
fn read_all<P>(
    mut reader: TableReader,
    path: &str,
    decode: impl Fn(&RecordBatch) -> Result<Decoded<P>, manifold_dp_arrow::Error>,
) -> Result<Located<P>> {
    let mut out = Located { points: Vec::new(), rows: Vec::new() };
    while let Some(input) = reader.next_batch()? {
        let InputBatch { batch, rows, lines, .. } = input;
        let decoded = decode(&batch).map_err(|e| crate::codec_error(path, e))?;
        if let Some((i, Problem { column, reason })) = decoded.problems.into_iter().next() {
            let column = column.map(|c| format!(", column {c:?}")).unwrap_or_default();
            let at = locate(path, (rows[i], lines.as_ref().map(|l| l[i])));
            return Err(BadInput(format!("{at}{column}: {reason}\nNothing was released; fix or remove the row")).into());
        }
        out.rows.extend(rows.iter().enumerate().map(|(i, &r)| (r, lines.as_ref().map(|l| l[i]))));
        out.points.extend(decoded.points);
    }
    if out.points.is_empty() {
        return Err(BadInput(format!("{path} has no data rows; there is no mean to release")).into());
    }
    Ok(out)
}

/// How a result is printed: the mean's values and names, and the distance unit.
struct Shape<'a, P> {
    space: String,
    format: String,
    names: Vec<String>,
    encode: &'a dyn Fn(&P) -> Vec<f64>,
    /// Distances are angles (printed in rad and deg) or plain numbers.
    angular: bool,
}

pub fn run(args: MeanArgs) -> Result<()> {
    let space: Space = args.space.parse().map_err(BadInput::from)?;
    if !(args.epsilon.is_finite() && args.epsilon > 0.0) {
        return Err(BadInput(format!("--epsilon {}: must be a finite number > 0", short(args.epsilon))).into());
    }
    let conditioning = match args.conditioning {
        ConditioningArg::Auto => Conditioning::Auto,
        ConditioningArg::None => Conditioning::Unconditioned,
        ConditioningArg::Ball => Conditioning::Ball,
    };
    let in_fmt = FileFormat::resolve(args.input_format, &args.input, "--input-format")?;
    let path = args.input.as_str();
    if args.format.is_some() && space != Space::So3 {
        return Err(BadInput("--format applies to --space so3 only".into()).into());
    }
    if args.metric != SpdMetricArg::Affine && !matches!(space, Space::Spd(_)) {
        return Err(BadInput("--metric applies to --space spd:K only".into()).into());
    }
    // With --ledger, a release over the data set's budget is refused before the file is read.
    let charge = crate::commands::ledger::Charge::prepare(
        &args.ledger,
        &args.input,
        format!("mean {}", args.space),
        &[manifold_dp::privacy::Guarantee::PureDp { epsilon: args.epsilon }],
    )?;
    let charge = charge.as_ref();
    let columns = args.columns.as_deref();
    match space {
        Space::So3 => {
            let repr: Representation = args.format.as_deref().unwrap_or("quat-wxyz").parse()?;
            let center = if args.center.trim() == "identity" {
                UnitQuaternion::identity()
            } else {
                let values = numbers(&args.center, &format!("give a rotation in --format {repr}, or identity"))?;
                repr.decode(&values, &Tolerance::default()).map_err(|e| BadInput(format!("--center: {e}")))?
            };
            let radius = Space::So3.parse_distance(&args.radius)?;
            let reader = TableReader::open(path, in_fmt, args.delimiter, false)?;
            let cols = RotationColumns::locate(&reader.schema(), repr, columns, repr)
                .map_err(|e| crate::codec_error(path, e))?;
            let data = read_all(reader, path, |b| cols.decode(b))?;
            let encode = |q: &UnitQuaternion<f64>| repr.encode(q);
            let shape = Shape {
                space: "so3".into(),
                format: repr.to_string(),
                names: cols.names().to_vec(),
                encode: &encode,
                angular: true,
            };
            release(&args, So3, center, radius, conditioning, data, shape, charge)
        }
        Space::Sphere(n) => {
            let values = numbers(&args.center, &format!("give the {n} coordinates of a unit vector"))?;
            if values.len() != n {
                return Err(
                    BadInput(format!("--center needs {n} coordinates on sphere:{n}, got {}", values.len())).into()
                );
            }
            let center = unit_vector_default(&values).map_err(|e| BadInput(format!("--center: {e}")))?;
            let radius = Space::Sphere(n).parse_distance(&args.radius)?;
            let reader = TableReader::open(path, in_fmt, args.delimiter, false)?;
            let cols = DirectionColumns::locate(&reader.schema(), Space::Sphere(n), None, columns)
                .map_err(|e| crate::codec_error(path, e))?;
            let data = read_all(reader, path, |b| cols.decode(b))?;
            let encode = |v: &nalgebra::DVector<f64>| v.as_slice().to_vec();
            let shape = Shape {
                space: format!("sphere:{n}"),
                format: "unit vector".into(),
                names: cols.names().to_vec(),
                encode: &encode,
                angular: true,
            };
            release(&args, Sphere::new(n)?, center, radius, conditioning, data, shape, charge)
        }
        Space::Spd(k) => {
            let center = if args.center.trim() == "identity" {
                DMatrix::identity(k, k)
            } else {
                let values = numbers(&args.center, &format!("give the {} entries row by row, or identity", k * k))?;
                spd_from_row_major(&values, k, DEFAULT_SYMMETRY_TOLERANCE)
                    .map_err(|e| BadInput(format!("--center: {e}")))?
            };
            let radius: f64 = args.radius.trim().parse().map_err(|_| {
                BadInput(format!(
                    "--radius {:?}: on spd:{k} give a plain number (an affine-invariant distance, e.g. 1.5)",
                    args.radius
                ))
            })?;
            let reader = TableReader::open(path, in_fmt, args.delimiter, false)?;
            let cols = SpdColumns::locate(&reader.schema(), k, columns).map_err(|e| crate::codec_error(path, e))?;
            let data = read_all(reader, path, |b| cols.decode(b))?;
            let encode = |m: &DMatrix<f64>| to_row_major(m);
            let shape = Shape {
                space: format!("spd:{k}"),
                format: "row-major matrix".into(),
                names: cols.names().to_vec(),
                encode: &encode,
                angular: false,
            };
            match args.metric {
                SpdMetricArg::Affine => {
                    release(&args, SpdAffine::new(k)?, center, radius, conditioning, data, shape, charge)
                }
                SpdMetricArg::LogEuclidean => {
                    release(&args, SpdLogEuclidean::new(k)?, center, radius, conditioning, data, shape, charge)
                }
            }
        }
        other => Err(BadInput(format!(
            "mean on --space {other} is not available yet: use so3, sphere:N (latitude/longitude as sphere:3 unit \
             vectors) or spd:K"
        ))
        .into()),
    }
}

#[allow(clippy::too_many_arguments)]
fn release<M: LaplaceManifold>(
    args: &MeanArgs,
    manifold: M,
    center: M::Point,
    radius: f64,
    conditioning: Conditioning,
    data: Located<M::Point>,
    shape: Shape<'_, M::Point>,
    charge: Option<&crate::commands::ledger::Charge>,
) -> Result<()> {
    let n = data.points.len();
    let describe = manifold.describe();
    let mech = PrivateFrechetMean::new(manifold, center, radius, n, args.epsilon, conditioning)?;
    let mut rng = match args.seed {
        Some(seed) => seeded_rng_for_experiments(seed),
        None => os_rng()?,
    };
    let private = match mech.release(&data.points, &mut rng) {
        Ok(p) => p,
        Err(LibError::OutsideBall { index, distance, radius }) => {
            let at = locate(&args.input, data.rows[index]);
            let (d, r) = if shape.angular {
                (format!("{} rad ({} deg)", short(distance), short(distance * 180.0 / PI)), args.radius.to_string())
            } else {
                (short(distance), short(radius))
            };
            return Err(BadInput(format!(
                "{at}: the point is at distance {d} from --center, outside --radius {r}.\nEvery point must lie within \
                 the public radius (that is what bounds one row's influence). Nothing was released: choose a larger \
                 radius or a better centre without looking at the data, or remove the row"
            ))
            .into());
        }
        Err(e @ LibError::Unrepresentable(_)) => {
            // The refusal is a function of the noise draw, so it costs what a release costs: charge it, or a
            // retry would be a silent redraw.
            if let Some(c) = charge {
                c.record(&[mech.guarantee()], false)?;
            }
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    let values = (shape.encode)(&private);
    let guarantee = mech.guarantee();
    // Recorded before the mean is printed: a refusal prints nothing.
    if let Some(c) = charge {
        c.record(&[guarantee], false)?;
    }
    let expected = mech.expected_error();
    let randomness = if args.seed.is_some() { "seeded (experiments only, not a release)" } else { "os" };
    let deg = |x: f64| x * 180.0 / PI;
    if args.json {
        let mut obj = json!({
            "space": shape.space,
            "manifold": describe,
            "format": shape.format,
            "columns": shape.names,
            "n": n,
            "mean": values,
            "epsilon": args.epsilon,
            "guarantee": guarantee,
            "radius": radius,
            "sensitivity": mech.sensitivity(),
            "sigma": mech.sigma(),
            "conditioned": mech.conditioned(),
            "expected_error": expected,
            "unit": if shape.angular { "rad" } else { "unit" },
            "randomness": randomness,
        });
        if shape.angular {
            obj["radius_deg"] = json!(deg(radius));
            obj["sensitivity_deg"] = json!(deg(mech.sensitivity()));
            obj["sigma_deg"] = json!(deg(mech.sigma()));
            obj["expected_error_deg"] = json!(deg(expected));
        }
        println!("{obj}");
        return Ok(());
    }
    let dist = |x: f64| {
        if shape.angular { format!("{} rad ({} deg)", short(x), short(deg(x))) } else { short(x) }
    };
    let joined: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    println!("Private Fréchet mean of {n} points on {describe} ({}):", shape.format);
    println!("  {} = {}", shape.names.join(","), joined.join(","));
    println!(
        "Guarantee: {guarantee}, for data sets of {n} points within {} of the centre that differ in one row.",
        dist(radius)
    );
    println!("Sensitivity: Δ = {} (Reimherr, Bharath & Soto, Theorem 2: 2r(2 − h)/(n·h)).", dist(mech.sensitivity()));
    let how = if mech.conditioned() {
        "σ = 2Δ/ε, conditioned on the ball (the release lies within the radius of the centre)"
    } else {
        "σ = Δ/ε, unconditioned"
    };
    println!("Noise: Riemannian Laplace, scale {} ({how}).", dist(mech.sigma()));
    let at = if mech.conditioned() { " (when the mean is at the centre)" } else { "" };
    println!("Expected error: {} between the release and the exact mean{at}.", dist(expected));
    println!("Randomness: {randomness}.");
    Ok(())
}
