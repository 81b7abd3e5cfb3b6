//! End-to-end tests of `manifold-dp privatize`: round trips in every representation, pass-through columns,
//! bad input (exit code 2, a message naming row and column, nothing left behind), --skip-invalid, CSV and
//! Parquet agreeing, determinism under --seed whatever the thread count, and the JSON report.

use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use assert_cmd::Command;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use predicates::prelude::*;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

fn privatize() -> Command {
    let mut c = Command::cargo_bin("manifold-dp").unwrap();
    c.arg("privatize");
    c
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn frac(x: f64) -> f64 {
    x - x.floor()
}

/// A deterministic unit quaternion [w, x, y, z] (w > 0: rotation angle in [0.1, 2.9] rad about a spread axis).
fn quat(i: usize) -> [f64; 4] {
    let t = i as f64 + 1.0;
    let angle = 0.1 + 2.8 * frac(t * 0.618_033_988_749_894_9);
    let z = 2.0 * frac(t * 0.414_213_562_373_095) - 1.0;
    let r = (1.0 - z * z).sqrt();
    let lon = t * 2.399_963_229_728_653;
    let axis = [r * lon.cos(), r * lon.sin(), z];
    let (sh, ch) = (0.5 * angle).sin_cos();
    [ch, sh * axis[0], sh * axis[1], sh * axis[2]]
}

/// Row-major rotation matrix of a unit quaternion [w, x, y, z].
fn matrix(q: [f64; 4]) -> [f64; 9] {
    let [w, x, y, z] = q;
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - w * z),
        2.0 * (x * z + w * y),
        2.0 * (x * y + w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z - w * x),
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        1.0 - 2.0 * (x * x + y * y),
    ]
}

/// Rotation vector (axis × angle) of a unit quaternion [w, x, y, z] with w > 0.
fn rotvec(q: [f64; 4]) -> [f64; 3] {
    let [w, x, y, z] = q;
    let n = (x * x + y * y + z * z).sqrt();
    let angle = 2.0 * n.atan2(w);
    [x / n * angle, y / n * angle, z / n * angle]
}

fn join(values: &[f64]) -> String {
    values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

/// Parses CSV text into (header, records).
fn read_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r.records().map(|rec| rec.unwrap().iter().map(str::to_string).collect()).collect();
    (header, rows)
}

fn read_csv_file(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    read_csv(&fs::read_to_string(path).unwrap())
}

/// The named columns of a CSV table as numbers, row by row.
fn csv_numbers(header: &[String], rows: &[Vec<String>], names: &[&str]) -> Vec<Vec<f64>> {
    let idx: Vec<usize> = names.iter().map(|n| header.iter().position(|h| h == n).unwrap()).collect();
    rows.iter().map(|r| idx.iter().map(|&i| r[i].parse::<f64>().unwrap()).collect()).collect()
}

/// A Parquet file read back: the columns as text (`text`) or numbers (`numbers`), by name.
struct ParquetTable {
    schema: Vec<String>,
    batches: Vec<RecordBatch>,
}

impl ParquetTable {
    fn read(path: &Path) -> Self {
        let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(path).unwrap()).unwrap().build().unwrap();
        let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
        let schema = batches[0].schema().fields().iter().map(|f| f.name().clone()).collect();
        ParquetTable { schema, batches }
    }

    fn numbers(&self, names: &[&str]) -> Vec<Vec<f64>> {
        let mut out = Vec::new();
        for b in &self.batches {
            let cols: Vec<Float64Array> = names
                .iter()
                .map(|n| {
                    let c = arrow_cast::cast(b.column_by_name(n).unwrap(), &DataType::Float64).unwrap();
                    c.as_any().downcast_ref::<Float64Array>().unwrap().clone()
                })
                .collect();
            for i in 0..b.num_rows() {
                out.push(cols.iter().map(|c| c.value(i)).collect());
            }
        }
        out
    }

    fn text(&self, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        for b in &self.batches {
            let c = arrow_cast::cast(b.column_by_name(name).unwrap(), &DataType::Utf8).unwrap();
            let c = c.as_any().downcast_ref::<StringArray>().unwrap();
            out.extend((0..c.len()).map(|i| c.value(i).to_string()));
        }
        out
    }
}

/// Writes a Parquet file with text column `id`, Float64 columns `names` and text column `note`.
fn write_parquet(path: &Path, ids: &[String], names: &[&str], values: &[Vec<f64>], notes: &[String]) {
    let mut fields = vec![Field::new("id", DataType::Utf8, false)];
    let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from(ids.to_vec()))];
    for (j, n) in names.iter().enumerate() {
        fields.push(Field::new(*n, DataType::Float64, true));
        columns.push(Arc::new(Float64Array::from_iter_values(values.iter().map(|r| r[j]))));
    }
    fields.push(Field::new("note", DataType::Utf8, false));
    columns.push(Arc::new(StringArray::from(notes.to_vec())));
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    let mut w = ArrowWriter::try_new(fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// Distance between two quaternions as rotations (q ≡ −q).
fn quat_diff(a: &[f64], b: &[f64]) -> f64 {
    let neg: Vec<f64> = b.iter().map(|v| -v).collect();
    max_abs_diff(a, b).min(max_abs_diff(a, &neg))
}

// ---------------------------------------------------------------------------------------------------------
// 1. Round trips at epsilon = 1e6 (the largest accepted: noise of a few microradians) in every representation
// ---------------------------------------------------------------------------------------------------------

/// Writes `id,<names>,note` with `rows`, privatizes it at epsilon = 1e6 in `format`, and checks that the
/// output has the same header and, per row, values within 1e-4 by `diff`.
fn round_trip(format: &str, names: &[&str], rows: &[Vec<f64>], diff: fn(&[f64], &[f64]) -> f64) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let output = dir.path().join("out.csv");
    let mut text = format!("id,{},note\n", names.join(","));
    for (i, r) in rows.iter().enumerate() {
        text += &format!("{i},{},note {i}\n", join(r));
    }
    fs::write(&input, &text).unwrap();
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "1e6", "--seed", "1", "--format", format])
        .args(["--input", s(&input), "--output", s(&output)])
        .assert()
        .success();
    let (in_header, in_rows) = read_csv(&text);
    let (header, out_rows) = read_csv_file(&output);
    assert_eq!(header, in_header, "{format}: header changed");
    assert_eq!(out_rows.len(), rows.len(), "{format}: row count");
    let got = csv_numbers(&header, &out_rows, names);
    let mut worst = 0.0f64;
    for (i, (want, got)) in rows.iter().zip(&got).enumerate() {
        let d = diff(want, got);
        assert!(d < 1e-4, "{format}: row {} differs by {d}: input {want:?}, output {got:?}", i + 1);
        worst = worst.max(d);
    }
    // The noise is there, just tiny: the outputs are not the inputs' exact text.
    assert!(worst > 0.0, "{format}: at epsilon 1e6 the output should still carry (tiny) noise");
    for (a, b) in in_rows.iter().zip(&out_rows) {
        assert_eq!(a[0], b[0]);
        assert_eq!(a.last(), b.last());
    }
}

