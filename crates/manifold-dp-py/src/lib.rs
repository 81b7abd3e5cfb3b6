//! `manifold_dp._native`: the thin native module under the `manifold_dp` Python package. It parses names,
//! calls the Arrow core (`manifold-dp-arrow`), the library and the ledger, and hands back Arrow batches and
//! JSON; every conversion from numpy, pandas or scipy is done in Python, every computation in the libraries.
//! The GIL is released while rows are decoded and noise is drawn.

use arrow_array::RecordBatch;
use arrow_pyarrow::PyArrowType;
use manifold_dp::manifold::{So3, SpdAffine, SpdLogEuclidean, Sphere};
use manifold_dp::mechanism::{Conditioning, LaplaceManifold, PrivateFrechetMean};
use manifold_dp::privacy::Guarantee;
use manifold_dp::registry::{Budget, MechanismName, PointMechanism, Space};
use manifold_dp::sample::rng::{StreamKey, os_rng, seeded_rng_for_experiments};
use manifold_dp_arrow::{Codec, DirectionColumns, PointColumns, RotationColumns, RowIds, SpdColumns};
use manifold_dp_ledger::{Admission, Ledger as SqlLedger, LedgerError};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

create_exception!(_native, BudgetRefused, PyRuntimeError, "A release refused by the privacy ledger.");

