//! `manifold_dp._native`: the thin native module under the `manifold_dp` Python package. It parses names,
//! calls the Arrow core (`manifold-dp-arrow`), the library and the ledger, and hands back Arrow batches,
//! numpy arrays and JSON; conversions from pandas or scipy are done in Python, every computation in the
//! libraries. A float64 numpy array is read in place and released straight into a new array (no Arrow copies
//! on the way). The GIL is released while rows are decoded and noise is drawn.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use arrow_array::RecordBatch;
use arrow_pyarrow::PyArrowType;
use arrow_schema::Schema;
use manifold_dp::mechanism::Conditioning;
use manifold_dp::privacy::Guarantee;
use manifold_dp::registry::{MechanismChoice, PointMechanism, PointRequest, Shown, Space, Spelling};
use manifold_dp::sample::rng::{StreamKey, os_rng, seeded_rng_for_experiments};
use manifold_dp_arrow::NumberRows;
use manifold_dp_arrow::{Codec, MeanBounds, MeanCenter, MeanPass, MeanRequest, MeanStep, RowIds, SpdMetric};
use manifold_dp_ledger::{Account, Admission, Ledger as SqlLedger, LedgerError};
use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Arc;

create_exception!(_native, BudgetRefused, PyRuntimeError, "A release refused by the privacy ledger.");
create_exception!(
    _native,
    DrawUnrepresentable,
    PyValueError,
    "A noise draw that double precision cannot represent: it is a function of the draw, so it costs a release."
);

/// Input the release cannot use, as the package's `BadInputError` (a `ValueError`).
fn bad(e: impl std::fmt::Display) -> PyErr {
    bad_input(e.to_string(), None, None)
}

/// The package's `manifold_dp.errors.BadInputError`, raised here with the 0-based `row` and the `column` at
/// fault (a name, or an index for numpy arrays), so that every front end's bad input is one exception with the
/// same attributes. A plain `ValueError` if the package cannot be imported (the native module used alone).
fn bad_input(message: String, row: Option<u64>, column: Option<Column>) -> PyErr {
    Python::attach(|py| {
        let made = (|| -> PyResult<Bound<'_, PyAny>> {
            let class = py.import("manifold_dp.errors")?.getattr("BadInputError")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("row", row)?;
            match &column {
                Some(Column::Name(name)) => kwargs.set_item("column", name)?,
                Some(Column::Index(i)) => kwargs.set_item("column", i)?,
                None => kwargs.set_item("column", py.None())?,
            }
            class.call((message.as_str(),), Some(&kwargs))
        })();
        match made {
            Ok(instance) => PyErr::from_value(instance),
            Err(_) => PyValueError::new_err(message),
        }
    })
}

/// The column a bad value is in: its name in a table, its index in a numpy array.
enum Column {
    Name(String),
    Index(usize),
}

/// The first of the `rejected` rows (numbered from `offset` in the caller's input) as a `BadInputError`:
/// `row R, column C: reason (K invalid rows in all)`. With `column_index`, the columns `c0, c1, …` that an array's
/// values are released under are given as indices.
fn rejected_error(rejected: &[Rejected], offset: u64, column_index: bool) -> Option<PyErr> {
    let (row, column, reason) = rejected.first()?;
    let row = *row as u64 + offset;
    let column = column.as_ref().map(|c| match c.strip_prefix('c').and_then(|i| i.parse::<usize>().ok()) {
        Some(i) if column_index => Column::Index(i),
        _ => Column::Name(c.clone()),
    });
    let place = match &column {
        Some(Column::Name(name)) => format!(", column '{name}'"),
        Some(Column::Index(i)) => format!(", column {i}"),
        None => String::new(),
    };
    let more = if rejected.len() > 1 { format!(" ({} invalid rows in all)", rejected.len()) } else { String::new() };
    Some(bad_input(format!("row {row}{place}: {reason}{more}"), Some(row), column))
}

/// Raises the first of `rejected` (rows numbered from `offset`) as a `BadInputError` with `.row` and
/// `.column`; does nothing when there are none. With `column_index`, columns `c0, c1, …` are given as indices.
#[pyfunction]
#[pyo3(signature = (rejected, offset=0, column_index=false))]
fn raise_rejected(rejected: Vec<Rejected>, offset: u64, column_index: bool) -> PyResult<()> {
    rejected_error(&rejected, offset, column_index).map_or(Ok(()), Err)
}

fn ledger_error(e: LedgerError) -> PyErr {
    if e.is_refusal() {
        // What budget is missing, if that is the refusal (`local`, `central`, or `any` for an unbudgeted label):
        // the Python layer says which call adds it, as the CLI names its flag, without reading the message.
        let missing = match &e {
            LedgerError::NoBudgetForKind { kind, .. } => Some(kind.to_string()),
            LedgerError::NoBudget { .. } => Some("any".to_string()),
            _ => None,
        };
        let err = BudgetRefused::new_err(e.to_string());
        Python::attach(|py| err.value(py).setattr("missing", missing)).map(|()| err).unwrap_or_else(|e| e)
    } else if e.is_bad_input() {
        bad(e)
    } else {
        PyRuntimeError::new_err(e.to_string())
    }
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("guarantees and ledger reports serialise")
}

/// The release key: from `seed` (experiments only), from 32 `key` bytes (drawn by the caller from the OS), or
/// fresh from the operating system.
fn stream_key(seed: Option<u64>, key: Option<&[u8]>) -> PyResult<StreamKey> {
    match (seed, key) {
        (Some(s), None) => Ok(StreamKey::from_seed_for_experiments(s)),
        (None, Some(k)) => {
            let bytes: [u8; 32] = k.try_into().map_err(|_| bad("a release key has 32 bytes"))?;
            Ok(StreamKey::from_bytes(bytes))
        }
        (None, None) => StreamKey::from_os().map_err(|e| PyRuntimeError::new_err(e.to_string())),
        (Some(_), Some(_)) => Err(bad("give seed or key, not both")),
    }
}

/// A row that is not a point: (row in the batch, column or None, reason).
type Rejected = (usize, Option<String>, String);

/// How Python writes a request's options in the core's messages: `keyword=value`.
struct Keywords;

