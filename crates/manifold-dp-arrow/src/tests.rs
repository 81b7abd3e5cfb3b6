//! Tests of every codec (round trips at the largest ε, bad rows named by column, bad tables as errors) and of
//! keyed release (batching, threads and row order never change a row's noise; keyed by an id column, a changed
//! row draws fresh noise).

use super::*;
use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
use manifold_dp::registry::{Budget, MechanismName};
use std::sync::Arc;

fn table(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

fn numbers(v: &[f64]) -> ArrayRef {
    Arc::new(Float64Array::from(v.to_vec()))
}

fn text(v: &[&str]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

fn column(batch: &RecordBatch, name: &str) -> Vec<f64> {
    let c = batch.column_by_name(name).unwrap();
    c.as_any().downcast_ref::<Float64Array>().unwrap().values().to_vec()
}

fn mech(space: Space, name: MechanismName, epsilon: f64) -> PointMechanism {
    PointMechanism::new(space, name, Budget::Epsilon(epsilon)).unwrap()
}

fn key() -> StreamKey {
    StreamKey::from_seed_for_experiments(3)
}

/// Releases `batch` at ε = 1e6 (noise of about a microradian).
fn near_identity(space: Space, name: MechanismName, batch: &RecordBatch, format: Option<&str>) -> Released {
    let codec = Codec::locate(&batch.schema(), space, format, None, None).unwrap();
    privatize_batch(&mech(space, name, 1e6), &codec, batch, &key(), RowIds::First(0)).unwrap()
}

#[test]
fn rotations_round_trip_in_every_representation() {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let quat = table(vec![
        ("id", text(&["a", "b"])),
        ("w", numbers(&[1.0, h])),
        ("x", numbers(&[0.0, h])),
        ("y", numbers(&[0.0, 0.0])),
        ("z", numbers(&[0.0, 0.0])),
    ]);
    let out = near_identity(Space::So3, MechanismName::Laplace, &quat, None).batch;
    assert_eq!(out.schema(), quat.schema());
    assert_eq!(out.column(0), quat.column(0), "other columns pass unchanged");
    for name in ["w", "x", "y", "z"] {
        for (a, b) in column(&out, name).iter().zip(column(&quat, name)) {
            assert!((a.abs() - b.abs()).abs() < 1e-4, "{name}: {a} vs {b}");
        }
    }
    let rotvec = table(vec![("rx", numbers(&[0.5])), ("ry", numbers(&[-0.2])), ("rz", numbers(&[0.1]))]);
    let out = near_identity(Space::So3, MechanismName::Laplace, &rotvec, Some("rotvec")).batch;
    for (name, v) in [("rx", 0.5), ("ry", -0.2), ("rz", 0.1)] {
        assert!((column(&out, name)[0] - v).abs() < 1e-3);
    }
    // Another output representation takes the place of the first input column.
    let codec = Codec::locate(&quat.schema(), Space::So3, None, None, Some("rotvec")).unwrap();
    let out = privatize_batch(&mech(Space::So3, MechanismName::Laplace, 1e6), &codec, &quat, &key(), RowIds::First(0))
        .unwrap()
        .batch;
    let names: Vec<String> = out.schema().fields().iter().map(|f| f.name().clone()).collect();
    assert_eq!(names, ["id", "rx", "ry", "rz"]);
    assert!((column(&out, "rx")[1] - std::f64::consts::FRAC_PI_2).abs() < 1e-4);
}

#[test]
fn directions_round_trip_in_every_form() {
    let circle = table(vec![("angle", numbers(&[10.0, 350.0]))]);
    let out = near_identity(Space::Circle, MechanismName::Purkayastha, &circle, Some("deg")).batch;
    let a = column(&out, "angle");
    assert!((a[0] - 10.0).abs() < 1e-3 && (a[1] - 350.0).abs() < 1e-3, "{a:?}");
    let clock = table(vec![("time", text(&["13:30", "2024-05-01T23:59:59Z", "7.25"]))]);
    let out = near_identity(Space::TimeOfDay, MechanismName::Purkayastha, &clock, None).batch;
    let t = out.column(0).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!((t.value(0), t.value(1)), ("13:30", "2024-05-01T23:59:59Z"));
    assert!((t.value(2).parse::<f64>().unwrap() - 7.25).abs() < 1e-4);
    let hours = table(vec![("time", numbers(&[0.5]))]);
    let out = near_identity(Space::TimeOfDay, MechanismName::WrappedLaplace, &hours, None).batch;
    assert!((column(&out, "time")[0] - 0.5).abs() < 1e-4);
    let places = table(vec![("lat", numbers(&[48.85, -33.9])), ("lon", numbers(&[2.35, 151.2]))]);
    let out = near_identity(Space::LatLon, MechanismName::Purkayastha, &places, None).batch;
    for (name, want) in [("lat", [48.85, -33.9]), ("lon", [2.35, 151.2])] {
        for (a, b) in column(&out, name).iter().zip(want) {
            assert!((a - b).abs() < 1e-3, "{name}: {a} vs {b}");
        }
    }
    let units =
        table(vec![("x1", numbers(&[0.0])), ("x2", numbers(&[0.6])), ("x3", numbers(&[0.8])), ("x4", numbers(&[0.0]))]);
    let out = near_identity(Space::Sphere(4), MechanismName::Purkayastha, &units, None).batch;
    for (name, v) in [("x1", 0.0), ("x2", 0.6), ("x3", 0.8), ("x4", 0.0)] {
        assert!((column(&out, name)[0] - v).abs() < 1e-4);
    }
}

#[test]
fn spd_matrices_decode_and_bad_ones_are_named() {
    let batch = table(vec![
        ("m11", numbers(&[2.0, 1.0, 1.0])),
        ("m12", numbers(&[0.5, 2.0, f64::NAN])),
        ("m21", numbers(&[0.5, 2.0, 0.0])),
        ("m22", numbers(&[1.0, 1.0, 1.0])),
    ]);
    let codec = SpdColumns::locate(&batch.schema(), 2, None).unwrap();
    let d = codec.decode(&batch).unwrap();
    assert_eq!(d.points[0][(0, 1)], 0.5);
    assert_eq!(d.problems.len(), 2);
    assert_eq!(d.problems[0].0, 1);
    assert!(d.problems[0].1.reason.contains("positive definite"), "{:?}", d.problems[0]);
    assert_eq!((d.problems[1].0, d.problems[1].1.column.as_deref()), (2, Some("m12")));
    assert!(matches!(SpdColumns::locate(&batch.schema(), 3, None), Err(Error::MissingColumn { .. })));
}

#[test]
fn bad_rows_are_named_and_left_out() {
    let batch = table(vec![("lat", numbers(&[10.0, 95.0, 20.0, 30.0])), ("lon", text(&["1", "2", "x", "400"]))]);
    let codec = Codec::locate(&batch.schema(), Space::LatLon, None, None, None).unwrap();
    let out = privatize_batch(&mech(Space::LatLon, MechanismName::Vmf, 1.0), &codec, &batch, &key(), RowIds::First(0))
        .unwrap();
    let rejected: Vec<(usize, Option<&str>)> = out.rejected.iter().map(|(i, p)| (*i, p.column.as_deref())).collect();
    assert_eq!(rejected, [(1, Some("lat")), (2, Some("lon")), (3, Some("lon"))]);
    assert_eq!(out.batch.num_rows(), 1);
    assert_eq!(out.kept.unwrap().true_count(), 1);
    let rot = table(vec![
        ("w", numbers(&[1.0, 0.5])),
        ("x", numbers(&[0.0; 2])),
        ("y", numbers(&[0.0; 2])),
        ("z", numbers(&[0.0; 2])),
    ]);
    let codec = Codec::locate(&rot.schema(), Space::So3, None, None, None).unwrap();
    assert_eq!(codec.problems(&rot).unwrap()[0].0, 1, "a quaternion of norm 0.5 is not a rotation");
}

#[test]
fn bad_tables_are_errors_without_flag_names() {
    let batch = table(vec![("a", numbers(&[1.0])), ("b", numbers(&[1.0]))]);
    let errors = [
        Codec::locate(&batch.schema(), Space::So3, None, None, None).unwrap_err(),
        Codec::locate(&batch.schema(), Space::LatLon, None, Some(&["a".to_string()]), None).unwrap_err(),
        Codec::locate(&batch.schema(), Space::TimeOfDay, Some("deg"), None, None).unwrap_err(),
        Codec::locate(&batch.schema(), Space::LatLon, None, Some(&["a".into(), "a".into()]), None).unwrap_err(),
        Codec::locate(&batch.schema(), Space::Spd(2), None, None, None).unwrap_err(),
        Codec::locate(&batch.schema(), Space::Circle, None, Some(&["a".into()]), Some("rotvec")).unwrap_err(),
    ];
    assert!(matches!(errors[0], Error::MissingColumn { .. }));
    assert!(matches!(errors[1], Error::ColumnCount { needed: 2, .. }));
    assert!(matches!(errors[2], Error::FormatNotForSpace { .. }));
    assert!(matches!(errors[3], Error::DuplicateColumn(_)));
    for e in &errors {
        assert!(!e.to_string().contains("--"), "{e}");
    }
    let codec = Codec::locate(&batch.schema(), Space::Circle, None, Some(&["a".into()]), None).unwrap();
    let so3 = mech(Space::So3, MechanismName::Laplace, 1.0);
    assert!(privatize_batch(&so3, &codec, &batch, &key(), RowIds::First(0)).is_err(), "space mismatch");
}

fn quaternions(n: usize) -> RecordBatch {
    let angle: Vec<f64> = (0..n).map(|i| i as f64 * 1e-3).collect();
    table(vec![
        ("w", numbers(&angle.iter().map(|a| a.cos()).collect::<Vec<_>>())),
        ("x", numbers(&angle.iter().map(|a| a.sin()).collect::<Vec<_>>())),
        ("y", numbers(&vec![0.0; n])),
        ("z", numbers(&vec![0.0; n])),
    ])
}

fn bits(batch: &RecordBatch) -> Vec<u64> {
    batch
        .columns()
        .iter()
        .flat_map(|c| c.as_any().downcast_ref::<Float64Array>().unwrap().values().to_vec())
        .map(f64::to_bits)
        .collect()
}

#[test]
fn batching_and_threads_never_change_the_noise() {
    let n = 10_000;
    let all = quaternions(n);
    let codec = Codec::locate(&all.schema(), Space::So3, None, None, None).unwrap();
    let m = mech(Space::So3, MechanismName::Laplace, 2.0);
    let run = |threads: usize, cuts: &[usize]| -> Vec<Vec<f64>> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut parts = Vec::new();
            let mut start = 0;
            for &len in cuts {
                let piece = all.slice(start, len);
                parts.push(privatize_batch(&m, &codec, &piece, &key(), RowIds::First(start as u64)).unwrap().batch);
                start += len;
            }
            let whole = arrow_select::concat::concat_batches(&codec.output_schema(), &parts).unwrap();
            ["w", "x", "y", "z"].iter().map(|c| column(&whole, c)).collect()
        })
    };
    let one = run(1, &[n]);
    assert_eq!(one, run(2, &[n]));
    assert_eq!(one, run(2, &[1, 4095, 3, 5000, 901]));
    assert_eq!(one, run(1, &[4096, 4096, 1808]));
    // Another key: other noise.
    let other = privatize_batch(&m, &codec, &all, &StreamKey::from_seed_for_experiments(4), RowIds::First(0)).unwrap();
    assert_ne!(bits(&other.batch), one.concat().iter().map(|v| v.to_bits()).collect::<Vec<_>>());
}