const N_ROUND_TRIP: usize = 50;

#[test]
fn round_trip_quat_wxyz() {
    let rows: Vec<Vec<f64>> = (0..N_ROUND_TRIP).map(|i| quat(i).to_vec()).collect();
    round_trip("quat-wxyz", &["w", "x", "y", "z"], &rows, quat_diff);
}

#[test]
fn round_trip_quat_xyzw() {
    // Include negative-w representatives: the output may flip the sign (q ≡ −q).
    let rows: Vec<Vec<f64>> = (0..N_ROUND_TRIP)
        .map(|i| {
            let [w, x, y, z] = quat(i);
            let sign = if i % 3 == 0 { -1.0 } else { 1.0 };
            vec![sign * x, sign * y, sign * z, sign * w]
        })
        .collect();
    round_trip("quat-xyzw", &["x", "y", "z", "w"], &rows, quat_diff);
}

#[test]
fn round_trip_matrix() {
    let rows: Vec<Vec<f64>> = (0..N_ROUND_TRIP).map(|i| matrix(quat(i)).to_vec()).collect();
    let names = ["r11", "r12", "r13", "r21", "r22", "r23", "r31", "r32", "r33"];
    round_trip("matrix", &names, &rows, max_abs_diff);
}

#[test]
fn round_trip_rotvec() {
    let rows: Vec<Vec<f64>> = (0..N_ROUND_TRIP).map(|i| rotvec(quat(i)).to_vec()).collect();
    round_trip("rotvec", &["rx", "ry", "rz"], &rows, max_abs_diff);
}

/// Euler angles inside the canonical ranges (first and third in (−180°, 180°), second in (−90°, 90°)), away
/// from the boundaries and from gimbal lock, so that the output angles are the input's numerically.
fn euler_angles(i: usize, half_turn: f64) -> Vec<f64> {
    let t = i as f64 + 1.0;
    let (outer, middle) = (0.95 * half_turn, 0.3 * half_turn);
    vec![
        -outer + 2.0 * outer * frac(t * 0.618_033_988_749_894_9),
        -middle + 2.0 * middle * frac(t * 0.414_213_562_373_095),
        -outer + 2.0 * outer * frac(t * 0.732_050_807_568_877),
    ]
}

#[test]
fn round_trip_euler_intrinsic_zyx_degrees() {
    let rows: Vec<Vec<f64>> = (0..N_ROUND_TRIP).map(|i| euler_angles(i, 180.0)).collect();
    assert!(rows.iter().all(|r| r[1].abs() <= 54.0 && r[0].abs() < 171.0 && r[2].abs() < 171.0));
    // Compared in radians: 1e-4 rad.
    fn diff_deg(a: &[f64], b: &[f64]) -> f64 {
        max_abs_diff(a, b).to_radians()
    }
    round_trip("euler:ZYX", &["angle1", "angle2", "angle3"], &rows, diff_deg);
}

#[test]
fn round_trip_euler_extrinsic_xyz_radians() {
    let rows: Vec<Vec<f64>> = (0..N_ROUND_TRIP).map(|i| euler_angles(i, std::f64::consts::PI)).collect();
    round_trip("euler:xyz:rad", &["angle1", "angle2", "angle3"], &rows, max_abs_diff);
}

// ---------------------------------------------------------------------------------------------------------
// 2. Pass-through columns
// ---------------------------------------------------------------------------------------------------------

#[test]
fn other_columns_pass_through_unchanged_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let output = dir.path().join("out.csv");
    // (raw id, raw note) as they appear in the file, minimally quoted.
    let cells: Vec<(&str, &str)> = vec![
        ("007", "\"a, b\""),
        ("0x1F", "\"say \"\"hi\"\"\""),
        ("00000", ""),
        ("1e3", "é ü ✓ 中文"),
        ("-0", "NaN"),
        ("0.10", "=1+1"),
        ("", "inf"),
        ("42", "\"comma,quote\"\",end\""),
        ("9.999999999999999999", "trailing space "),
        (" 5", "\"line\nbreak\""),
        ("last", "x"),
    ];
    let mut text = String::from("id,w,x,y,z,note\n");
    for (i, (id, note)) in cells.iter().enumerate() {
        text += &format!("{id},{},{note}\n", join(&quat(i)));
    }
    fs::write(&input, &text).unwrap();
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "2", "--seed", "5"])
        .args(["--input", s(&input), "--output", s(&output)])
        .assert()
        .success();
    let out_text = fs::read_to_string(&output).unwrap();
    assert!(out_text.starts_with("id,w,x,y,z,note\n"), "header changed: {out_text}");
    let (in_header, in_rows) = read_csv(&text);
    let (out_header, out_rows) = read_csv(&out_text);
    assert_eq!(in_header, out_header);
    assert_eq!(in_rows.len(), out_rows.len());
    for (a, b) in in_rows.iter().zip(&out_rows) {
        assert_eq!(a[0].as_bytes(), b[0].as_bytes(), "id changed");
        assert_eq!(a[5].as_bytes(), b[5].as_bytes(), "note changed");
    }
    // Raw text too: each output record begins with the raw id and ends with the raw note.
    let mut rest = out_text.split_once('\n').unwrap().1;
    for (id, note) in &cells {
        assert!(rest.starts_with(&format!("{id},")), "raw id {id:?} not at the start of {rest:?}");
        let end = format!(",{note}\n");
        let pos = rest.find(&end).unwrap_or_else(|| panic!("raw note {note:?} not found in {rest:?}"));
        rest = &rest[pos + end.len()..];
    }
    assert!(rest.is_empty());
}