impl Spelling for Keywords {
    fn option(&self, name: &str, value: Shown<'_>) -> String {
        match value {
            Shown::Bare => format!("{name}="),
            Shown::Number(v) => format!("{name}={v}"),
            Shown::Text(v) => format!("{name}={v:?}"),
            Shown::Pair(a, b) => format!("{name}=({a}, {b})"),
            Shown::On => format!("{name}=True"),
        }
    }
}

/// (ε, protect, level, concentration, bounds) as the user gave them.
type GivenBudget = (Option<f64>, Option<String>, Option<f64>, Option<f64>, Option<(f64, f64)>);

/// A per-row mechanism built from the registry's names.
#[pyclass(frozen, module = "manifold_dp._native")]
struct Mechanism {
    inner: PointMechanism,
    space: Space,
    /// What `auto` chose and why, or why the named mechanism is 2× or more less accurate than another.
    note: Option<String>,
    /// The budget as given and the bounds: what the ledger records.
    given: GivenBudget,
}

#[pymethods]
impl Mechanism {
    #[new]
    #[pyo3(signature = (space, mechanism, epsilon=None, protect=None, level=None, concentration=None, snap=None, bounds=None, values=1, clamp_releases=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        space: &str,
        mechanism: &str,
        epsilon: Option<f64>,
        protect: Option<&str>,
        level: Option<f64>,
        concentration: Option<f64>,
        snap: Option<&str>,
        bounds: Option<(f64, f64)>,
        values: usize,
        clamp_releases: bool,
    ) -> PyResult<Self> {
        let space: Space = space.parse().map_err(bad)?;
        let request = PointRequest {
            epsilon,
            protect,
            level,
            concentration,
            bounds,
            values,
            clamp_releases,
            snap,
            ..PointRequest::new(space, mechanism.parse().map_err(bad)?)
        };
        let plan = request.plan(&Keywords).map_err(bad)?;
        let (inner, note) = (plan.mechanism, plan.note.map(|n| n.render(&Keywords)));
        let given = (epsilon, protect.map(str::to_string), level, concentration, bounds);
        Ok(Mechanism { inner, space, note, given })
    }

    /// The ledger's record of a release by this mechanism (the core's text, in the command line's syntax):
    /// `command` (`privatize`, `spark privatize`), the value `columns` if given, and where the rows came from.
    #[pyo3(signature = (command, columns, source))]
    fn ledger_label(&self, command: &str, columns: Option<Vec<String>>, source: &str) -> String {
        let (epsilon, protect, level, concentration, bounds) = self.given.clone();
        let request = PointRequest {
            epsilon,
            protect: protect.as_deref(),
            level,
            concentration,
            bounds,
            ..PointRequest::new(self.space, MechanismChoice::Auto)
        };
        request.ledger_label(command, self.inner.name(), columns.as_deref(), source)
    }

    /// The guarantee of each released row, as JSON (the command line's keys).
    fn guarantee_json(&self) -> String {
        json(&self.inner.guarantee())
    }

    /// `times` releases of one point composed by the mechanism's Rényi curve and stated as (ε, `delta`), as
    /// JSON (the keys of the command line's `budget compose --local-mechanism` `renyi` object).
    fn renyi_json(&self, times: u64, delta: f64) -> PyResult<String> {
        if times == 0 {
            return Err(bad("times must be at least 1"));
        }
        let total = self.inner.renyi_curve().map_err(bad)?.repeated(times);
        let report =
            manifold_dp::privacy::renyi::RenyiReport::new(self.inner.name(), times, &total, delta).map_err(bad)?;
        Ok(json(&report))
    }

    /// The space, as named in the registry.
    #[getter]
    fn space(&self) -> String {
        self.space.to_string()
    }

    /// The mechanism's name (what `auto` chose).
    #[getter]
    fn mechanism(&self) -> &'static str {
        self.inner.name()
    }

    /// What `auto` chose and why, or why the named mechanism is 2× or more less accurate than another.
    #[getter]
    fn note(&self) -> Option<String> {
        self.note.clone()
    }

    /// The unit people think in on the space, as the command line reports in: its name and how many radians
    /// one unit is (km on latlon, h on timeofday, deg elsewhere; "unit" on real).
    #[getter]
    fn unit(&self) -> (&'static str, f64) {
        let u = self.space.natural_unit();
        (u.name, u.radians)
    }

    /// Radius of indistinguishability at level `p`, in radians.
    fn radius(&self, p: f64) -> PyResult<f64> {
        self.inner.radius(p).map_err(bad)
    }

    /// The expected distance between a release and its input, in radians.
    fn mean_error(&self) -> f64 {
        self.inner.mean_angle()
    }

    /// The CDF of the distance (radians) between a release and its input, at each of `angles` (exact law).
    fn angle_cdf(&self, angles: Vec<f64>) -> Vec<f64> {
        let mut order: Vec<usize> = (0..angles.len()).collect();
        order.sort_by(|&a, &b| angles[a].total_cmp(&angles[b]));
        let sorted: Vec<f64> = order.iter().map(|&i| angles[i]).collect();
        let cdf = match &self.inner {
            PointMechanism::So3(m) => m.angle_cdf_sorted(&sorted),
            PointMechanism::Sphere(m) => m.angle_cdf_sorted(&sorted),
            PointMechanism::Real(m) => sorted.iter().map(|&r| m.error_cdf(r)).collect(),
        };
        let mut out = vec![0.0; angles.len()];
        for (k, &i) in order.iter().enumerate() {
            out[i] = cdf[k];
        }
        out
    }

    /// Privatizes every row of `batch`; returns the new batch and the rejected rows as
    /// `[(row, column or None, reason)]` (then the batch holds the valid rows only).
    #[pyo3(signature = (batch, format=None, columns=None, output_format=None, seed=None, key=None, first_row=0, id_column=None))]
    #[allow(clippy::too_many_arguments)]
    fn privatize_batch(
        &self,
        py: Python<'_>,
        batch: PyArrowType<RecordBatch>,
        format: Option<&str>,
        columns: Option<Vec<String>>,
        output_format: Option<&str>,
        seed: Option<u64>,
        key: Option<&[u8]>,
        first_row: u64,
        id_column: Option<&str>,
    ) -> PyResult<(PyArrowType<RecordBatch>, Vec<Rejected>)> {
        let batch = batch.0;
        let key = stream_key(seed, key)?;
        let codec =
            Codec::locate(&batch.schema(), self.space, format, columns.as_deref(), output_format).map_err(bad)?;
        let ids = match id_column {
            Some(c) => RowIds::Column(c),
            None => RowIds::First(first_row),
        };
        let released =
            py.detach(|| manifold_dp_arrow::privatize_batch(&self.inner, &codec, &batch, &key, ids)).map_err(bad)?;
        let rejected = released.rejected.into_iter().map(|(i, p)| (i, p.column, p.reason)).collect();
        Ok((PyArrowType(released.batch), rejected))
    }

    /// The value columns a table with `schema` is released in, as `privatize_batch` finds them: `columns` if
    /// given, else the format's own names (`w,x,y,z` for quat-wxyz, `lat,lon`, `angle`, `time`, `x1…xN`).
    #[pyo3(signature = (schema, format=None))]
    fn value_columns(&self, schema: PyArrowType<Schema>, format: Option<&str>) -> PyResult<Vec<String>> {
        let codec = Codec::locate(&Arc::new(schema.0), self.space, format, None, None).map_err(bad)?;
        Ok(codec.names().to_vec())
    }

    /// Privatizes every row of the float64 array `values` of shape (n, width) (row `i` keyed as row
    /// `first_row + i`, as `privatize_batch` keys the same numbers held in columns `c0, c1, …`, bit for bit);
    /// returns a new (n, output width) array and the rejected rows as `[(row, column or None, reason)]`
    /// (columns named `c0, c1, …`; then the array holds NaN in those rows and must not be released). A C- or
    /// Fortran-order array is read in place; any other layout is copied once.
    #[pyo3(signature = (values, format=None, seed=None, key=None, first_row=0))]
    fn privatize_array<'py>(
        &self,
        py: Python<'py>,
        values: PyReadonlyArray2<'py, f64>,
        format: Option<&str>,
        seed: Option<u64>,
        key: Option<&[u8]>,
        first_row: u64,
    ) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<Rejected>)> {
        let key = stream_key(seed, key)?;
        let (n, width) = (values.shape()[0], values.shape()[1]);
        let codec = manifold_dp_arrow::number_codec(self.space, format, width).map_err(bad)?;
        let copy;
        let rows = if values.is_c_contiguous() {
            NumberRows::row_major(values.as_slice().map_err(bad)?, width)
        } else if values.is_fortran_contiguous() {
            NumberRows::column_major(values.as_slice().map_err(bad)?, n)
        } else {
            // Strided (a slice of a larger array, a broadcast row): one copy in row order.
            copy = values.as_array().as_standard_layout().into_owned();
            NumberRows::row_major(copy.as_slice().expect("standard layout"), width)
        }
        .map_err(bad)?;
        self.release_numbers(py, &codec, &rows, &key, first_row)
    }

    /// `n` releases of one point (`center`: text in the space's terms such as `"13:00"` or `"48.85,2.35"`,
    /// values in the layout of `format`, or `None` for the space's default), as an (n, width) array in that
    /// layout. Release `i` is drawn from row stream `i` of the key, as the command line's `sample` and
    /// `privatize_array` draw row `i`: the same seed gives the same releases in every front end.
    #[pyo3(signature = (n, center=None, format=None, seed=None, key=None))]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        center: Option<CenterArg>,
        format: Option<String>,
        seed: Option<u64>,
        key: Option<&[u8]>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let key = stream_key(seed, key)?;
        let request = manifold_dp_arrow::SampleRequest {
            center: center.map(CenterArg::into_center),
            format,
            ..manifold_dp_arrow::SampleRequest::new(self.space)
        };
        let values = request.values(&Keywords).map_err(bad)?;
        let format = request.format.as_deref().or(match self.space {
            Space::Circle => Some("rad"),
            _ => None,
        });
        let codec = manifold_dp_arrow::number_codec(self.space, format, values.len()).map_err(bad)?;
        // Every row reads the one point (row stride 0): no copies of it.
        let rows = NumberRows::new(&values, n, values.len(), 0, 1).map_err(bad)?;
        let (out, rejected) = self.release_numbers(py, &codec, &rows, &key, 0)?;
        rejected_error(&rejected, 0, true).map_or(Ok(out), Err)
    }
}

