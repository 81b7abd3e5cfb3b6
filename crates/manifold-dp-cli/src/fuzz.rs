//! Fuzz targets for every parser of user input, as proptest runs over arbitrary text and
//! bytes, near-valid text from regexes, and mutations of the seed corpus in `fuzz/corpus/<target>/`.
//!
//! The properties: no parser panics (proptest catches and reports a panic as a failure), errors are values,
//! and whatever parses is usable downstream (formatted, composed, decoded and re-encoded). A hang shows as a
//! test that does not finish.
//!
//! CI runs each target briefly: `MDP_FUZZ_CASES` cases (default 256) from a fixed seed, so a failure
//! reproduces. A longer run: `MDP_FUZZ_CASES=200000 MDP_FUZZ_SEED=7 cargo test --release -p manifold-dp-cli
//! --bin manifold-dp fuzz -- --nocapture` (each target prints its cases and time).

use crate::args::common::{parse_epsilon, parse_threads};
use crate::args::{GuaranteeContext, NotionArg};
use crate::io::table::FileFormat;
use crate::io::table::reader::TableReader;
use manifold_dp::privacy::guarantee::{short, short_down, short_up};
use manifold_dp::privacy::{Metric, Target, compose, convert};
use manifold_dp::registry::MechanismName;
use manifold_dp::registry::Space;
use manifold_dp::space::representation::Representation;
use manifold_dp_arrow::clock;
use manifold_dp_arrow::{DirectionColumns, PointColumns, RotationColumns, SpdColumns};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use std::path::PathBuf;
use std::time::Instant;