#[test]
fn noise_follows_the_id_column_not_the_position() {
    let n = 300;
    let all = quaternions(n);
    let ids: Vec<i64> = (0..n as i64).map(|i| i * 7919 - 1000).collect();
    let with_ids = |order: &[usize]| {
        let rows = arrow_array::UInt64Array::from(order.iter().map(|&i| i as u64).collect::<Vec<_>>());
        let mut batch = arrow_select::take::take_record_batch(&all, &rows).unwrap();
        let id: Vec<i64> = order.iter().map(|&i| ids[i]).collect();
        let mut columns = batch.columns().to_vec();
        columns.push(Arc::new(Int64Array::from(id)));
        let mut fields: Vec<_> = batch.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
        fields.push(arrow_schema::Field::new("id", arrow_schema::DataType::Int64, false));
        batch = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap();
        batch
    };
    let forward: Vec<usize> = (0..n).collect();
    let backward: Vec<usize> = (0..n).rev().collect();
    let m = mech(Space::So3, MechanismName::Bingham, 3.0);
    let release = |batch: &RecordBatch| {
        let codec = Codec::locate(&batch.schema(), Space::So3, None, None, None).unwrap();
        privatize_batch(&m, &codec, batch, &key(), RowIds::Column("id")).unwrap().batch
    };
    let a = release(&with_ids(&forward));
    let b = release(&with_ids(&backward));
    for i in 0..n {
        assert_eq!(column(&a, "w")[i].to_bits(), column(&b, "w")[n - 1 - i].to_bits());
        assert_eq!(column(&a, "z")[i].to_bits(), column(&b, "z")[n - 1 - i].to_bits());
    }
    // A piece of the table alone gets the same noise as within the whole.
    let piece = release(&with_ids(&forward[100..110]));
    assert_eq!(column(&piece, "x"), column(&a, "x")[100..110].to_vec());
}