// ---------------------------------------------------------------------------------------------------------
// 3. --output-as
// ---------------------------------------------------------------------------------------------------------

#[test]
fn output_as_matrix_puts_r11_to_r33_where_the_first_rotation_column_was() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    let output = dir.path().join("out.csv");
    // The rotation columns are not contiguous: `flag` sits between x and y.
    let mut text = String::from("id,w,x,flag,y,z,note\n");
    for i in 0..20 {
        let [w, x, y, z] = quat(i);
        text += &format!("{i},{w},{x},f{i},{y},{z},n{i}\n");
    }
    fs::write(&input, &text).unwrap();
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "1e6", "--seed", "1", "--output-as", "matrix"])
        .args(["--input", s(&input), "--output", s(&output)])
        .assert()
        .success();
    let (header, rows) = read_csv_file(&output);
    let names = ["r11", "r12", "r13", "r21", "r22", "r23", "r31", "r32", "r33"];
    let mut want_header = vec!["id".to_string()];
    want_header.extend(names.iter().map(|n| n.to_string()));
    want_header.extend(["flag".to_string(), "note".to_string()]);
    assert_eq!(header, want_header);
    let got = csv_numbers(&header, &rows, &names);
    for (i, (row, m)) in rows.iter().zip(&got).enumerate() {
        assert_eq!(row[0], i.to_string());
        assert_eq!(row[10], format!("f{i}"));
        assert_eq!(row[11], format!("n{i}"));
        let d = max_abs_diff(&matrix(quat(i)), m);
        assert!(d < 1e-4, "row {}: matrix differs by {d}", i + 1);
    }
}

// ---------------------------------------------------------------------------------------------------------
// 4. Bad input: exit code 2, a precise message, nothing left behind
// ---------------------------------------------------------------------------------------------------------

/// A scratch area: inputs in `inputs`, outputs (output, rejects, report) in `outputs`.
struct Scratch {
    _root: tempfile::TempDir,
    inputs: PathBuf,
    outputs: PathBuf,
}

impl Scratch {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let inputs = root.path().join("in");
        let outputs = root.path().join("out");
        fs::create_dir(&inputs).unwrap();
        fs::create_dir(&outputs).unwrap();
        Scratch { _root: root, inputs, outputs }
    }

    fn input(&self, name: &str, contents: &str) -> PathBuf {
        let p = self.inputs.join(name);
        fs::write(&p, contents).unwrap();
        p
    }

    fn out(&self, name: &str) -> PathBuf {
        self.outputs.join(name)
    }

    /// Runs privatize on `input` (plus `extra` arguments), writing `out.csv` and `report.json` into the outputs
    /// directory; expects exit code 2, every string of `expect` in the message, and the outputs directory
    /// left exactly as it was.
    fn expect_bad(&self, input: &Path, extra: &[&str], expect: &[&str]) -> String {
        self.expect_bad_to(input, "out.csv", extra, expect)
    }

    fn expect_bad_to(&self, input: &Path, output: &str, extra: &[&str], expect: &[&str]) -> String {
        let before = listing(&self.outputs);
        let assert = privatize()
            .args(["--mechanism", "laplace", "--epsilon", "1", "--seed", "1"])
            .args(["--input", s(input), "--output", s(&self.out(output)), "--report", s(&self.out("report.json"))])
            .args(extra)
            .assert()
            .code(2);
        let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        for e in expect {
            assert!(stderr.contains(e), "stderr should contain {e:?}: {stderr}");
        }
        assert_eq!(listing(&self.outputs), before, "files left behind after: {stderr}");
        stderr
    }
}

const QUAT_HEADER: &str = "id,w,x,y,z,note\n";

/// A quat-wxyz CSV whose row 3 (line 4) has `w,x,y,z` = `bad`.
fn quat_csv_with_row3(bad: &str) -> String {
    format!("{QUAT_HEADER}1,1,0,0,0,a\n2,{},b\n3,{bad},c\n4,1,0,0,0,d\n", join(&quat(2)))
}

#[test]
fn bad_values_name_row_line_and_column() {
    let sc = Scratch::new();
    let cases: &[(&str, &str, &[&str])] = &[
        ("nan", "1,NaN,0,0", &["row 3", "line 4", "column \"x\"", "NaN"]),
        ("inf", "1,0,inf,0", &["row 3", "line 4", "column \"y\"", "inf"]),
        ("neg-inf", "-inf,0,0,1", &["row 3", "line 4", "column \"w\""]),
        ("empty", "1,0,0,", &["row 3", "line 4", "column \"z\"", "empty"]),
        ("text", "1,zero,0,0", &["row 3", "line 4", "column \"x\"", "\"zero\" is not a number"]),
        ("norm", "1.5,0,0,0", &["row 3", "line 4", "norm 1.5"]),
        ("zero-norm", "0,0,0,0", &["row 3", "line 4", "norm"]),
    ];
    for (name, bad, expect) in cases {
        let input = sc.input(&format!("{name}.csv"), &quat_csv_with_row3(bad));
        sc.expect_bad(&input, &[], expect);
        // A Parquet output leaves nothing behind either.
        sc.expect_bad_to(&input, "out.parquet", &[], expect);
    }
}