impl Mechanism {
    /// Releases `rows` (row `i` keyed as row `first_row + i`) into a new (n, output width) array, written in
    /// place by the workers without the GIL: the only memory beyond the input. Returns it with the rejected rows.
    fn release_numbers<'py>(
        &self,
        py: Python<'py>,
        codec: &Codec,
        rows: &NumberRows<'_>,
        key: &StreamKey,
        first_row: u64,
    ) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<Rejected>)> {
        let width = manifold_dp_arrow::numbers::output_width(codec);
        let out = PyArray2::<f64>::zeros(py, [rows.rows(), width], false);
        let rejected = {
            let mut guard = out.readwrite();
            let slice = guard.as_slice_mut().map_err(bad)?;
            py.detach(|| manifold_dp_arrow::privatize_numbers(&self.inner, codec, rows, slice, key, first_row))
                .map_err(bad)?
        };
        Ok((out, rejected.into_iter().map(|(i, p)| (i, p.column, p.reason)).collect()))
    }
}

/// Hours since midnight of a clock time (`13:00`, `08:30:15`, or a timestamp's time), as the command line reads
/// a time-of-day centre (`manifold_dp_arrow::clock::parse`).
#[pyfunction]
fn clock_hours(text: &str) -> PyResult<f64> {
    manifold_dp_arrow::clock::parse(text).map(|c| c.hours).map_err(bad)
}

/// A distance in radians from text with a unit (`10deg`, `2km` on latlon, `1h` on timeofday).
#[pyfunction]
fn parse_distance(space: &str, text: &str) -> PyResult<f64> {
    let space: Space = space.parse().map_err(bad)?;
    space.parse_distance(text).map_err(bad)
}

/// The warnings a private mean's release deserves ([`manifold_dp::notes::mean_warnings`]), as the command line
/// prints them: half or more of the rows outside the ball, an expected error beyond the radius, a rounding cost
/// above 1 % of ε; distances in the space's unit.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn mean_warnings(
    space: &str,
    used: u64,
    dropped: u64,
    clipped: u64,
    expected_error: f64,
    radius: f64,
    rounding_cost: f64,
    epsilon: f64,
) -> PyResult<Vec<String>> {
    let space: Space = space.parse().map_err(bad)?;
    let facts =
        manifold_dp::notes::MeanFacts { space, used, dropped, clipped, expected_error, radius, rounding_cost, epsilon };
    Ok(manifold_dp::notes::mean_warnings(&facts))
}