#[test]
fn keyed_rows_redraw_their_noise_when_their_values_change_and_take_text_ids() {
    let batch = |ids: ArrayRef, w: &[f64], x: &[f64]| {
        let n = w.len();
        table(vec![
            ("id", ids),
            ("w", numbers(w)),
            ("x", numbers(x)),
            ("y", numbers(&vec![0.0; n])),
            ("z", numbers(&vec![0.0; n])),
        ])
    };
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let m = mech(Space::So3, MechanismName::Laplace, 2.0);
    let release = |b: &RecordBatch, key: &StreamKey| {
        let codec = Codec::locate(&b.schema(), Space::So3, None, None, None).unwrap();
        privatize_batch(&m, &codec, b, key, RowIds::Column("id")).unwrap().batch
    };
    let ids = || text(&["CDG", "ORY", "LHR"]);
    let before = release(&batch(ids(), &[1.0, 1.0, 1.0], &[0.0, 0.0, 0.0]), &key());
    // Row ORY moved; the others did not.
    let after = release(&batch(ids(), &[1.0, h, 1.0], &[0.0, h, 0.0]), &key());
    let again = release(&batch(ids(), &[1.0, 1.0, 1.0], &[0.0, 0.0, 0.0]), &key());
    for c in ["w", "x", "y", "z"] {
        assert_eq!(column(&before, c), column(&again, c), "unchanged input: the same release, bit for bit");
        assert_eq!(column(&before, c)[0].to_bits(), column(&after, c)[0].to_bits(), "an unchanged row");
        assert_eq!(column(&before, c)[2].to_bits(), column(&after, c)[2].to_bits(), "an unchanged row");
    }
    // The moved row's noise is fresh. With the noise reused, the two releases would lie exactly the move apart
    // (a quarter turn; the geodesic distance is invariant on both sides), giving the move away.
    let q = |b: &RecordBatch, i: usize| {
        nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            column(b, "w")[i],
            column(b, "x")[i],
            column(b, "y")[i],
            column(b, "z")[i],
        ))
    };
    let apart = q(&before, 1).angle_to(&q(&after, 1));
    assert!((apart - std::f64::consts::FRAC_PI_2).abs() > 1e-3, "the changed row drew the same noise: {apart}");
    // Another key, another release; integer and text ids give different keys.
    let other = release(&batch(ids(), &[1.0, 1.0, 1.0], &[0.0, 0.0, 0.0]), &StreamKey::from_seed_for_experiments(4));
    assert_ne!(column(&before, "w"), column(&other, "w"));
    let numbered =
        release(&batch(Arc::new(Int64Array::from(vec![0, 1, 2])), &[1.0, 1.0, 1.0], &[0.0, 0.0, 0.0]), &key());
    assert_ne!(column(&before, "w"), column(&numbered, "w"));
    // A text id repeated is refused, naming it.
    let codec = Codec::locate(&before.schema(), Space::So3, None, None, None).unwrap();
    let dup = batch(text(&["CDG", "ORY", "CDG"]), &[1.0; 3], &[0.0; 3]);
    let e = privatize_batch(&m, &codec, &dup, &key(), RowIds::Column("id")).unwrap_err();
    assert!(e.to_string().contains("\"CDG\" appears at rows 0 and 2"), "{e}");
}