#[test]
fn bad_matrices_and_euler_angles_are_refused() {
    let sc = Scratch::new();
    let header = "id,r11,r12,r13,r21,r22,r23,r31,r32,r33\n";
    let good = join(&matrix(quat(0)));
    let identity = "1,0,0,0,1,0,0,0,1";
    let not_orthonormal = format!("{header}1,{identity}\n2,{good}\n3,1,0.5,0,0,1,0,0,0,1\n");
    let input = sc.input("skew.csv", &not_orthonormal);
    sc.expect_bad(&input, &["--format", "matrix"], &["row 3", "line 4", "orthonormal"]);
    let reflection = format!("{header}1,{identity}\n2,{good}\n3,-1,0,0,0,1,0,0,0,1\n");
    let input = sc.input("reflection.csv", &reflection);
    sc.expect_bad(&input, &["--format", "matrix"], &["row 3", "line 4", "determinant", "reflection"]);
    let scaled = format!("{header}1,{identity}\n2,{good}\n3,2,0,0,0,2,0,0,0,2\n");
    let input = sc.input("scaled.csv", &scaled);
    sc.expect_bad(&input, &["--format", "matrix"], &["row 3", "line 4"]);

    let euler = "id,yaw,pitch,roll\n1,10,20,30\n2,-5,0,5\n3,10,1e6,0\n";
    let input = sc.input("euler.csv", euler);
    sc.expect_bad(
        &input,
        &["--format", "euler:ZYX:deg", "--columns", "yaw,pitch,roll"],
        &["row 3", "line 4", "column \"pitch\"", "outside"],
    );
    // Rotation vectors: any finite vector is a rotation, but not NaN.
    let input = sc.input("rotvec.csv", "rx,ry,rz\n0,0,0\n0.1,0.2,0.3\nnan,0,0\n");
    sc.expect_bad(&input, &["--format", "rotvec"], &["row 3", "line 4", "column \"rx\""]);
}

#[test]
fn bad_values_in_parquet_name_the_row_and_column() {
    let sc = Scratch::new();
    let names = ["w", "x", "y", "z"];
    let mut values: Vec<Vec<f64>> = (0..5).map(|i| quat(i).to_vec()).collect();
    values[2][1] = f64::NAN;
    let ids: Vec<String> = (1..=5).map(|i| i.to_string()).collect();
    let input = sc.inputs.join("nan.parquet");
    write_parquet(&input, &ids, &names, &values, &ids);
    sc.expect_bad(&input, &[], &["row 3", "column \"x\""]);
    sc.expect_bad_to(&input, "out.parquet", &[], &["row 3", "column \"x\""]);
    let mut values: Vec<Vec<f64>> = (0..5).map(|i| quat(i).to_vec()).collect();
    values[3][0] = 1.5;
    let input = sc.inputs.join("norm.parquet");
    write_parquet(&input, &ids, &names, &values, &ids);
    sc.expect_bad(&input, &[], &["row 4", "norm"]);
}

#[test]
fn wrong_number_of_fields_names_row_and_line() {
    let sc = Scratch::new();
    let extra = format!("{QUAT_HEADER}1,1,0,0,0,a\n2,1,0,0,0,b\n3,1,0,0,0,c,EXTRA\n4,1,0,0,0,d\n");
    let input = sc.input("extra.csv", &extra);
    sc.expect_bad(&input, &[], &["row 3", "line 4", "7 fields", "header has 6"]);
    let short = format!("{QUAT_HEADER}1,1,0,0,0,a\n2,1,0,0,0\n");
    let input = sc.input("short.csv", &short);
    sc.expect_bad(&input, &[], &["row 2", "line 3", "5 fields"]);
}

#[test]
fn missing_and_duplicate_columns_are_refused() {
    let sc = Scratch::new();
    let input = sc.input("ok.csv", &quat_csv_with_row3("1,0,0,0"));
    // --columns naming a column that does not exist.
    sc.expect_bad(&input, &["--columns", "w,x,y,q"], &["no column \"q\""]);
    // With --skip-invalid as well: no rejects file either.
    sc.expect_bad(&input, &["--columns", "w,x,y,q", "--skip-invalid", s(&sc.out("rejects.csv"))], &["\"q\""]);
    // Too few names for the format.
    sc.expect_bad(&input, &["--columns", "w,x,y"], &["4 columns"]);
    // Default names absent.
    let input = sc.input("abcd.csv", "id,a,b,c,d\n1,1,0,0,0\n");
    sc.expect_bad(&input, &[], &["no column \"w\"", "--columns"]);
    // Duplicate names in the header.
    let input = sc.input("dup.csv", "id,w,x,y,z,x\n1,1,0,0,0,1\n");
    sc.expect_bad(&input, &[], &["\"x\"", "more than once"]);
    let input = sc.input("dup-other.csv", "id,w,x,y,z,id\n1,1,0,0,0,1\n");
    sc.expect_bad(&input, &[], &["\"id\"", "more than once"]);
}

#[test]
fn empty_and_header_only_inputs_are_refused() {
    let sc = Scratch::new();
    let input = sc.input("zero.csv", "");
    sc.expect_bad(&input, &[], &["zero.csv", "empty"]);
    let input = sc.input("header.csv", QUAT_HEADER);
    sc.expect_bad(&input, &[], &["header.csv", "no data rows"]);
    let input = sc.input("header-no-newline.csv", "id,w,x,y,z,note");
    sc.expect_bad(&input, &[], &["no data rows"]);
    sc.expect_bad(&input, &["--skip-invalid", s(&sc.out("rejects.csv"))], &["no data rows"]);
}