/// Audits `mechanism` on `space` at the claimed `epsilon` with `samples` draws per input: returns the
/// auditor's report as JSON (verdict, epsilon_lower_bound, …). The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (space, mechanism, epsilon=None, samples=None, alpha=1e-6, seed=None, concentration=None, protect=None, level=None, delta=None, order=None))]
#[allow(clippy::too_many_arguments)]
fn audit(
    py: Python<'_>,
    space: &str,
    mechanism: &str,
    epsilon: Option<f64>,
    samples: Option<u64>,
    alpha: f64,
    seed: Option<u64>,
    concentration: Option<f64>,
    protect: Option<String>,
    level: Option<f64>,
    delta: Option<f64>,
    order: Option<u32>,
) -> PyResult<String> {
    use manifold_dp::audit::catalog::AuditRequest;
    // The core's request and rules, as the command line's: every space it audits, its defaults and ranges.
    let request = AuditRequest {
        concentration,
        protect,
        level,
        delta,
        order,
        samples,
        alpha,
        ..AuditRequest::named(space, mechanism.trim(), epsilon).map_err(bad)?
    };
    let (target, config) = request.plan(&Keywords).map_err(bad)?;
    let key = stream_key(seed, None)?;
    let report = py.detach(|| target.run(&config, &key, &|_| {})).map_err(bad)?;
    Ok(json(&report))
}

/// The experiment seed of a call: `None` without one; an integer in [0, 2⁶⁴) as it is. A bool is refused
/// (`seed=True` is not seed 1), as is a seed with a ledger (the rule of `manifold_dp::privacy::rules`: with a
/// known seed the noise can be removed, so it is never charged as a release). The caller warns with
/// `SEEDED_WARNING` on every seeded call.
#[pyfunction]
#[pyo3(signature = (seed, ledger=false))]
fn experiment_seed(seed: Option<&Bound<'_, PyAny>>, ledger: bool) -> PyResult<Option<u64>> {
    let Some(seed) = seed.filter(|s| !s.is_none()) else { return Ok(None) };
    if seed.is_instance_of::<pyo3::types::PyBool>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "seed={seed}: a seed is an integer, not a bool (True would be taken as seed 1); give seed=None to draw \
             the key from the operating system"
        )));
    }
    let Ok(index) = seed.call_method0("__index__") else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "seed={seed:?}: a seed is an integer, not {}",
            seed.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "this".into())
        )));
    };
    let value: u64 = index.extract().map_err(|_| bad(format!("seed={index}: a seed is an integer in [0, 2**64)")))?;
    manifold_dp::privacy::rules::check_seed_and_ledger(true, ledger).map_err(bad)?;
    Ok(Some(value))
}

/// A fresh 32-byte release key from the operating system's CSPRNG.
#[pyfunction]
fn fresh_key(py: Python<'_>) -> PyResult<Py<PyBytes>> {
    let key = StreamKey::from_os().map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &key.to_bytes()).unbind())
}

/// A row that is not usable for a mean, as Python receives it: (row, column or None, reason).
fn problem_tuple(problem: &Option<(usize, manifold_dp_arrow::Problem)>) -> Option<Rejected> {
    problem.as_ref().map(|(row, p)| (*row, p.column.clone(), p.reason.clone()))
}

/// A pass as Python holds it: (sum or None, used, dropped, clipped, problem or None, summation depth,
/// Hessian sum or None).
type PassTuple = (Option<Vec<f64>>, u64, u64, u64, Option<Rejected>, u32, Option<Vec<f64>>);

fn pass_tuple(p: MeanPass) -> PassTuple {
    let problem = problem_tuple(&p.problem);
    (p.sum, p.used, p.dropped, p.clipped, problem, p.depth, p.hessian)
}

fn pass_from(t: PassTuple) -> MeanPass {
    let (sum, used, dropped, clipped, problem, depth, hessian) = t;
    let problem = problem.map(|(row, column, reason)| (row, manifold_dp_arrow::Problem { column, reason }));
    MeanPass { sum, used, dropped, clipped, problem, outside_distance: None, depth, hessian }
}

fn conditioning(name: &str) -> PyResult<Conditioning> {
    match name {
        "auto" => Ok(Conditioning::Auto),
        "none" => Ok(Conditioning::Unconditioned),
        "ball" => Ok(Conditioning::Ball),
        other => Err(bad(format!("conditioning {other:?}: use auto, none or ball"))),
    }
}

/// The noise and budget of a Fréchet mean (the core's rule, [`manifold_dp_arrow::MeanNoise::from_arguments`]):
/// `mechanism` "laplace" (pure ε-DP, `epsilon`) or "gaussian" (μ-GDP, `mu`, or `epsilon` with `delta`). A
/// refusal names the keyword arguments (`mu=`).
#[pyclass(frozen, module = "manifold_dp._native")]
struct MeanNoise {
    inner: manifold_dp_arrow::MeanNoise,
}

#[pymethods]
impl MeanNoise {
    #[new]
    #[pyo3(signature = (mechanism=None, epsilon=None, delta=None, mu=None, conditioning="auto"))]
    fn new(
        mechanism: Option<&str>,
        epsilon: Option<f64>,
        delta: Option<f64>,
        mu: Option<f64>,
        conditioning: &str,
    ) -> PyResult<Self> {
        let conditioning = self::conditioning(conditioning)?;
        manifold_dp_arrow::MeanNoise::from_arguments(mechanism, epsilon, delta, mu, conditioning, |a| format!("{a}="))
            .map(|inner| MeanNoise { inner })
            .map_err(bad)
    }

    /// "laplace" or "gaussian".
    #[getter]
    fn mechanism(&self) -> &'static str {
        match self.inner {
            manifold_dp_arrow::MeanNoise::Laplace { .. } => "laplace",
            manifold_dp_arrow::MeanNoise::Gaussian { .. } => "gaussian",
        }
    }

    /// The Laplace's ε (None for the Gaussian).
    #[getter]
    fn epsilon(&self) -> Option<f64> {
        match self.inner {
            manifold_dp_arrow::MeanNoise::Laplace { epsilon, .. } => Some(epsilon),
            manifold_dp_arrow::MeanNoise::Gaussian { .. } => None,
        }
    }

    /// The Gaussian's μ (None for the Laplace).
    #[getter]
    fn mu(&self) -> Option<f64> {
        match self.inner {
            manifold_dp_arrow::MeanNoise::Gaussian { mu } => Some(mu),
            manifold_dp_arrow::MeanNoise::Laplace { .. } => None,
        }
    }
}