#[test]
fn ids_must_be_integers_present_and_distinct() {
    let base = quaternions(3);
    let with = |id: ArrayRef| {
        let mut columns = base.columns().to_vec();
        columns.push(id.clone());
        let mut fields: Vec<_> = base.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
        fields.push(arrow_schema::Field::new("id", id.data_type().clone(), true));
        RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap()
    };
    let m = mech(Space::So3, MechanismName::Laplace, 1.0);
    let try_ids = |batch: &RecordBatch| {
        let codec = Codec::locate(&batch.schema(), Space::So3, None, None, None).unwrap();
        privatize_batch(&m, &codec, batch, &key(), RowIds::Column("id")).map(|_| ())
    };
    let dup = try_ids(&with(Arc::new(Int64Array::from(vec![1, 2, 1])))).unwrap_err();
    assert!(dup.to_string().contains("rows 0 and 2"), "{dup}");
    let null = try_ids(&with(Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])))).unwrap_err();
    assert!(null.to_string().contains("[1]"), "{null}");
    assert!(try_ids(&with(text(&["a", "b", "c"]))).is_ok(), "text ids (natural keys)");
    assert!(try_ids(&with(numbers(&[1.0, 2.0, 3.0]))).is_err(), "floating-point ids");
    assert!(try_ids(&with(Arc::new(Int64Array::from(vec![5, -5, 0])))).is_ok());
    let codec = Codec::locate(&base.schema(), Space::So3, None, None, None).unwrap();
    assert!(privatize_batch(&m, &codec, &base, &key(), RowIds::Column("nope")).is_err());
    assert!(privatize_batch(&m, &codec, &base, &key(), RowIds::Given(&[1, 2])).is_err());
}