#[test]
fn existing_output_is_kept_without_force_and_replaced_with_it() {
    let sc = Scratch::new();
    let input = sc.input("in.csv", &quat_csv_with_row3("1,0,0,0"));
    let out = sc.out("out.csv");
    fs::write(&out, "precious\n").unwrap();
    sc.expect_bad(&input, &[], &["out.csv", "already exists", "--force"]);
    assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
    // An existing report is protected as well, and then the output is not written either.
    fs::remove_file(&out).unwrap();
    fs::write(sc.out("report.json"), "{}").unwrap();
    sc.expect_bad(&input, &[], &["report.json", "already exists"]);
    assert_eq!(fs::read_to_string(sc.out("report.json")).unwrap(), "{}");
    fs::write(&out, "precious\n").unwrap();
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "1", "--seed", "1", "--force"])
        .args(["--input", s(&input), "--output", s(&out), "--report", s(&sc.out("report.json"))])
        .assert()
        .success();
    let (header, rows) = read_csv_file(&out);
    assert_eq!(header.join(","), "id,w,x,y,z,note");
    assert_eq!(rows.len(), 4);
    let report: Value = serde_json::from_str(&fs::read_to_string(sc.out("report.json")).unwrap()).unwrap();
    assert_eq!(report["rows"], 4);
    assert_eq!(listing(&sc.outputs), ["out.csv", "report.json"]);
}

#[test]
fn unreadable_input_is_refused() {
    let sc = Scratch::new();
    let missing = sc.inputs.join("does-not-exist.csv");
    sc.expect_bad(&missing, &[], &["does-not-exist.csv"]);
    let missing = sc.inputs.join("does-not-exist.parquet");
    sc.expect_bad(&missing, &[], &["does-not-exist.parquet"]);
    // A directory is not a readable file either.
    let as_dir = sc.inputs.join("dir.csv");
    fs::create_dir(&as_dir).unwrap();
    sc.expect_bad(&as_dir, &[], &["dir.csv"]);
}

#[test]
fn truncated_parquet_is_refused() {
    let sc = Scratch::new();
    let mut text = String::from(QUAT_HEADER);
    for i in 0..500 {
        text += &format!("{i},{},n{i}\n", join(&quat(i)));
    }
    let csv_in = sc.input("in.csv", &text);
    let parquet = sc.inputs.join("good.parquet");
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "1e6", "--seed", "1"])
        .args(["--input", s(&csv_in), "--output", s(&parquet)])
        .assert()
        .success();
    let bytes = fs::read(&parquet).unwrap();
    // The intact file is readable.
    assert_eq!(ParquetTable::read(&parquet).numbers(&["w"]).len(), 500);
    let truncated = sc.inputs.join("truncated.parquet");
    fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    sc.expect_bad(&truncated, &[], &["truncated.parquet", "Parquet"]);
    sc.expect_bad_to(&truncated, "out.parquet", &[], &["truncated.parquet"]);
    // A CSV file under a .parquet name.
    let fake = sc.input("fake.parquet", &text);
    sc.expect_bad(&fake, &[], &["fake.parquet"]);
}

#[test]
fn non_positive_budgets_are_refused() {
    let sc = Scratch::new();
    let input = sc.input("in.csv", &quat_csv_with_row3("1,0,0,0"));
    for eps in ["0", "-1", "-0", "nan", "inf"] {
        let before = listing(&sc.outputs);
        privatize()
            .args(["--mechanism", "laplace", "--epsilon", eps])
            .args(["--input", s(&input), "--output", s(&sc.out("out.csv"))])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("epsilon"));
        privatize()
            .args(["--mechanism", "bingham", "--epsilon", eps])
            .args(["--input", s(&input), "--output", s(&sc.out("out.csv"))])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("epsilon"));
        assert_eq!(listing(&sc.outputs), before);
    }
    for (radius, level) in [("10deg", "0"), ("10deg", "-1"), ("0deg", "1"), ("-5deg", "1"), ("10deg", "nan")] {
        privatize()
            .args(["--mechanism", "laplace", &format!("--protect={radius}"), "--level", level])
            .args(["--input", s(&input), "--output", s(&sc.out("out.csv"))])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--protect"));
    }
    // `--protect -5deg` (space-separated) is refused too, though clap reads -5deg as an unknown option.
    privatize()
        .args(["--mechanism", "laplace", "--protect", "-5deg", "--level", "1"])
        .args(["--input", s(&input), "--output", s(&sc.out("out.csv"))])
        .assert()
        .code(2);
    // No budget at all.
    privatize()
        .args(["--mechanism", "laplace", "--input", s(&input), "--output", s(&sc.out("out.csv"))])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--epsilon"));
    assert!(listing(&sc.outputs).is_empty());
}

// ---------------------------------------------------------------------------------------------------------
// 5. --skip-invalid
// ---------------------------------------------------------------------------------------------------------

#[test]
fn skip_invalid_sets_bad_rows_aside_unchanged() {
    let sc = Scratch::new();
    let mut lines = vec![QUAT_HEADER.trim_end().to_string()];
    for i in 1..=20 {
        lines.push(match i {
            5 => "5,NaN,0,0,0,\"bad, nan\"".to_string(),
            12 => "12,1,0,0,0,twelve,EXTRA".to_string(),
            _ => format!("{i},{},n{i}", join(&quat(i))),
        });
    }
    let text = lines.join("\n") + "\n";
    let input = sc.input("in.csv", &text);
    let (out, rejects, report) = (sc.out("out.csv"), sc.out("rejects.csv"), sc.out("report.json"));
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "3", "--seed", "2"])
        .args(["--input", s(&input), "--output", s(&out), "--skip-invalid", s(&rejects), "--report", s(&report)])
        .assert()
        .success()
        .stderr(predicate::str::contains("set aside 2 invalid rows"))
        .stderr(predicate::str::contains("row 5 (line 6), column \"w\""))
        .stderr(predicate::str::contains("row 12 (line 13)"));
    let (header, rows) = read_csv_file(&out);
    assert_eq!(header.join(","), "id,w,x,y,z,note");
    assert_eq!(rows.len(), 18);
    let ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    let want: Vec<String> = (1..=20).filter(|i| *i != 5 && *i != 12).map(|i| i.to_string()).collect();
    assert_eq!(ids, want);
    let expected_rejects = format!("{}\n{}\n{}\n", lines[0], lines[5], lines[12]);
    assert_eq!(fs::read_to_string(&rejects).unwrap(), expected_rejects);
    let r: Value = serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["rows"], 18, "{r}");
    assert_eq!(r["rejected_rows"], 2, "{r}");
    assert_eq!(listing(&sc.outputs), ["out.csv", "rejects.csv", "report.json"]);
}