/// A released mean as JSON: `mean`, `guarantee` (stated with what it does not protect under outside="drop"),
/// `sensitivity`, `sigma`, `expected_error`, `conditioned`, `n`, `grid`, `rounding_cost`, `noise_epsilon` (None
/// for the Gaussian) and `mu` (None for the Laplace).
fn release_json(out: &manifold_dp_arrow::MeanRelease) -> String {
    serde_json::json!({
        "mean": out.mean,
        "guarantee": match &out.stated {
            Some(stated) => serde_json::json!(stated),
            None => serde_json::json!(out.guarantee),
        },
        "sensitivity": out.sensitivity,
        "sigma": out.sigma,
        "expected_error": out.expected_error,
        "conditioned": out.conditioned,
        "n": out.n,
        "grid": out.grid,
        "rounding_cost": out.rounding_cost,
        "noise_epsilon": out.mu.is_none().then_some(out.noise_epsilon),
        "mu": out.mu,
        "mechanism": if out.mu.is_some() { "gaussian" } else { "laplace" },
    })
    .to_string()
}

/// The unit results on `space` are given in, as the command line reports them, and how many radians one unit
/// is: km on latlon, h on timeofday, deg on so3, the circle and spheres, "unit" on real (the values' own), and
/// "" with 1 on spd:K (its distances are numbers, not angles).
#[pyfunction]
fn natural_unit(space: &str) -> PyResult<(&'static str, f64)> {
    let space: Space = space.parse().map_err(bad)?;
    if let Space::Spd(_) = space {
        return Ok(("", 1.0));
    }
    let u = space.natural_unit();
    Ok((u.name, u.radians))
}

/// The ε per radian that keeps a share `level` of `mechanism`'s releases on `space` within `radius` (a distance
/// with its unit), solved exactly from the angle law (the core's radius request, as `manifold-dp radius
/// --radius`); with the mechanism's name.
#[pyfunction]
fn epsilon_for_radius(space: &str, mechanism: &str, radius: &str, level: f64) -> PyResult<(f64, String)> {
    let request = manifold_dp::registry::RadiusRequest {
        space: space.parse().map_err(bad)?,
        mechanism: mechanism.parse().map_err(bad)?,
        epsilon: None,
        concentration: None,
        radius: Some(radius),
        level,
    };
    let plan = request.plan(&Keywords).map_err(bad)?;
    let epsilon = plan.mechanism.guarantee().epsilon().ok_or_else(|| bad("the mechanism has no ε"))?;
    Ok((epsilon, plan.mechanism.name().to_string()))
}

/// A mean's centre as Python gives it: text (`"identity"`, `"13:00"`, `"48.85,2.35"`) or the point's values.
#[derive(FromPyObject)]
enum CenterArg {
    Text(String),
    Values(Vec<f64>),
}

impl CenterArg {
    fn into_center(self) -> MeanCenter {
        match self {
            CenterArg::Text(t) => MeanCenter::Text(t),
            CenterArg::Values(v) => MeanCenter::Values(v),
        }
    }
}

/// The core's request of a mean from the native arguments (bounds: one pair for every column, or one per
/// column in the order of `columns`).
#[allow(clippy::too_many_arguments)]
fn mean_request(
    space: &str,
    center: Option<CenterArg>,
    radius: Option<String>,
    outside: &str,
    format: Option<String>,
    columns: Option<Vec<String>>,
    metric: &str,
    bounds: Option<Vec<(f64, f64)>>,
) -> PyResult<MeanRequest> {
    let space: Space = space.parse().map_err(bad)?;
    Ok(MeanRequest {
        center: center.map(CenterArg::into_center),
        radius,
        bounds: bounds.map(|b| match b[..] {
            [(lo, hi)] => MeanBounds::Shared(lo, hi),
            _ => MeanBounds::PerColumn { bounds: b, names: None },
        }),
        format,
        metric: Some(metric.parse::<SpdMetric>().map_err(bad)?),
        columns,
        outside: outside.parse().map_err(bad)?,
        ..MeanRequest::new(space)
    })
}

/// The extrinsic mean's request checked (no ball, pure ε, a space it is defined on: the core's rules, as the
/// command line's `--estimator extrinsic`), and the ledger's record of it.
#[pyfunction]
#[pyo3(signature = (space, center, radius, outside, format, columns, metric, bounds, noise, source))]
#[allow(clippy::too_many_arguments)]
fn extrinsic_request(
    space: &str,
    center: Option<CenterArg>,
    radius: Option<String>,
    outside: &str,
    format: Option<String>,
    columns: Option<Vec<String>>,
    metric: &str,
    bounds: Option<Vec<(f64, f64)>>,
    noise: PyRef<'_, MeanNoise>,
    source: &str,
) -> PyResult<String> {
    let mut request = mean_request(space, center, radius, outside, format, columns, metric, bounds)?;
    request.estimator = manifold_dp_arrow::Estimator::Extrinsic;
    request.extrinsic_plan(&noise.inner, &Keywords).map_err(bad)?;
    Ok(request.ledger_label("mean", &noise.inner, source))
}

/// A real mean's bounds: the pairs, and the columns they name when they name them.
type NamedBounds = (Vec<(f64, f64)>, Option<Vec<String>>);