fn cases() -> u32 {
    std::env::var("MDP_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

fn seed() -> u64 {
    std::env::var("MDP_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(14)
}

/// The seed corpus of `target`: every file in `fuzz/corpus/<target>/` (at least one must exist).
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

/// Inputs for `target`: its corpus as is, corpus entries with a few bytes replaced, inserted or cut, arbitrary
/// bytes, and `near` (text close to valid).
fn inputs(target: &str, near: BoxedStrategy<String>) -> BoxedStrategy<Vec<u8>> {
    let seeds = corpus(target);
    let mutated =
        (prop::sample::select(seeds.clone()), prop::collection::vec((any::<usize>(), any::<u8>(), 0..3u8), 1..6))
            .prop_map(|(mut s, edits)| {
                for (at, byte, how) in edits {
                    let i = if s.is_empty() { 0 } else { at % (s.len() + 1) };
                    match how {
                        0 if i < s.len() => s[i] = byte,
                        1 => s.insert(i, byte),
                        _ if i < s.len() => {
                            s.remove(i);
                        }
                        _ => s.push(byte),
                    }
                }
                s
            });
    prop_oneof![
        2 => prop::sample::select(seeds),
        4 => mutated,
        2 => prop::collection::vec(any::<u8>(), 0..64),
        2 => any::<String>().prop_map(String::into_bytes),
        3 => near.prop_map(String::into_bytes),
    ]
    .boxed()
}

/// Runs `check` on `cases()` inputs of `target` from a fixed seed; prints the count and the time taken.
fn fuzz(target: &str, near: BoxedStrategy<String>, check: impl Fn(&[u8])) {
    let config =
        Config { cases: cases(), failure_persistence: None, rng_seed: RngSeed::Fixed(seed()), ..Config::default() };
    let mut runner = TestRunner::new(config);
    let start = Instant::now();
    let outcome = runner.run(&inputs(target, near), |bytes| {
        check(&bytes);
        Ok(())
    });
    eprintln!("fuzz {target}: {} cases in {:.2?}", cases(), start.elapsed());
    if let Err(e) = outcome {
        panic!("fuzz {target}: {e}");
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn fuzz_clock_text() {
    let near = "[0-9]{0,4}[-T :.tZz+€é]{0,3}[0-9]{0,3}[:.][0-9]{0,3}[:.]?[0-9]{0,10}[Zz+:0-9-]{0,6}".boxed();
    fuzz("clock", near, |b| {
        let t = text(b);
        if let Ok(c) = clock::parse(&t) {
            assert!((0.0..=24.0).contains(&c.hours), "{t:?}: {}", c.hours);
            // A parsed time formats back, at any noisy value (wrapping at midnight).
            for h in [c.hours, 0.0, 23.9999999, 24.0, -1.0, f64::NAN, 1e300] {
                let _ = c.format(h);
            }
            let written = c.format(c.hours % 24.0);
            let again = clock::parse(&written).unwrap_or_else(|e| panic!("{t:?} wrote {written:?}: {e}"));
            assert_eq!(again.precision, c.precision, "{t:?}");
        }
    });
}

#[test]
fn fuzz_units_and_levels() {
    let near = "[ -]?[0-9.e+-]{0,8} ?(deg|°|rad|h|min|s|km|m|mi|%|DEG|Km)?".boxed();
    let spaces = [Space::So3, Space::Circle, Space::TimeOfDay, Space::LatLon, Space::Sphere(5)];
    fuzz("units", near, |b| {
        let t = text(b);
        for space in spaces {
            if let Ok(d) = space.parse_distance(&t) {
                assert!(d.is_finite(), "{t:?} on {space}: {d}");
            }
        }
        let _ = crate::args::units::parse_level(&t);
    });
}

#[test]
fn fuzz_space_and_mechanism_names() {
    let near = "(so3|circle|timeofday|latlon|real|sphere:|spd:|laplace|bingham|vmf|purkayastha|control:|quat-|euler:)\
                [0-9a-zA-Z:._-]{0,24}"
        .boxed();
    fuzz("names", near, |b| {
        let t = text(b);
        let _ = t.parse::<Space>();
        let _ = crate::args::audit::parse_count(&t);
        let _ = t.parse::<Representation>();
        let _ = t.parse::<MechanismName>();
        let _ = parse_epsilon(&t);
        let _ = parse_threads(&t);
        if let Ok(space) = crate::args::audit::parse_space(&t) {
            // A space that parses is small enough to build an audit target on.
            let request = manifold_dp::audit::AuditRequest::new(space, "uniform", None);
            let _ = manifold_dp::audit::catalog::build(&request);
        }
        // Arbitrary mechanism names given to the auditor's catalog.
        let request =
            manifold_dp::audit::AuditRequest::new(manifold_dp::audit::AuditSpace::Sphere { dim: 3 }, &t, Some(1.0));
        let _ = manifold_dp::audit::catalog::build(&request);
    });
}

#[test]
fn fuzz_center() {
    let near = "(identity|[ -]?[0-9.e-]{0,6}(deg|rad|h|:[0-9]{2})?)(,[ -]?[0-9.e-]{0,6}){0,9}".boxed();
    let spaces = [Space::Circle, Space::TimeOfDay, Space::LatLon, Space::Sphere(3), Space::Sphere(4)];
    fuzz("center", near, |b| {
        let t = text(b);
        for space in spaces.into_iter().chain([Space::So3]) {
            let request = manifold_dp_arrow::SampleRequest {
                center: Some(manifold_dp_arrow::MeanCenter::Text(t.clone())),
                ..manifold_dp_arrow::SampleRequest::new(space)
            };
            match request.point(&crate::args::common::Flags) {
                Ok(manifold_dp_arrow::SamplePoint::Direction(c)) => {
                    assert!(c.iter().all(|v| v.is_finite()) && (c.norm() - 1.0).abs() < 1e-9, "{t:?} on {space}")
                }
                Ok(manifold_dp_arrow::SamplePoint::Rotation(q)) => assert!(q.coords.iter().all(|v| v.is_finite())),
                Err(_) => {}
            }
        }
        // The mean's centre as the core's request reads it: an answer or an error, never a panic.
        let noise = manifold_dp_arrow::MeanNoise::Laplace {
            epsilon: 1.0,
            conditioning: manifold_dp::mechanism::Conditioning::Auto,
        };
        for space in spaces.into_iter().chain([Space::So3, Space::Spd(2)]) {
            let request = manifold_dp_arrow::MeanRequest {
                center: Some(manifold_dp_arrow::MeanCenter::Text(t.clone())),
                radius: Some(String::from(match space {
                    Space::TimeOfDay => "1h",
                    Space::LatLon => "10km",
                    _ => "0.1",
                })),
                ..manifold_dp_arrow::MeanRequest::new(space)
            };
            let _ = request.plan(Some(&noise), &crate::args::common::Flags);
        }
    });
}

#[test]
fn fuzz_budget_values() {
    let near = "[ -]?[0-9.]{0,6}(e[+-]?[0-9]{1,3})?(,[ -]?[0-9.]{0,6}(e[+-]?[0-9]{1,3})?)?".boxed();
    let context = GuaranteeContext { family: "gaussian".into(), metric: "so3_geodesic".into(), unit: None };
    let notions =
        [NotionArg::Pure, NotionArg::Approx, NotionArg::Zcdp, NotionArg::Gdp, NotionArg::Rao, NotionArg::Metric];
    let targets = [
        Target::Pure { diameter: None },
        Target::Pure { diameter: Some(std::f64::consts::PI) },
        Target::Approx { delta: Some(1e-6), epsilon: None },
        Target::Approx { delta: None, epsilon: Some(1.0) },
        Target::Zcdp,
        Target::Gdp,
        Target::Rao,
        Target::Metric { metric: Metric::So3Geodesic, unit: "deg" },
    ];
    fuzz("budget", near, |b| {
        let t = text(b);
        for notion in notions {
            let Ok(g) = context.parse(notion, &t) else { continue };
            let _ = g.to_string();
            let _ = compose(&[g, g, g]);
            let _ = manifold_dp::privacy::implied(&[g, g], false, 1e-6);
            for target in targets {
                if let Ok(c) = convert(&g, target) {
                    let _ = c.to_string();
                }
            }
        }
    });
}

#[test]
fn fuzz_number_formatting() {
    let near = "[0-9]{1,3}(\\.[0-9]{1,17})?e[+-]?[0-9]{1,3}".boxed();
    fuzz("numbers", near, |b| {
        let mut x = [0u8; 8];
        x[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
        for v in [f64::from_le_bytes(x), text(b).trim().parse::<f64>().unwrap_or(0.0)] {
            let (n, u, d) = (short(v), short_up(v), short_down(v));
            assert!(n.len() <= 13 && u.len() <= 13 && d.len() <= 13, "{v:e}: {n} {u} {d}");
            if v.is_finite() {
                let (u, d): (f64, f64) = (u.parse().unwrap(), d.parse().unwrap());
                assert!(u >= v && d <= v, "{v:e}: up {u}, down {d}");
            }
        }
    });
}

/// Decodes every batch of `reader` through `columns` and re-encodes the decoded points.
fn decode_all<C: PointColumns>(reader: &mut TableReader, columns: &C) {
    while let Ok(Some(batch)) = reader.next_batch() {
        if let Ok(decoded) = columns.decode(&batch.batch) {
            assert_eq!(decoded.points.len(), batch.batch.num_rows());
            let _ = columns.encode(&batch.batch, &decoded.points);
        }
    }
}

/// Reads `path` as `format` and decodes it as every space (and, on so3, every representation).
fn read_as_every_space(path: &str, format: FileFormat) {
    let open = || TableReader::open(path, format, None, true);
    let Ok(reader) = open() else { return };
    let schema = reader.schema();
    for space in [Space::Circle, Space::TimeOfDay, Space::LatLon, Space::Sphere(3)] {
        let columns_for = |names: Option<&[String]>| DirectionColumns::locate(&schema, space, None, names);
        let named: Vec<String> =
            schema.fields().iter().take(space.sphere_dim().unwrap()).map(|f| f.name().clone()).collect();
        for columns in [columns_for(None), columns_for(Some(&named))].into_iter().flatten() {
            decode_all(&mut open().unwrap(), &columns);
        }
    }
    for repr in ["quat-wxyz", "quat-xyzw", "matrix", "rotvec", "euler:ZYX", "euler:xyz:rad"] {
        let repr: Representation = repr.parse().unwrap();
        let named: Vec<String> = schema.fields().iter().take(repr.len()).map(|f| f.name().clone()).collect();
        for names in [None, Some(named.as_slice())] {
            if let Ok(columns) = RotationColumns::locate(&schema, repr, names, Representation::QuatWxyz) {
                decode_all(&mut open().unwrap(), &columns);
            }
        }
    }
    if let Ok(columns) = SpdColumns::locate(&schema, 2, None)
        && let Ok(Some(batch)) = open().unwrap().next_batch()
    {
        let _ = columns.decode(&batch.batch);
    }
}

#[test]
fn fuzz_csv_rows() {
    let near =
        "(w,x,y,z|angle|time|lat,lon|x1,x2,x3|m11,m12,m21,m22|a,b,c)\n(([ -]?[0-9.e:T-]{0,8}|\"[^\"]{0,6}\"),?){0,5}\n\
                (([ -]?[0-9.e:€-]{0,8}),?){0,5}\n?"
            .boxed();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.csv");
    let path = path.to_str().unwrap().to_string();
    fuzz("csv", near, |b| {
        std::fs::write(&path, b).unwrap();
        read_as_every_space(&path, FileFormat::Csv);
    });
}

#[test]
fn fuzz_parquet_files() {
    // Near-valid Parquet is the corpus (small files written by this tool) with bytes changed;
    // arbitrary bytes and text are the rest.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.parquet");
    let path = path.to_str().unwrap().to_string();
    fuzz("parquet", Just(String::new()).boxed(), |b| {
        std::fs::write(&path, b).unwrap();
        read_as_every_space(&path, FileFormat::Parquet);
    });
}