#[test]
fn skip_invalid_with_parquet_input_writes_parquet_rejects() {
    let sc = Scratch::new();
    let names = ["w", "x", "y", "z"];
    let mut values: Vec<Vec<f64>> = (0..10).map(|i| quat(i).to_vec()).collect();
    values[3][2] = f64::INFINITY;
    values[7][0] = 2.0;
    let ids: Vec<String> = (1..=10).map(|i| format!("id{i}")).collect();
    let input = sc.inputs.join("in.parquet");
    write_parquet(&input, &ids, &names, &values, &ids);
    let (out, rejects) = (sc.out("out.parquet"), sc.out("rejects.parquet"));
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "3", "--seed", "2"])
        .args(["--input", s(&input), "--output", s(&out), "--skip-invalid", s(&rejects)])
        .assert()
        .success()
        .stderr(predicate::str::contains("set aside 2 invalid rows"));
    assert_eq!(ParquetTable::read(&out).text("id").len(), 8);
    let r = ParquetTable::read(&rejects);
    assert_eq!(r.text("id"), ["id4", "id8"]);
    let bad = r.numbers(&names);
    assert!(bad[0][2].is_infinite() && bad[1][0] == 2.0);
}

// ---------------------------------------------------------------------------------------------------------
// 6. CSV and Parquet agree
// ---------------------------------------------------------------------------------------------------------

#[test]
fn csv_and_parquet_inputs_give_the_same_release() {
    let sc = Scratch::new();
    let names = ["w", "x", "y", "z"];
    let n = 300;
    let values: Vec<Vec<f64>> = (0..n).map(|i| quat(i).to_vec()).collect();
    let ids: Vec<String> = (0..n).map(|i| format!("{i:04}")).collect();
    let notes: Vec<String> = (0..n).map(|i| format!("note, {i} \"q\"")).collect();
    let mut csv = wtr_csv(&["id", "w", "x", "y", "z", "note"]);
    for i in 0..n {
        let mut rec = vec![ids[i].clone()];
        rec.extend(values[i].iter().map(|v| v.to_string()));
        rec.push(notes[i].clone());
        csv.write_record(&rec).unwrap();
    }
    let csv_in = sc.input("in.csv", &String::from_utf8(csv.into_inner().unwrap()).unwrap());
    let pq_in = sc.inputs.join("in.parquet");
    write_parquet(&pq_in, &ids, &names, &values, &notes);

    let run = |input: &Path, output: &Path, eps: &str, seed: &str| {
        privatize()
            .args(["--mechanism", "laplace", "--epsilon", eps, "--seed", seed])
            .args(["--input", s(input), "--output", s(output)])
            .assert()
            .success();
    };
    let (csv_csv, pq_pq, pq_csv, csv_pq) =
        (sc.out("csv-csv.csv"), sc.out("pq-pq.parquet"), sc.out("pq-csv.csv"), sc.out("csv-pq.parquet"));
    run(&csv_in, &csv_csv, "3", "11");
    run(&pq_in, &pq_pq, "3", "11");
    run(&pq_in, &pq_csv, "3", "11");
    run(&csv_in, &csv_pq, "3", "11");

    let (h, rows) = read_csv_file(&csv_csv);
    let reference = csv_numbers(&h, &rows, &names);
    assert_eq!(reference.len(), n);
    // Noise was added (epsilon 3: typical angle ~1 rad).
    assert!(reference.iter().zip(&values).all(|(a, b)| quat_diff(a, b) > 1e-6));
    let (h2, rows2) = read_csv_file(&pq_csv);
    assert_eq!(h2, h);
    let releases = [
        ("parquet -> csv", csv_numbers(&h2, &rows2, &names)),
        ("parquet -> parquet", ParquetTable::read(&pq_pq).numbers(&names)),
        ("csv -> parquet", ParquetTable::read(&csv_pq).numbers(&names)),
    ];
    for (what, got) in &releases {
        assert_eq!(got.len(), n, "{what}");
        for (i, (a, b)) in reference.iter().zip(got).enumerate() {
            assert!(max_abs_diff(a, b) <= 1e-15, "{what}: row {} differs: {a:?} vs {b:?}", i + 1);
        }
    }
    // Pass-through columns survive every path.
    for (a, b) in rows.iter().zip(&rows2) {
        assert_eq!(a[0], b[0]);
        assert_eq!(a[5], b[5]);
    }
    for path in [&pq_pq, &csv_pq] {
        let t = ParquetTable::read(path);
        assert_eq!(t.schema, ["id", "w", "x", "y", "z", "note"]);
        assert_eq!(t.text("id"), ids);
        assert_eq!(t.text("note"), notes);
    }

    // CSV -> Parquet -> CSV in the noiseless limit reproduces the input.
    let mid = sc.out("mid.parquet");
    let back = sc.out("back.csv");
    run(&csv_in, &mid, "1e6", "1");
    run(&mid, &back, "1e6", "2");
    let (h3, rows3) = read_csv_file(&back);
    assert_eq!(h3, ["id", "w", "x", "y", "z", "note"]);
    for (i, (a, b)) in values.iter().zip(&csv_numbers(&h3, &rows3, &names)).enumerate() {
        assert!(quat_diff(a, b) < 1e-4, "row {}: {a:?} vs {b:?}", i + 1);
        assert_eq!(rows3[i][0], ids[i]);
        assert_eq!(rows3[i][5], notes[i]);
    }
}

fn wtr_csv(header: &[&str]) -> csv::Writer<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header).unwrap();
    w
}