/// The ledger's record of a mean (the core's words, the command line's syntax): `command` (`mean`, `spark
/// mean`), the request as `MeanPlan` takes it, the budget (`epsilon` for the Laplace, `mu` for the Gaussian) and
/// where the rows came from.
#[pyfunction]
#[pyo3(signature = (command, space, center, radius, outside, columns, bounds, epsilon, mu, source))]
#[allow(clippy::too_many_arguments)]
fn mean_ledger_label(
    command: &str,
    space: &str,
    center: Option<CenterArg>,
    radius: Option<String>,
    outside: &str,
    columns: Option<Vec<String>>,
    bounds: Option<NamedBounds>,
    epsilon: Option<f64>,
    mu: Option<f64>,
    source: &str,
) -> PyResult<String> {
    let (pairs, names) = bounds.map_or((None, None), |(p, n)| (Some(p), n));
    let mut request = mean_request(space, center, radius, outside, None, columns, "affine", pairs)?;
    if let (Some(MeanBounds::PerColumn { names: slot, .. }), Some(n)) = (&mut request.bounds, names) {
        *slot = Some(n);
    }
    let noise = match (mu, epsilon) {
        (Some(mu), _) => manifold_dp_arrow::MeanNoise::Gaussian { mu },
        (None, e) => manifold_dp_arrow::MeanNoise::Laplace {
            epsilon: e.unwrap_or(0.0),
            conditioning: manifold_dp::mechanism::Conditioning::Auto,
        },
    };
    Ok(request.ledger_label(command, &noise, source))
}

/// A private Fréchet mean over Arrow batches, in passes (one Karcher step per pass) that Spark executors can
/// share: `start`, then `run_pass` on each part of the data, `merge`, `step` until converged, and `release`.
#[pyclass(frozen, module = "manifold_dp._native")]
struct MeanPlan {
    inner: manifold_dp_arrow::MeanPlan,
}

#[pymethods]
impl MeanPlan {
    #[new]
    #[pyo3(signature = (space, center, radius, outside="error", format=None, columns=None, metric="affine", bounds=None, noise=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        space: &str,
        center: Option<CenterArg>,
        radius: Option<String>,
        outside: &str,
        format: Option<String>,
        columns: Option<Vec<String>>,
        metric: &str,
        bounds: Option<Vec<(f64, f64)>>,
        noise: Option<PyRef<'_, MeanNoise>>,
    ) -> PyResult<Self> {
        let request = mean_request(space, center, radius, outside, format, columns, metric, bounds)?;
        // The options' rules, the centre and radius in the space's units: the core's request, as the CLI's.
        let inner = request.plan(noise.as_ref().map(|n| &n.inner), &Keywords).map_err(bad)?;
        Ok(MeanPlan { inner })
    }

    /// The public radius, in the space's distance unit (radians on spheres, SO(3), circle, time of day).
    #[getter]
    fn radius(&self) -> f64 {
        self.inner.radius()
    }

    /// The first base point: the centre's coordinates.
    fn start(&self) -> Vec<f64> {
        self.inner.start()
    }

    /// One pass over `batch` at `base`: (sum, used, dropped, clipped, problem, depth, hessian); with
    /// `hessian=True` the Hessian sum too (spheres and SO(3)), so that `step` takes Newton steps.
    #[pyo3(signature = (batch, base, hessian=false))]
    fn run_pass(
        &self,
        py: Python<'_>,
        batch: PyArrowType<RecordBatch>,
        base: Vec<f64>,
        hessian: bool,
    ) -> PyResult<PassTuple> {
        let batch = batch.0;
        py.detach(|| if hessian { self.inner.newton_pass(&batch, &base) } else { self.inner.pass(&batch, &base) })
            .map(pass_tuple)
            .map_err(bad)
    }

    /// The guarantee a release at `epsilon` states, as JSON (what a ledger is charged): with
    /// outside="drop" only for data sets with the same rows outside the ball.
    fn guarantee(&self, epsilon: f64) -> PyResult<String> {
        serde_json::to_string(&self.inner.guarantee(epsilon)).map_err(bad)
    }

    /// A start for the passes from the exact means of parts of the data: [(mean coordinates, rows used)] →
    /// their extrinsic mean weighted by rows where it lies in the ball, else the centre.
    fn start_from(&self, parts: Vec<(Vec<f64>, u64)>) -> Vec<f64> {
        self.inner.start_from(&parts)
    }

    /// The passes of consecutive parts of the data, added pairwise in the order given (the Karcher stop test
    /// bounds the sum's error by its depth, which pairwise merging keeps near log₂ of the number of parts).
    #[staticmethod]
    fn merge(passes: Vec<PassTuple>) -> PassTuple {
        pass_tuple(MeanPass::merge_all(passes.into_iter().map(pass_from).collect()))
    }

    /// The Karcher step at `base` after `iterations` steps: (converged, next base or None).
    fn step(&self, base: Vec<f64>, summed: PassTuple, iterations: usize) -> PyResult<(bool, Option<Vec<f64>>)> {
        match self.inner.step(&base, &pass_from(summed), iterations).map_err(bad)? {
            MeanStep::Converged { .. } => Ok((true, None)),
            MeanStep::Next(next) => Ok((false, Some(next))),
        }
    }

    /// Draws the noise once at the converged `mean` of `n` rows: JSON with `mean`, `guarantee`,
    /// `sensitivity`, `sigma`, `expected_error`, `conditioned`, `n`, `grid` (or null) and `rounding_cost`.
    #[pyo3(signature = (mean, n, epsilon, conditioning="auto", seed=None))]
    fn release(
        &self,
        py: Python<'_>,
        mean: Vec<f64>,
        n: u64,
        epsilon: f64,
        conditioning: &str,
        seed: Option<u64>,
    ) -> PyResult<String> {
        let conditioning = self::conditioning(conditioning)?;
        let mut rng = match seed {
            Some(s) => seeded_rng_for_experiments(s),
            None => os_rng().map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        };
        let out = py.detach(|| self.inner.release(&mean, n, epsilon, conditioning, &mut rng)).map_err(|e| match e {
            manifold_dp_arrow::Error::Library(e @ manifold_dp::Error::Unrepresentable(_)) => {
                DrawUnrepresentable::new_err(e.to_string())
            }
            e => bad(e),
        })?;
        Ok(release_json(&out))
    }

    /// The guarantee a release with `noise` states, as JSON (what a ledger is charged).
    fn guarantee_for(&self, noise: &MeanNoise) -> PyResult<String> {
        serde_json::to_string(&self.inner.guarantee_for(&noise.inner)).map_err(bad)
    }

    /// `check` for either noise: refuses, before the Karcher iteration, a release over `n` rows that its
    /// parameters alone rule out (for the Gaussian: a space without its sampler, or no σ certified for μ).
    fn check_noise(&self, n: u64, noise: &MeanNoise) -> PyResult<()> {
        self.inner.check_noise(n, &noise.inner).map_err(bad)
    }

    /// The refusals that depend only on the row count `n`, the radius (as the user gave it) and the budget,
    /// before the Karcher iteration, worded by the core for every front end; returns the plan's warnings in the
    /// same terms (a rounding cost above 1 % of ε), for `warnings.warn` before the iteration.
    fn check_rows(&self, n: u64, noise: &MeanNoise, radius: &str) -> PyResult<Vec<String>> {
        self.inner.check_rows(n, &noise.inner, radius, &Keywords).map_err(bad)
    }

    /// n′, the rows of `batches` in the ball (on `real`, within the bounds): the rows a mean with
    /// outside="drop" is over, counted before the Karcher iteration by the fit's own placement, for
    /// `check_rows`. A row that is not a point is not counted (the fit refuses it).
    fn count_inside(&self, py: Python<'_>, batches: Vec<PyArrowType<RecordBatch>>) -> PyResult<u64> {
        let batches: Vec<RecordBatch> = batches.into_iter().map(|b| b.0).collect();
        py.detach(|| self.inner.count_inside(&batches)).map_err(bad)
    }

    /// `release` for either noise: draws once at the converged `mean` of `n` rows; JSON as `release`'s, with
    /// `mu` and `mechanism`.
    #[pyo3(signature = (mean, n, noise, seed=None))]
    fn release_with(
        &self,
        py: Python<'_>,
        mean: Vec<f64>,
        n: u64,
        noise: &MeanNoise,
        seed: Option<u64>,
    ) -> PyResult<String> {
        let mut rng = match seed {
            Some(s) => seeded_rng_for_experiments(s),
            None => os_rng().map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
        };
        let noise = noise.inner;
        let out = py.detach(|| self.inner.release_with(&mean, n, &noise, &mut rng)).map_err(|e| match e {
            manifold_dp_arrow::Error::Library(e @ manifold_dp::Error::Unrepresentable(_)) => {
                DrawUnrepresentable::new_err(e.to_string())
            }
            e => bad(e),
        })?;
        Ok(release_json(&out))
    }

    /// Refuses, before any data is read, a release over `n` rows at `epsilon` that its parameters alone rule
    /// out (a rounding that would cost more than a tenth of epsilon): called before the Karcher iteration.
    #[pyo3(signature = (n, epsilon, conditioning="auto"))]
    fn check(&self, n: u64, epsilon: f64, conditioning: &str) -> PyResult<()> {
        self.inner.check(n, epsilon, self::conditioning(conditioning)?).map_err(bad)
    }

    /// The exact mean of the rows of `batches` on this machine: (mean coordinates, pass at the mean); with
    /// `rough=True` a start for `start_from` instead (the extrinsic mean and one Newton step, no stop test).
    #[pyo3(signature = (batches, rough=false))]
    fn fit(
        &self,
        py: Python<'_>,
        batches: Vec<PyArrowType<RecordBatch>>,
        rough: bool,
    ) -> PyResult<(Vec<f64>, PassTuple)> {
        let batches: Vec<RecordBatch> = batches.into_iter().map(|b| b.0).collect();
        let fit =
            py.detach(|| if rough { self.inner.rough_fit(&batches) } else { self.inner.fit(&batches) }).map_err(bad)?;
        Ok((fit.mean, pass_tuple(fit.pass)))
    }
}