fn bad(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn ledger_error(e: LedgerError) -> PyErr {
    if e.is_refusal() {
        BudgetRefused::new_err(e.to_string())
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

/// A per-row mechanism built from the registry's names.
#[pyclass(frozen, module = "manifold_dp._native")]
struct Mechanism {
    inner: PointMechanism,
    space: Space,
}

#[pymethods]
impl Mechanism {
    #[new]
    #[pyo3(signature = (space, mechanism, epsilon=None, protect=None, level=None, concentration=None, snap=None))]
    fn new(
        space: &str,
        mechanism: &str,
        epsilon: Option<f64>,
        protect: Option<&str>,
        level: Option<f64>,
        concentration: Option<f64>,
        snap: Option<&str>,
    ) -> PyResult<Self> {
        let space: Space = space.parse().map_err(bad)?;
        let name: MechanismName = mechanism.parse().map_err(bad)?;
        let budget = match (epsilon, protect, level, concentration) {
            (Some(e), None, None, None) => Budget::Epsilon(e),
            (None, Some(r), Some(l), None) => {
                Budget::Protect { radius: space.parse_distance(r).map_err(bad)?, level: l }
            }
            (None, Some(_), None, None) => return Err(bad("protect= needs level= (epsilon = level / distance)")),
            (None, None, None, Some(k)) => Budget::Concentration(k),
            (None, None, None, None) => {
                return Err(bad("give a budget: epsilon=E (per radian) or protect=\"10deg\", level=L"));
            }
            _ => return Err(bad("give one budget: epsilon=, protect= with level=, or concentration=")),
        };
        let mut inner = PointMechanism::new(space, name, budget).map_err(bad)?;
        if let Some(step) = snap {
            let radians = space.parse_distance(step).map_err(|e| bad(format!("snap={step:?}: {e}")))?;
            inner = inner.with_output_step(radians).map_err(|e| bad(format!("snap={step:?}: {e}")))?;
        }
        Ok(Mechanism { inner, space })
    }

    /// The guarantee of each released row, as JSON (the command line's keys).
    fn guarantee_json(&self) -> String {
        json(&self.inner.guarantee())
    }

    /// The space, as named in the registry.
    #[getter]
    fn space(&self) -> String {
        self.space.to_string()
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
}

/// A distance in radians from text with a unit (`10deg`, `2km` on latlon, `1h` on timeofday).
#[pyfunction]
fn parse_distance(space: &str, text: &str) -> PyResult<f64> {
    let space: Space = space.parse().map_err(bad)?;
    space.parse_distance(text).map_err(bad)
}

/// Audits `mechanism` on `space` at the claimed `epsilon` with `samples` draws per input: returns the
/// auditor's report as JSON (verdict, epsilon_lower_bound, …). The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (space, mechanism, epsilon=None, samples=200_000, alpha=1e-6, seed=None, concentration=None))]
#[allow(clippy::too_many_arguments)]
fn audit(
    py: Python<'_>,
    space: &str,
    mechanism: &str,
    epsilon: Option<f64>,
    samples: u64,
    alpha: f64,
    seed: Option<u64>,
    concentration: Option<f64>,
) -> PyResult<String> {
    use manifold_dp::audit::catalog::{AuditRequest, AuditSpace, build};
    let space = match space.parse::<Space>().map_err(bad)? {
        Space::So3 => AuditSpace::So3,
        Space::Spd(k) => AuditSpace::Spd { k },
        s => AuditSpace::Sphere { dim: s.sphere_dim().expect("a sphere") },
    };
    if !(1000..=1_000_000_000).contains(&samples) {
        return Err(bad("samples must be between 1000 and 1e9 draws per input"));
    }
    if !(1e-100..1.0).contains(&alpha) {
        return Err(bad("alpha must lie in [1e-100, 1)"));
    }
    let request = AuditRequest { concentration, ..AuditRequest::new(space, mechanism.trim(), epsilon) };
    let target = build(&request).map_err(bad)?;
    let config = manifold_dp::audit::AuditConfig::with_samples(samples, alpha);
    let key = stream_key(seed, None)?;
    let report = py.detach(|| target.run(&config, &key, &|_| {})).map_err(bad)?;
    Ok(json(&report))
}

/// A fresh 32-byte release key from the operating system's CSPRNG.
#[pyfunction]
fn fresh_key(py: Python<'_>) -> PyResult<Py<PyBytes>> {
    let key = StreamKey::from_os().map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &key.to_bytes()).unbind())
}

/// The private Fréchet mean of the rows of `batch` (pure ε-DP, Riemannian Laplace): returns JSON with `mean`,
/// `guarantee`, `sensitivity`, `sigma`, `expected_error`, `conditioned`, `n`, or the first bad row as
/// `(row, column, reason)` in `rejected`.
#[pyfunction]
#[pyo3(signature = (batch, space, center, radius, epsilon, format=None, columns=None, conditioning="auto", metric="affine", seed=None))]
#[allow(clippy::too_many_arguments)]
fn mean(
    py: Python<'_>,
    batch: PyArrowType<RecordBatch>,
    space: &str,
    center: Option<Vec<f64>>,
    radius: f64,
    epsilon: f64,
    format: Option<&str>,
    columns: Option<Vec<String>>,
    conditioning: &str,
    metric: &str,
    seed: Option<u64>,
) -> PyResult<String> {
    let batch = batch.0;
    let space: Space = space.parse().map_err(bad)?;
    let conditioning = match conditioning {
        "auto" => Conditioning::Auto,
        "none" => Conditioning::Unconditioned,
        "ball" => Conditioning::Ball,
        other => return Err(bad(format!("conditioning {other:?}: use auto, none or ball"))),
    };
    let columns = columns.as_deref();
    let run = |py: Python<'_>| -> PyResult<String> {
        match space {
            Space::So3 => {
                let repr = format.unwrap_or("quat-wxyz").parse().map_err(bad)?;
                let cols = RotationColumns::locate(&batch.schema(), repr, columns, repr).map_err(bad)?;
                let c = match &center {
                    Some(c) => repr.decode(c, &Default::default()).map_err(bad)?,
                    None => nalgebra::UnitQuaternion::identity(),
                };
                let points = decoded(cols.decode(&batch).map_err(bad)?)?;
                release(py, So3, c, radius, epsilon, conditioning, &points, seed, |q| repr.encode(q))
            }
            Space::Sphere(n) => {
                let cols = DirectionColumns::locate(&batch.schema(), space, None, columns).map_err(bad)?;
                let c =
                    center.as_deref().ok_or_else(|| bad("a sphere has no identity: give the centre's coordinates"))?;
                let c = manifold_dp::space::sphere::unit_vector_default(c).map_err(bad)?;
                let points = decoded(cols.decode(&batch).map_err(bad)?)?;
                let m = Sphere::new(n).map_err(bad)?;
                release(py, m, c, radius, epsilon, conditioning, &points, seed, |v| v.as_slice().to_vec())
            }
            Space::Spd(k) => {
                let cols = SpdColumns::locate(&batch.schema(), k, columns).map_err(bad)?;
                let tol = manifold_dp::space::spd::DEFAULT_SYMMETRY_TOLERANCE;
                let c = match &center {
                    Some(c) => manifold_dp::space::spd::spd_from_row_major(c, k, tol).map_err(bad)?,
                    None => nalgebra::DMatrix::identity(k, k),
                };
                let points = decoded(cols.decode(&batch).map_err(bad)?)?;
                let encode = |m: &nalgebra::DMatrix<f64>| manifold_dp::space::spd::to_row_major(m);
                match metric {
                    "affine" => {
                        let m = SpdAffine::new(k).map_err(bad)?;
                        release(py, m, c, radius, epsilon, conditioning, &points, seed, encode)
                    }
                    "log-euclidean" => {
                        let m = SpdLogEuclidean::new(k).map_err(bad)?;
                        release(py, m, c, radius, epsilon, conditioning, &points, seed, encode)
                    }
                    other => Err(bad(format!("metric {other:?}: use affine or log-euclidean"))),
                }
            }
            other => Err(bad(format!("mean on space {other} is not available yet: use so3, sphere:N or spd:K"))),
        }
    };
    run(py)
}

/// The points of a decoded batch, or the first bad row as a `ValueError` carrying `(row, column, reason)`.
fn decoded<P>(d: manifold_dp_arrow::Decoded<P>) -> PyResult<Vec<P>> {
    if let Some((row, p)) = d.problems.into_iter().next() {
        return Err(PyValueError::new_err((row, p.column, p.reason)));
    }
    Ok(d.points)
}

#[allow(clippy::too_many_arguments)]
fn release<M: LaplaceManifold + Sync>(
    py: Python<'_>,
    manifold: M,
    center: M::Point,
    radius: f64,
    epsilon: f64,
    conditioning: Conditioning,
    points: &[M::Point],
    seed: Option<u64>,
    encode: impl Fn(&M::Point) -> Vec<f64>,
) -> PyResult<String>
where
    M::Point: Sync + Send,
{
    if points.is_empty() {
        return Err(bad("no rows: there is no mean to release"));
    }
    let mech = PrivateFrechetMean::new(manifold, center, radius, points.len(), epsilon, conditioning).map_err(bad)?;
    let mut rng = match seed {
        Some(s) => seeded_rng_for_experiments(s),
        None => os_rng().map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
    };
    let private = py.detach(|| mech.release(points, &mut rng)).map_err(|e| match e {
        manifold_dp::Error::OutsideBall { index, distance, radius } => PyValueError::new_err((
            index,
            None::<String>,
            format!("the point is at distance {distance} from the centre, outside the radius {radius}"),
        )),
        e => bad(e),
    })?;
    Ok(serde_json::json!({
        "mean": encode(&private),
        "guarantee": mech.guarantee(),
        "sensitivity": mech.sensitivity(),
        "sigma": mech.sigma(),
        "expected_error": mech.expected_error(),
        "conditioned": mech.conditioned(),
        "n": points.len(),
    })
    .to_string())
}

/// A privacy ledger (an SQLite file): budgets per data set, and every release recorded against them.
#[pyclass(module = "manifold_dp._native")]
struct Ledger {
    path: String,
}

impl Ledger {
    fn open(&self) -> PyResult<SqlLedger> {
        SqlLedger::open(&self.path).map_err(ledger_error)
    }
}

#[pymethods]
impl Ledger {
    /// Opens the ledger at `path`, creating it when `create` is true and it does not exist.
    #[new]
    #[pyo3(signature = (path, create=true))]
    fn new(path: String, create: bool) -> PyResult<Self> {
        if create && !std::path::Path::new(&path).exists() {
            SqlLedger::create(&path).map_err(ledger_error)?;
        } else {
            SqlLedger::open(&path).map_err(ledger_error)?;
        }
        Ok(Ledger { path })
    }

    /// Sets the budgets of `dataset` (guarantees as JSON objects); returns what it has spent, as JSON.
    fn set_budgets(&self, dataset: &str, budgets_json: Vec<String>) -> PyResult<String> {
        let budgets: Vec<Guarantee> =
            budgets_json.iter().map(|b| serde_json::from_str(b).map_err(bad)).collect::<PyResult<_>>()?;
        Ok(json(&self.open()?.set_budgets(dataset, &budgets).map_err(ledger_error)?))
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

    /// Refuses now (`BudgetRefused`) what `record` would refuse; writes nothing.
    #[pyo3(signature = (dataset, guarantee_json, request_id=None, allow_unbudgeted=false))]
    fn check(
        &self,
        dataset: &str,
        guarantee_json: &str,
        request_id: Option<&str>,
        allow_unbudgeted: bool,
    ) -> PyResult<()> {
        let g: Guarantee = serde_json::from_str(guarantee_json).map_err(bad)?;
        let admission = Admission { allow_unbudgeted };
        self.open()?.check_new(dataset, &[g], request_id, admission).map_err(ledger_error)?;
        Ok(())
    }

    /// Records one release of `dataset` (check and insert in one transaction); returns the receipt as JSON.
    #[pyo3(signature = (dataset, mechanism, guarantee_json, request_id=None, allow_unbudgeted=false))]
    fn record(
        &self,
        dataset: &str,
        mechanism: &str,
        guarantee_json: &str,
        request_id: Option<&str>,
        allow_unbudgeted: bool,
    ) -> PyResult<String> {
        let g: Guarantee = serde_json::from_str(guarantee_json).map_err(bad)?;
        let admission = Admission { allow_unbudgeted };
        let receipt = self.open()?.record_new(dataset, mechanism, &[g], request_id, admission).map_err(ledger_error)?;
        Ok(json(&receipt))
    }
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Mechanism>()?;
    m.add_class::<Ledger>()?;
    m.add_function(wrap_pyfunction!(fresh_key, m)?)?;
    m.add_function(wrap_pyfunction!(mean, m)?)?;
    m.add_function(wrap_pyfunction!(parse_distance, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add("BudgetRefused", m.py().get_type::<BudgetRefused>())?;
    Ok(())
}