// ---------------------------------------------------------------------------------------------------------
// 7. Determinism under --seed, whatever the number of threads
// ---------------------------------------------------------------------------------------------------------

#[test]
fn seeded_output_does_not_depend_on_threads() {
    let sc = Scratch::new();
    let n = 100_000; // more than one batch (65 536 rows) and many noise streams (4 096 rows each)
    let mut text = String::with_capacity(n * 90);
    text += QUAT_HEADER;
    for i in 0..n {
        let [w, x, y, z] = quat(i);
        text += &format!("{i},{w},{x},{y},{z},r{}\n", i % 7);
    }
    let input = sc.input("big.csv", &text);
    let run = |name: &str, seed: &str, threads: Option<&str>| -> Vec<u8> {
        let out = sc.out(name);
        let mut c = privatize();
        c.args(["--mechanism", "laplace", "--epsilon", "2", "--seed", seed]).args([
            "--input",
            s(&input),
            "--output",
            s(&out),
        ]);
        if let Some(t) = threads {
            c.args(["--threads", t]);
        }
        c.assert().success();
        fs::read(out).unwrap()
    };
    let one = run("t1.csv", "17", Some("1"));
    let two = run("t2.csv", "17", Some("2"));
    let all = run("tall.csv", "17", None);
    assert!(one == two, "--threads 1 and --threads 2 differ");
    assert!(one == all, "--threads 1 and the default differ");
    let (_, rows) = read_csv(std::str::from_utf8(&one).unwrap());
    assert_eq!(rows.len(), n);
    let other = run("other-seed.csv", "18", Some("2"));
    assert!(one != other, "different seeds gave the same output");
    // Different seeds differ row by row, not just somewhere.
    let (h, a) = read_csv(std::str::from_utf8(&one).unwrap());
    let (_, b) = read_csv(std::str::from_utf8(&other).unwrap());
    let a = csv_numbers(&h, &a, &["w", "x", "y", "z"]);
    let b = csv_numbers(&h, &b, &["w", "x", "y", "z"]);
    let same = a.iter().zip(&b).filter(|(p, q)| p == q).count();
    assert_eq!(same, 0, "{same} rows identical under different seeds");
}

// ---------------------------------------------------------------------------------------------------------
// 8. The report
// ---------------------------------------------------------------------------------------------------------

#[test]
fn report_states_the_release_and_never_the_seed() {
    let sc = Scratch::new();
    let mut text = String::from(QUAT_HEADER);
    for i in 0..30 {
        text += &format!("{i},{},n{i}\n", join(&quat(i)));
    }
    let input = sc.input("in.csv", &text);
    let seed = "987654321";
    let report = sc.out("r.json");
    let assert = privatize()
        .args(["--mechanism", "laplace", "--epsilon", "4", "--seed", seed])
        .args(["--input", s(&input), "--output", s(&sc.out("out.csv")), "--report", s(&report)])
        .assert()
        .success();
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains(seed), "the seed appears on stderr: {stderr}");
    let raw = fs::read_to_string(&report).unwrap();
    assert!(!raw.contains(seed), "the seed appears in the report: {raw}");
    let r: Value = serde_json::from_str(&raw).unwrap();
    for key in ["rows", "rejected_rows", "mechanism", "guarantee", "epsilon", "radius_rad", "radius_deg", "randomness"]
    {
        assert!(r.get(key).is_some(), "report lacks {key:?}: {r}");
    }
    assert_eq!(r["rows"], 30);
    assert_eq!(r["rejected_rows"], 0);
    assert_eq!(r["mechanism"], "laplace");
    assert_eq!(r["epsilon"], 4.0);
    assert_eq!(r["guarantee"]["epsilon"], 4.0);
    assert!(r["randomness"].as_str().unwrap().contains("seeded"), "{r}");
    let rho = r["radius_rad"].as_f64().unwrap();
    assert!(rho > 0.0 && rho < std::f64::consts::PI);
    assert!((r["radius_deg"].as_f64().unwrap() - rho.to_degrees()).abs() < 1e-9);
    // No seed: the operating system's randomness, and the report says so.
    let report2 = sc.out("r2.json");
    privatize()
        .args(["--mechanism", "bingham", "--epsilon", "4"])
        .args(["--input", s(&input), "--output", s(&sc.out("out2.csv")), "--report", s(&report2)])
        .assert()
        .success();
    let r2: Value = serde_json::from_str(&fs::read_to_string(&report2).unwrap()).unwrap();
    assert_eq!(r2["randomness"], "os");
    assert_eq!(r2["mechanism"], "bingham");
    assert_eq!(r2["concentration"], 8.0);
    // The Bingham proposal draws through Lemma N's negligible event: its base δ_B is in the guarantee (its δ
    // per pair d apart δ_B·(1 + e^{ε·d + ε₀})); the SO(3) Laplace draws through none: no key (float_safety.md §6).
    assert_eq!(r2["guarantee"]["delta_base"].as_f64(), Some(1e-300), "{r2}");
    assert!(r["guarantee"].get("delta_base").is_none() && r["guarantee"].get("delta").is_none(), "{r}");
}

// ---------------------------------------------------------------------------------------------------------
// 9. --protect
// ---------------------------------------------------------------------------------------------------------

#[test]
fn protect_10deg_at_level_1_is_epsilon_5_73() {
    let sc = Scratch::new();
    let input = sc.input("in.csv", &quat_csv_with_row3("1,0,0,0"));
    let report = sc.out("r.json");
    privatize()
        .args(["--mechanism", "laplace", "--protect", "10deg", "--level", "1", "--seed", "3"])
        .args(["--input", s(&input), "--output", s(&sc.out("out.csv")), "--report", s(&report)])
        .assert()
        .success();
    let r: Value = serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    let eps = r["epsilon"].as_f64().unwrap();
    assert!((eps - 5.729577951308232).abs() < 1e-12, "{r}");
    assert!((eps - 1.0 / 10f64.to_radians()).abs() < 1e-12);
    assert!((r["guarantee"]["epsilon"].as_f64().unwrap() - eps).abs() < 1e-12);
    // Level 2 at 10° is twice the budget.
    let report2 = sc.out("r2.json");
    privatize()
        .args(["--mechanism", "laplace", "--protect", "10deg", "--level", "2", "--seed", "3"])
        .args(["--input", s(&input), "--output", s(&sc.out("out2.csv")), "--report", s(&report2)])
        .assert()
        .success();
    let r2: Value = serde_json::from_str(&fs::read_to_string(&report2).unwrap()).unwrap();
    assert!((r2["epsilon"].as_f64().unwrap() - 2.0 * eps).abs() < 1e-12, "{r2}");
}