/// The private extrinsic mean of the rows of `batch` (`manifold_dp_arrow::ExtrinsicPlan`): rows anywhere on so3,
/// sphere:N, latlon, circle or timeofday, no centre or radius. Returns (JSON of the release, None), or (None, the
/// first row that is not a point); the noise is drawn once, after the sum, with the GIL released.
#[pyfunction]
#[pyo3(signature = (batch, space, epsilon, format=None, columns=None, seed=None))]
fn extrinsic_mean(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
    space: &str,
    epsilon: f64,
    format: Option<&str>,
    columns: Option<Vec<String>>,
    seed: Option<u64>,
) -> PyResult<(Option<String>, Option<Rejected>)> {
    let space: Space = space.parse().map_err(bad)?;
    let plan = manifold_dp_arrow::ExtrinsicPlan::new(space, format, columns.as_deref()).map_err(bad)?;
    let batch = batch.0;
    let fit = py.detach(|| plan.fit(std::slice::from_ref(&batch))).map_err(bad)?;
    if fit.problem.is_some() {
        return Ok((None, problem_tuple(&fit.problem)));
    }
    let mut rng = match seed {
        Some(s) => seeded_rng_for_experiments(s),
        None => os_rng().map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
    };
    let out = py.detach(|| plan.release(fit.sum.as_ref(), epsilon, &mut rng)).map_err(bad)?;
    Ok((
        Some(
            serde_json::json!({
                "mean": out.mean,
                "guarantee": out.stated,
                "sensitivity": out.sensitivity,
                "sigma": out.sigma,
                "expected_error": out.expected_error,
                "n": out.n,
                "grid": out.grid,
                "rounding_cost": out.rounding_cost,
                "noise_epsilon": out.noise_epsilon,
                "embedded": out.embedded,
                "error_bound": out.error_bound,
                "confidence": out.confidence,
                "noise_radius": out.noise_radius,
                "degeneracy_distance": out.degeneracy_distance,
                "degeneracy_probability": out.degeneracy_probability,
                "warnings": out.warnings,
            })
            .to_string(),
        ),
        None,
    ))
}

/// Guarantees from JSON: one object, or a list of them (every guarantee a mechanism reports).
fn guarantees_from_json(text: &str) -> PyResult<Vec<Guarantee>> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(bad)?;
    let list = match value {
        serde_json::Value::Array(items) => items,
        one => vec![one],
    };
    list.into_iter().map(|v| <Guarantee as serde::Deserialize>::deserialize(v).map_err(bad)).collect()
}

/// A privacy ledger (an SQLite file): budgets per data set, and every release recorded against them. The
/// path is made absolute once, when it is opened, and every later call refuses the file there if it is no
/// longer the one opened (moved, replaced or deleted: compared by device and inode).
#[pyclass(module = "manifold_dp._native")]
struct Ledger {
    path: std::path::PathBuf,
    id: manifold_dp_ledger::FileId,
}

impl Ledger {
    fn open(&self) -> PyResult<SqlLedger> {
        SqlLedger::open_same(&self.path, &self.id).map_err(ledger_error)
    }
}