#[test]
fn plain_numbers_are_released_in_place_and_bad_values_named() {
    let batch = table(vec![("id", numbers(&[1.0, 2.0, 3.0])), ("depth", numbers(&[10.0, 2e6, -5.0]))]);
    let cols = vec!["depth".to_string()];
    let codec = Codec::locate(&batch.schema(), Space::Real, None, Some(&cols), None).unwrap();
    let mech = PointMechanism::bounded(0.0, 100.0, 1, Budget::Epsilon(1e4)).unwrap();
    let out = privatize_batch(&mech, &codec, &batch, &key(), RowIds::First(0)).unwrap();
    assert_eq!(column(&out.batch, "id"), vec![1.0, 2.0, 3.0]);
    let depth = column(&out.batch, "depth");
    // Clamped to [0, 100] first, then noise of scale 0.01.
    for (got, want) in depth.iter().zip([10.0, 100.0, 0.0]) {
        assert!((got - want).abs() < 0.5, "{depth:?}");
    }
    // Re-batching never changes a row's noise.
    let second = privatize_batch(&mech, &codec, &batch.slice(1, 2), &key(), RowIds::First(1)).unwrap();
    assert_eq!(column(&second.batch, "depth"), depth[1..].to_vec());
    let bad = table(vec![("depth", text(&["1", "deep", ""]))]);
    let codec = Codec::locate(&bad.schema(), Space::Real, None, Some(&cols), None).unwrap();
    let out = privatize_batch(&mech, &codec, &bad, &key(), RowIds::First(0)).unwrap();
    let rows: Vec<usize> = out.rejected.iter().map(|(r, _)| *r).collect();
    assert_eq!(rows, vec![1, 2]);
    assert_eq!(out.rejected[0].1.column.as_deref(), Some("depth"));
    // The mechanism's row width must match the columns.
    let two = PointMechanism::bounded(0.0, 100.0, 2, Budget::Epsilon(1.0)).unwrap();
    assert!(privatize_batch(&two, &codec, &bad, &key(), RowIds::First(0)).is_err());
    assert!(Codec::locate(&bad.schema(), Space::Real, Some("deg"), Some(&cols), None).is_err());
}

#[test]
fn times_timestamps_and_dictionaries_are_times_of_day() {
    use arrow_array::types::Int32Type;
    use arrow_array::{DictionaryArray, Time64MicrosecondArray, TimestampMillisecondArray};
    let utc_1130 = 1_714_563_000_000i64; // 2024-05-01 11:30 UTC, 13:30 in Paris
    let batch = table(vec![
        ("t", Arc::new(Time64MicrosecondArray::from(vec![(13 * 3600 + 1800) * 1_000_000i64])) as ArrayRef),
        ("ts", Arc::new(TimestampMillisecondArray::from(vec![utc_1130]).with_timezone("Europe/Paris")) as ArrayRef),
        ("d", Arc::new(vec!["13:30"].into_iter().collect::<DictionaryArray<Int32Type>>()) as ArrayRef),
    ]);
    for name in ["t", "ts", "d"] {
        let cols = vec![name.to_string()];
        let codec = Codec::locate(&batch.schema(), Space::TimeOfDay, None, Some(&cols), None).unwrap();
        let out = privatize_batch(
            &mech(Space::TimeOfDay, MechanismName::Purkayastha, 1e5),
            &codec,
            &batch,
            &key(),
            RowIds::First(0),
        )
        .unwrap();
        assert!(out.rejected.is_empty(), "{name}");
        let column = out.batch.column_by_name(name).unwrap();
        // The type is kept (text for a dictionary of text), and the time of day moved by well under a minute.
        let hours = match name {
            "d" => {
                assert_eq!(column.data_type(), &arrow_schema::DataType::Utf8);
                let text = column.as_any().downcast_ref::<StringArray>().unwrap().value(0).to_string();
                assert!(text == "13:30" || text == "13:29" || text == "13:31", "{text}");
                13.5
            }
            _ => {
                assert_eq!(column.data_type(), batch.column_by_name(name).unwrap().data_type(), "{name}");
                temporal::hours(column).unwrap().value(0)
            }
        };
        assert!((hours - 13.5).abs() < 1.0 / 60.0, "{name}: {hours}");
    }
    // A timestamp is not a number: refused on other spaces, naming the column.
    let cols = vec!["ts".to_string()];
    let codec = Codec::locate(&batch.schema(), Space::Circle, None, Some(&cols), None).unwrap();
    let e = codec.problems(&batch).unwrap_err().to_string();
    assert!(e.contains("times of day on space timeofday only"), "{e}");
}