#[test]
fn typed_parquet_columns_pass_through_to_parquet_and_csv() {
    use arrow_array::{Int64Array, TimestampMicrosecondArray};
    use arrow_schema::TimeUnit;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("typed.parquet");
    let n = 300;
    let ts_type = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    let paris_type = DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into()));
    let mut fields = vec![
        Field::new("id", DataType::Int64, false),
        Field::new("timestamp", ts_type, false),
        Field::new("local", paris_type, false),
    ];
    // 2026-01-01T00:00:00Z at 100 Hz.
    let instants = || (0..n).map(|i| 1_767_225_600_000_000 + 10_000 * i);
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values((0..n).map(|i| 1_000_000_007 * i))),
        Arc::new(TimestampMicrosecondArray::from_iter_values(instants()).with_timezone("UTC")),
        Arc::new(TimestampMicrosecondArray::from_iter_values(instants()).with_timezone("Europe/Paris")),
    ];
    for (j, name) in ["w", "x", "y", "z"].iter().enumerate() {
        fields.push(Field::new(*name, DataType::Float64, false));
        columns.push(Arc::new(Float64Array::from_iter_values((0..n as usize).map(|i| quat(i)[j]))));
    }
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    let mut w = ArrowWriter::try_new(fs::File::create(&input).unwrap(), batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();

    let out_pq = dir.path().join("out.parquet");
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "2", "--input", s(&input), "--output", s(&out_pq)])
        .assert()
        .success();
    let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&out_pq).unwrap()).unwrap().build().unwrap();
    let back: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let back = arrow_select::concat::concat_batches(&back[0].schema(), &back).unwrap();
    assert_eq!(back.schema().field(0).data_type(), &DataType::Int64);
    assert_eq!(back.schema().field(1).data_type(), batch.schema().field(1).data_type());
    assert_eq!(back.column(0).as_ref(), batch.column(0).as_ref());
    assert_eq!(back.column(1).as_ref(), batch.column(1).as_ref());
    assert_eq!(back.schema().field(2).data_type(), batch.schema().field(2).data_type());
    assert_eq!(back.column(2).as_ref(), batch.column(2).as_ref());

    let out_csv = dir.path().join("out.csv");
    privatize()
        .args(["--mechanism", "laplace", "--epsilon", "2", "--input", s(&input), "--output", s(&out_csv)])
        .assert()
        .success();
    let (header, rows) = read_csv_file(&out_csv);
    assert_eq!(header, ["id", "timestamp", "local", "w", "x", "y", "z"]);
    assert_eq!(rows[1][0], "1000000007");
    assert_eq!(rows[0][1], "2026-01-01T00:00:00Z");
    assert_eq!(rows[1][1], "2026-01-01T00:00:00.010Z");
    // A named zone is written in local time with its offset, as Arrow writes it.
    assert_eq!(rows[0][2], "2026-01-01T01:00:00+01:00");
    assert_eq!(rows[1][2], "2026-01-01T01:00:00.010+01:00");

    // A zone that no database knows: refused with the column's name, and nothing is written.
    let mut fields = batch.schema().fields().iter().map(|f| f.as_ref().clone()).collect::<Vec<_>>();
    fields[2] = Field::new("local", DataType::Timestamp(TimeUnit::Microsecond, Some("Mars/Olympus".into())), false);
    let mut columns = batch.columns().to_vec();
    columns[2] = Arc::new(TimestampMicrosecondArray::from_iter_values(instants()).with_timezone("Mars/Olympus"));
    let bad = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
    let bad_input = dir.path().join("mars.parquet");
    let mut w = ArrowWriter::try_new(fs::File::create(&bad_input).unwrap(), bad.schema(), None).unwrap();
    w.write(&bad).unwrap();
    w.close().unwrap();
    let bad_out = dir.path().join("mars.csv");
    let out = privatize()
        .args(["--mechanism", "laplace", "--epsilon", "2", "--input", s(&bad_input), "--output", s(&bad_out)])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"local\"") && err.contains("Mars/Olympus"), "{err}");
    assert!(!bad_out.exists());
}

/// On the real line `--mechanism auto` picks the Laplace, the one mechanism there (it was refused), and any
/// other name is refused with exit 2 and nothing written (`vmf` was once accepted and the Laplace run instead).
#[test]
fn the_real_line_takes_auto_and_refuses_other_mechanisms() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.csv");
    fs::write(&input, "x\n1\n2\n3\n").unwrap();
    let run = |mechanism: &str, out: &Path| {
        let mut c = privatize();
        c.args(["--space", "real", "--bounds", "0,10", "--epsilon", "1", "--columns", "x", "--mechanism", mechanism])
            .args(["--seed", "1", "--quiet", "--input", s(&input), "--output", s(out)]);
        c.assert()
    };
    let (auto, laplace) = (dir.path().join("auto.csv"), dir.path().join("laplace.csv"));
    run("auto", &auto).success();
    run("laplace", &laplace).success();
    assert_eq!(fs::read(&auto).unwrap(), fs::read(&laplace).unwrap(), "auto is the Laplace");
    let vmf = dir.path().join("vmf.csv");
    run("vmf", &vmf).code(2).stderr(predicate::str::contains("space real has one mechanism here, laplace"));
    assert!(!vmf.exists());
}