#[pymethods]
impl Ledger {
    /// Opens the ledger at `path` (made absolute now, against the current directory), creating it when
    /// `create` is true and it does not exist.
    #[new]
    #[pyo3(signature = (path, create=true))]
    fn new(path: String, create: bool) -> PyResult<Self> {
        let path = std::path::absolute(&path).map_err(|e| bad(format!("{path}: {e}")))?;
        let ledger = if create && !path.exists() {
            SqlLedger::create(&path).map_err(ledger_error)?
        } else {
            SqlLedger::open(&path).map_err(ledger_error)?
        };
        Ok(Ledger { id: ledger.file_id().clone(), path })
    }

    /// The ledger's absolute path.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Sets the budgets of `dataset` (guarantees as JSON objects; a metric-DP budget's `additive_epsilon` is
    /// its additive allowance, the default where absent), the overall pure cap `overall` and the local
    /// releases' (ε, δ) budget composed in Rényi DP `local_approx` when given; returns what it has spent, as
    /// JSON.
    #[pyo3(signature = (dataset, budgets_json, overall=None, local_approx=None))]
    fn set_budgets(
        &self,
        dataset: &str,
        budgets_json: Vec<String>,
        overall: Option<f64>,
        local_approx: Option<(f64, f64)>,
    ) -> PyResult<String> {
        let mut budgets: Vec<(Account, Guarantee)> = Vec::new();
        for text in &budgets_json {
            let g: Guarantee = serde_json::from_str(text).map_err(bad)?;
            budgets.push((Account::of(&g), g));
        }
        if let Some(epsilon) = overall {
            budgets.push((Account::Overall, Guarantee::pure(epsilon)));
        }
        if let Some((epsilon, delta)) = local_approx {
            budgets.push((Account::LocalRdp, Guarantee::ApproxDp { epsilon, delta }));
        }
        Ok(json(&self.open()?.set_budgets_in(dataset, &budgets).map_err(ledger_error)?))
    }

    /// What `dataset` has spent, as JSON.
    fn spent(&self, dataset: &str) -> PyResult<String> {
        Ok(json(&self.open()?.spent(dataset).map_err(ledger_error)?))
    }

    /// The releases recorded (of `dataset`, or all), as JSON.
    #[pyo3(signature = (dataset=None))]
    fn releases(&self, dataset: Option<&str>) -> PyResult<String> {
        Ok(json(&self.open()?.releases(dataset).map_err(ledger_error)?))
    }

    /// The dry run ("may it release this?"): the spending the release would leave, as JSON, or the refusal
    /// (`BudgetRefused`) that recording it would give. Writes nothing.
    #[pyo3(signature = (dataset, guarantees_json, request_id=None, allow_unbudgeted=false))]
    fn check(
        &self,
        dataset: &str,
        guarantees_json: &str,
        request_id: Option<&str>,
        allow_unbudgeted: bool,
    ) -> PyResult<String> {
        let gs = guarantees_from_json(guarantees_json)?;
        let admission = Admission { allow_unbudgeted };
        Ok(json(&self.open()?.check_new(dataset, &gs, request_id, admission).map_err(ledger_error)?))
    }

    /// The ledger crate's charge protocol, step one: checks the release (`BudgetRefused` before any work) and
    /// returns the [`Charge`] that records it, once, just before its result is handed back.
    #[pyo3(signature = (dataset, mechanism, guarantees_json, request_id=None, allow_unbudgeted=false))]
    fn prepare(
        &self,
        dataset: &str,
        mechanism: &str,
        guarantees_json: &str,
        request_id: Option<&str>,
        allow_unbudgeted: bool,
    ) -> PyResult<Charge> {
        let gs = guarantees_from_json(guarantees_json)?;
        let admission = Admission { allow_unbudgeted };
        let inner = manifold_dp_ledger::Charge::prepare(self.open()?, dataset, mechanism, &gs, request_id, admission)
            .map_err(ledger_error)?;
        Ok(Charge { inner })
    }
}

/// A checked release waiting to be recorded (`Ledger.prepare`): the ledger crate's check → work → record.
#[pyclass(frozen, module = "manifold_dp._native")]
struct Charge {
    inner: manifold_dp_ledger::Charge,
}

#[pymethods]
impl Charge {
    /// Records the release with the guarantees its mechanism reports (JSON: one object or a list), just before
    /// its result is handed back: the receipt as JSON, or `None` when it was already recorded. Refused
    /// (`BudgetRefused`) over budget or when the request id was taken meanwhile.
    fn record(&self, py: Python<'_>, guarantees_json: &str) -> PyResult<Option<String>> {
        let gs = guarantees_from_json(guarantees_json)?;
        let receipt = py.detach(|| self.inner.record(&gs)).map_err(ledger_error)?;
        Ok(receipt.map(|r| json(&r)))
    }

    /// Whether the release has been recorded.
    #[getter]
    fn recorded(&self) -> bool {
        self.inner.is_recorded()
    }

    /// The data set charged.
    #[getter]
    fn dataset(&self) -> String {
        self.inner.dataset().to_string()
    }
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Mechanism>()?;
    m.add_class::<Ledger>()?;
    m.add_class::<Charge>()?;
    m.add_function(wrap_pyfunction!(fresh_key, m)?)?;
    m.add_function(wrap_pyfunction!(raise_rejected, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_seed, m)?)?;
    m.add("SEEDED_WARNING", manifold_dp::privacy::rules::SEEDED_WARNING)?;
    // The one version: the workspace's Cargo.toml (pyproject.toml takes it from there too, `dynamic`).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<MeanPlan>()?;
    m.add_class::<MeanNoise>()?;
    m.add_function(wrap_pyfunction!(parse_distance, m)?)?;
    m.add_function(wrap_pyfunction!(mean_warnings, m)?)?;
    m.add_function(wrap_pyfunction!(extrinsic_mean, m)?)?;
    m.add_function(wrap_pyfunction!(clock_hours, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(natural_unit, m)?)?;
    m.add_function(wrap_pyfunction!(mean_ledger_label, m)?)?;
    m.add_function(wrap_pyfunction!(epsilon_for_radius, m)?)?;
    m.add_function(wrap_pyfunction!(extrinsic_request, m)?)?;
    m.add("BudgetRefused", m.py().get_type::<BudgetRefused>())?;
    m.add("DrawUnrepresentable", m.py().get_type::<DrawUnrepresentable>())?;
    Ok(())
}