/// A failure that Arrow raised keeps Arrow's error as its source (a caller can inspect it), and its message is
/// still the one that quotes it.
#[test]
fn arrow_failures_keep_arrows_error_as_their_source() {
    let blob: ArrayRef = Arc::new(arrow_array::BinaryArray::from(vec![b"a".as_ref()]));
    let e = columns::ColumnView::new(&blob, "blob").err().expect("bytes are not numbers");
    let source = std::error::Error::source(&e).expect("the chain keeps Arrow's error");
    let arrow = source.downcast_ref::<ArrowSource>().expect("an ArrowSource").arrow_error();
    assert!(matches!(arrow, arrow_schema::ArrowError::CastError(_)), "{arrow:?}");
    assert_eq!(e.to_string(), format!("column \"blob\" cannot be read as numbers: {arrow}"));
    assert_eq!(e, e.clone());
    // Failures of the core's own making have no Arrow error behind them.
    let two = table(vec![("x", numbers(&[1.0, 2.0]))]);
    let e = row_ids(&two, RowIds::Given(&[1])).expect_err("one id for two rows");
    assert!(matches!(e, Error::Arrow { source: None, .. }), "{e:?}");
    assert_eq!(e.to_string(), "1 row ids for a batch of 2 rows");
}

/// Keyed rows beyond the 1024-row chunks, with rows rejected among them: every kept row draws the noise it draws
/// in a batch without the rejected rows (its randomness follows its id and values, not its position, and the
/// rejected rows' randomness is dropped with them).
#[test]
fn keyed_rows_keep_their_noise_across_chunks_and_rejections() {
    let n = 2500;
    let angle: Vec<f64> = (0..n).map(|i| i as f64 * 1e-3).collect();
    let bad = [5usize, 1024, 1500];
    let w: Vec<f64> = (0..n).map(|i| if bad.contains(&i) { f64::NAN } else { angle[i].cos() }).collect();
    let build = |rows: &[usize]| {
        table(vec![
            ("id", Arc::new(Int64Array::from(rows.iter().map(|&i| i as i64 * 31 - 7).collect::<Vec<_>>())) as ArrayRef),
            ("w", numbers(&rows.iter().map(|&i| w[i]).collect::<Vec<_>>())),
            ("x", numbers(&rows.iter().map(|&i| angle[i].sin()).collect::<Vec<_>>())),
            ("y", numbers(&vec![0.0; rows.len()])),
            ("z", numbers(&vec![0.0; rows.len()])),
        ])
    };
    let m = mech(Space::So3, MechanismName::Laplace, 1.0);
    let release = |batch: &RecordBatch| {
        let codec = Codec::locate(&batch.schema(), Space::So3, None, None, None).unwrap();
        privatize_batch(&m, &codec, batch, &key(), RowIds::Column("id")).unwrap()
    };
    let all: Vec<usize> = (0..n).collect();
    let with_bad = release(&build(&all));
    let rejected: Vec<usize> = with_bad.rejected.iter().map(|(i, _)| *i).collect();
    assert_eq!(rejected, bad);
    let good: Vec<usize> = all.iter().copied().filter(|i| !bad.contains(i)).collect();
    let clean = release(&build(&good));
    assert!(clean.rejected.is_empty());
    for c in ["w", "x", "y", "z"] {
        let (a, b) = (column(&with_bad.batch, c), column(&clean.batch, c));
        assert_eq!(a.len(), n - bad.len());
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "column {c}");
    }
    // Every row's noise differs (no two rows share randomness).
    let mut xs: Vec<u64> = column(&clean.batch, "y").iter().map(|v| v.to_bits()).collect();
    xs.sort_unstable();
    xs.dedup();
    assert_eq!(xs.len(), good.len());
}
