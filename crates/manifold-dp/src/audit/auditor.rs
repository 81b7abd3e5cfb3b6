//! The empirical privacy auditor: a statistically valid lower bound on the privacy loss a mechanism really
//! has, compared with the ε·d it claims (method and interpretation: `docs/audit.md`; docs/math.md §5).
//!
//! For every input pair (x, x′) at claimed distance d and every test event S (fixed from an independent
//! pilot sample, see [`crate::audit::events`]), with n draws from each input and hit counts k_a (draws
//! from a in S) and k_b (draws from b in S):
//!
//! ```text
//! L = ln CP_lower(k_a, n, α′) − ln CP_upper(k_b, n, α′),     α′ = α_p / (2 · #tests),
//! ε̂_lb = max over tests with d > 0 of L/d,                   VIOLATION  ⇔  some test has L > ε·d.
//! ```
//!
//! If the mechanism satisfies its claim, P_a(S) ≤ e^{εd}·P_b(S) for every test; a test can then exceed
//! ε·d only if one of its two Clopper–Pearson bounds fails, which happens with probability ≤ 2α′.
//!
//! **(ε, δ) claims.** When the mechanism's guarantee is `ApproxDp { ε, δ }` with δ > 0 (the pairs are then
//! neighbours, d = 1), the claim is P_a(S) ≤ e^ε·P_b(S) + δ and the contrast becomes
//! L = ln(CP_lower(k_a) − δ) − ln CP_upper(k_b) (−∞ when CP_lower(k_a) ≤ δ): L > ε ⇔ CP_lower(k_a) −
//! e^ε·CP_upper(k_b) > δ, which again needs a failed Clopper–Pearson bound when the claim holds. Such
//! targets also get, per direction, the event {ℓ_ab ≥ ε·d} where the claimed δ is attained
//! ([`crate::audit::events::claim_llr_events`]). A union
//! bound over all tests bounds the probability of a false VIOLATION by α_p, whatever the mechanism, the
//! pairs and the sample size. A pair with d = 0 (e.g. q and −q on SO(3), the same rotation) claims equal
//! laws: it violates as soon as L > 0. The point estimate is the same contrast with k/n in place of the
//! bounds.
//!
//! Beside the privacy tests, a Kolmogorov–Smirnov test compares the law of d(z, x) with the claimed
//! mechanism's exact law (the goodness-of-fit companion); it flags a LAW MISMATCH. When it runs, α is split
//! evenly, α_p = α/2 for the privacy tests and α/2 for the KS test, so a mechanism that meets its claim
//! and samples its exact law is flagged with probability ≤ α.
//!
//! Randomness: every draw comes from a ChaCha stream derived from one [`StreamKey`]: stream
//! `phase·2⁵⁶ + pair·2⁴⁰ + side·2³² + chunk` (phase 1 = pilot, 2 = counting, 3 = goodness of fit), each
//! chunk of [`CHUNK`] draws its own stream. The result therefore does not depend on the number of threads,
//! and no two chunks share a stream.

use crate::audit::clopper_pearson;
use crate::audit::events::{
    Event, EventLevels, Features, claim_llr_events, events_from_pilot, exponent_field, low_bits_pattern,
};
use crate::audit::gof::{KsOutcome, dkw_critical_value};
use crate::error::Param;
use crate::error::{Error, Fallible};
use crate::mechanism::Mechanism;
use crate::privacy::Guarantee;
use crate::sample::rng::StreamKey;
use nalgebra::{DMatrix, DVector, UnitQuaternion};
use rayon::prelude::*;
use serde::Serialize;

/// Draws per chunk: the unit of parallel work, of stream derivation and of progress reports.
pub const CHUNK: u64 = 1 << 14;

/// Default [`AuditConfig::llr_resolution`]: 2⁻³⁰ ≈ 9.3·10⁻¹⁰ of ε·d.
pub const DEFAULT_LLR_RESOLUTION: f64 = 1.0 / (1u64 << 30) as f64;

/// A point type the auditor can work with: a distance for the geometric events and a finiteness check.
pub trait AuditPoint: Clone + Send + Sync {
    /// The space's own distance (geodesic angle on SO(3), great-circle angle on spheres, affine-invariant
    /// distance on SPD matrices, |a − b| on ℝ), used by the `ball` and `far` events and by the
    /// goodness-of-fit check; it need not be the metric of the claim.
    fn audit_distance(&self, other: &Self) -> f64;

    /// Whether every coordinate is finite (a non-finite release falls in the `non-finite` event only, and no
    /// density or distance is evaluated on it).
    fn is_finite_point(&self) -> bool;

    /// The input one unit in the last place away (one coordinate moved to its next double), for the raw-bit
    /// mode's pair whose true privacy loss is e^{ε·10⁻¹⁶} ≈ 1.
    fn one_ulp_away(&self) -> Self;

    /// Whether this release is, to the bit, what the space's raw pipeline gives when its last step is redone
    /// from input `x` and the noise that x implies (Mironov's reachability test; `false` where the space
    /// defines none). A set defined by public x, so a valid event for any mechanism; it has power against
    /// unrounded pipelines of that shape (`docs/proofs/float_safety.md` §9).
    fn reproduced_from(&self, x: &Self) -> bool;

    /// The point's coordinates as stored (quaternion x, y, z, w; vector entries; matrix entries column by
    /// column), for the precision events.
    fn coordinates(&self) -> &[f64];

    /// Two inputs one ulp apart on either side of a power of two (Haney et al.: inputs with different
    /// exponents): this point with its largest-magnitude coordinate c set to p = 2^⌊log₂|c|⌋ (1 when c is
    /// 0), with sign, and the same with p's predecessor toward zero. At the identity and at the poles, whose
    /// largest coordinate is 1, the first is the point itself.
    fn across_binade(&self) -> (Self, Self) {
        let (at, below) = (self.clone(), self.clone());
        let i = largest_coordinate(self.coordinates());
        let c = self.coordinates()[i];
        let p = if c == 0.0 { 1.0 } else { f64::from_bits(c.abs().to_bits() & (0x7ff << 52)) };
        let set = |mut point: Self, v: f64| {
            point.coordinate_mut(i, v.copysign(c));
            point
        };
        (set(at, p), set(below, p.next_down()))
    }

    /// Sets coordinate `i` (in the order of [`AuditPoint::coordinates`]) to `value`, as given: the point is
    /// not renormalised (the mechanisms take their input as given).
    fn coordinate_mut(&mut self, i: usize, value: f64);
}

/// The index of the largest-magnitude entry (the first on ties).
fn largest_coordinate(c: &[f64]) -> usize {
    (0..c.len()).fold(0, |best, i| if c[i].abs() > c[best].abs() { i } else { best })
}

impl AuditPoint for UnitQuaternion<f64> {
    fn audit_distance(&self, other: &Self) -> f64 {
        crate::space::so3_metric::geodesic(self, other)
    }

    fn is_finite_point(&self) -> bool {
        self.coords.iter().all(|c| c.is_finite())
    }

    /// w moved up one ulp (not renormalised: the mechanisms take the quaternion as given).
    fn one_ulp_away(&self) -> Self {
        let q = self.quaternion();
        UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(q.w.next_up(), q.i, q.j, q.k))
    }

    /// Every SO(3) release is x∘n: is x∘(x̄∘z) = z bit for bit?
    fn reproduced_from(&self, x: &Self) -> bool {
        (x * (x.conjugate() * self)).coords == self.coords
    }

    fn coordinates(&self) -> &[f64] {
        self.coords.as_slice()
    }

    fn coordinate_mut(&mut self, i: usize, value: f64) {
        self.as_mut_unchecked().coords[i] = value;
    }
}

impl AuditPoint for DVector<f64> {
    /// The great-circle angle 2·atan2(‖x − y‖, ‖x + y‖) (as [`crate::space::sphere::surface_distance`],
    /// without allocating).
    fn audit_distance(&self, other: &Self) -> f64 {
        let (mut minus, mut plus) = (0.0, 0.0);
        for (a, b) in self.iter().zip(other.iter()) {
            minus += (a - b) * (a - b);
            plus += (a + b) * (a + b);
        }
        2.0 * minus.sqrt().atan2(plus.sqrt())
    }

    fn is_finite_point(&self) -> bool {
        self.iter().all(|c| c.is_finite())
    }

    /// The largest-magnitude coordinate moved away from zero by one ulp.
    fn one_ulp_away(&self) -> Self {
        let mut v = self.clone();
        let i = v.iamax();
        v[i] = if v[i] >= 0.0 { v[i].next_up() } else { v[i].next_down() };
        v
    }

    /// On S² the sphere samplers' last step ([`crate::sample::sphere::s2_reproduces`]); no test elsewhere.
    fn reproduced_from(&self, x: &Self) -> bool {
        self.len() == 3
            && x.len() == 3
            && crate::sample::sphere::s2_reproduces([x[0], x[1], x[2]], [self[0], self[1], self[2]])
    }

    fn coordinates(&self) -> &[f64] {
        self.as_slice()
    }

    fn coordinate_mut(&mut self, i: usize, value: f64) {
        self[i] = value;
    }
}

impl AuditPoint for DMatrix<f64> {
    fn audit_distance(&self, other: &Self) -> f64 {
        crate::space::spd::affine_invariant_distance(self, other)
    }

    fn is_finite_point(&self) -> bool {
        self.iter().all(|c| c.is_finite())
    }

    /// The first diagonal entry moved up one ulp (still symmetric and positive definite).
    fn one_ulp_away(&self) -> Self {
        let mut m = self.clone();
        m[(0, 0)] = m[(0, 0)].next_up();
        m
    }

    fn reproduced_from(&self, _x: &Self) -> bool {
        false
    }

    fn coordinates(&self) -> &[f64] {
        self.as_slice()
    }

    /// Entry `i` and its mirror (the matrix stays symmetric).
    fn coordinate_mut(&mut self, i: usize, value: f64) {
        let k = self.nrows();
        self[(i % k, i / k)] = value;
        self[(i / k, i % k)] = value;
    }
}

impl AuditPoint for f64 {
    fn audit_distance(&self, other: &Self) -> f64 {
        (self - other).abs()
    }

    fn is_finite_point(&self) -> bool {
        self.is_finite()
    }

    fn one_ulp_away(&self) -> Self {
        self.next_up()
    }

    /// No test on the real line (redoing x + L from z − x succeeds for almost any x); its raw path is caught
    /// by the raw likelihood-ratio events instead.
    fn reproduced_from(&self, _x: &Self) -> bool {
        false
    }

    fn coordinates(&self) -> &[f64] {
        std::slice::from_ref(self)
    }

    fn coordinate_mut(&mut self, _i: usize, value: f64) {
        *self = value;
    }
}

/// Two inputs and their distance in the metric of the claim.
#[derive(Debug, Clone, PartialEq)]
pub struct InputPair<P> {
    /// What the pair is, for reports (`identity vs half-turn about x`).
    pub label: String,
    /// The first input.
    pub x: P,
    /// The second input.
    pub x_prime: P,
    /// d(x, x′) in the claim's metric (for a pure-DP claim: 1, the pair being neighbours).
    pub distance: f64,
}

/// A CDF evaluated at each of ascending values.
pub type CdfSorted = Box<dyn Fn(&[f64]) -> Vec<f64> + Send + Sync>;

/// The exact law of d(z, center) for releases z of `center`, for the goodness-of-fit companion.
pub struct ReferenceLaw<P> {
    /// What is tested, e.g. `rotation angle` or `great-circle angle`.
    pub quantity: &'static str,
    /// The input whose releases are drawn.
    pub center: P,
    /// The CDF at each of ascending values.
    pub cdf_sorted: CdfSorted,
    /// The distance whose law `cdf_sorted` is (e.g. the log-Euclidean distance on SPD matrices, which is
    /// not [`AuditPoint::audit_distance`]).
    pub distance: fn(&P, &P) -> f64,
}

impl<P: std::fmt::Debug> std::fmt::Debug for ReferenceLaw<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReferenceLaw").field("quantity", &self.quantity).field("center", &self.center).finish()
    }
}

/// A mechanism with the claim to audit, its input pairs and its reference law.
#[derive(Debug)]
pub struct AuditTarget<M: Mechanism> {
    /// The mechanism: its `privatize` is sampled, its `log_density` defines the likelihood-ratio events.
    pub mechanism: M,
    /// A name for reports (`laplace on so3`).
    pub label: String,
    /// The claimed ε per unit of the pairs' distances.
    pub epsilon: f64,
    /// The claim as people read it.
    pub claim: String,
    /// The input pairs.
    pub pairs: Vec<InputPair<M::Point>>,
    /// The goodness-of-fit reference, if the release law is known in closed form.
    pub reference: Option<ReferenceLaw<M::Point>>,
}

/// The most counting draws per input an audit accepts: 10⁹ (hours of work per pair); the counts are kept,
/// not the draws, but a mistyped 1.8e19 must be refused, not attempted.
pub const MAX_AUDIT_SAMPLES: u64 = 1_000_000_000;

/// The most pilot draws per input: pilot draws are kept in memory to fix the events, so they are bounded.
pub const MAX_PILOT_SAMPLES: u64 = 10_000_000;

/// The smallest α an audit accepts. α is split over up to a few thousand Clopper–Pearson bounds, and each
/// share must stay a positive double (α = 5e-324 would leave 0); no audit needs a false-alarm bound below this.
pub const MIN_AUDIT_ALPHA: f64 = 1e-100;

/// The sample budget and confidence of an audit.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditConfig {
    /// n: counting draws per input of every pair.
    pub samples: u64,
    /// Pilot draws per input of every pair (fixing the events; independent of the counting draws).
    pub pilot_samples: u64,
    /// Bound on the probability of a false VIOLATION for a mechanism that meets its claim.
    pub alpha: f64,
    /// Draws for the goodness-of-fit companion (0: skip it).
    pub gof_samples: u64,
    /// The levels at which events are set.
    pub levels: EventLevels,
    /// Resolution of the likelihood-ratio events, relative to ε·d: ℓ is rounded to the grid
    /// `llr_resolution`·ε·d (ε·d = 1 when it is 0) before it is compared with a threshold, so that the events
    /// are level sets of the *exact* ℓ and not of its last bits. Default 2⁻³⁰. 0 is the raw-bit mode, which
    /// audits the floating-point implementation itself: raw ℓ values (events may pick releases by how their
    /// computed ℓ rounds), a pair one ulp apart ([`AuditPoint::one_ulp_away`]) and the reachability events
    /// ([`AuditPoint::reproduced_from`]) (`docs/audit.md`, "Floating point").
    pub llr_resolution: f64,
}

impl AuditConfig {
    /// The default configuration for `samples` counting draws per input: pilot max(samples/10, 10 000),
    /// goodness of fit on min(samples, 10⁶) draws, default event levels.
    pub fn with_samples(samples: u64, alpha: f64) -> Self {
        AuditConfig {
            samples,
            pilot_samples: (samples / 10).clamp(10_000, MAX_PILOT_SAMPLES),
            alpha,
            gof_samples: samples.min(1_000_000),
            levels: EventLevels::default(),
            llr_resolution: DEFAULT_LLR_RESOLUTION,
        }
    }

    fn validate(&self) -> Fallible<()> {
        if !(self.alpha >= MIN_AUDIT_ALPHA && self.alpha < 1.0) {
            return Err(Error::InvalidParameter {
                name: Param::Alpha,
                value: self.alpha,
                reason: "must lie in [1e-100, 1)",
            });
        }
        if self.samples > MAX_AUDIT_SAMPLES {
            return Err(Error::InvalidParameter {
                name: Param::Samples,
                value: self.samples as f64,
                reason: "must be at most 1e9 draws per input",
            });
        }
        if self.pilot_samples > MAX_PILOT_SAMPLES || self.gof_samples > MAX_AUDIT_SAMPLES {
            return Err(Error::InvalidParameter {
                name: Param::PilotSamples,
                value: self.pilot_samples.max(self.gof_samples) as f64,
                reason: "pilot draws must be at most 1e7 and goodness-of-fit draws at most 1e9",
            });
        }
        if self.samples < 100 {
            return Err(Error::InvalidParameter {
                name: Param::Samples,
                value: self.samples as f64,
                reason: "must be at least 100 draws per input",
            });
        }
        if self.pilot_samples < 100 {
            return Err(Error::InvalidParameter {
                name: Param::PilotSamples,
                value: self.pilot_samples as f64,
                reason: "must be at least 100 draws per input",
            });
        }
        if self.gof_samples > 0 && self.gof_samples < 100 {
            return Err(Error::InvalidParameter {
                name: Param::GoodnessOfFitSamples,
                value: self.gof_samples as f64,
                reason: "must be 0 (skip) or at least 100",
            });
        }
        if !(self.llr_resolution >= 0.0 && self.llr_resolution < 1.0) {
            return Err(Error::InvalidParameter {
                name: Param::LlrResolution,
                value: self.llr_resolution,
                reason: "must lie in [0, 1)",
            });
        }
        for &q in self.levels.central.iter().chain(&self.levels.tail) {
            if !(q > 0.0 && q < 1.0) {
                return Err(Error::InvalidParameter {
                    name: Param::EventLevel,
                    value: q,
                    reason: "must lie in (0, 1)",
                });
            }
        }
        Ok(())
    }
}

/// The verdict of an audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// No test exceeded the claim: the audit found no evidence against it (which does not prove it).
    NoViolationFound,
    /// Some test exceeded the claim: with confidence 1 − α the mechanism does not meet it.
    Violation,
    /// No test exceeded the claim, but the releases' distance to their input does not follow the exact law of
    /// the claimed mechanism (KS test at level α/2): the sampler is not the mechanism the claim was proved
    /// for. This catches miscalibrations too weak for the privacy tests at the sample size (e.g. a factor 2
    /// in the concentration of a Gaussian-like mechanism at large ε).
    LawMismatch,
}

impl Verdict {
    /// Whether the audit flags the mechanism (VIOLATION or LAW MISMATCH).
    pub fn flagged(self) -> bool {
        self != Verdict::NoViolationFound
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::NoViolationFound => "no violation found",
            Verdict::Violation => "VIOLATION",
            Verdict::LawMismatch => "LAW MISMATCH",
        })
    }
}

/// One test: a pair, an event, its counts and what they show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestOutcome {
    /// Index of the pair in the target's list.
    pub pair_index: usize,
    /// The pair's label.
    pub pair: String,
    /// The pair's distance in the claim's metric.
    pub distance: f64,
    /// The event, as text.
    pub event: String,
    /// The event itself.
    pub event_detail: Event,
    /// k_a: draws from a (the input the event favours) in the event.
    pub hits_a: u64,
    /// k_b: draws from b in the event.
    pub hits_b: u64,
    /// L = ln(CP_lower(k_a) − δ) − ln CP_upper(k_b) (δ = 0 unless an (ε, δ) claim is audited): a lower bound
    /// on ln((P_a(S) − δ)/P_b(S)) (−∞ when CP_lower(k_a) ≤ δ, e.g. k_a = 0).
    pub log_ratio_lower_bound: f64,
    /// ln(k_a/k_b), or ln((k_a/n − δ)/(k_b/n)) for an (ε, δ) claim (±∞ or NaN when a term is 0).
    pub log_ratio_estimate: f64,
    /// L − ε·d: positive means VIOLATION.
    pub excess: f64,
}

impl TestOutcome {
    /// L/d, the lower bound on ε this test gives (None for d = 0).
    pub fn epsilon_lower_bound(&self) -> Option<f64> {
        (self.distance > 0.0).then(|| self.log_ratio_lower_bound / self.distance)
    }

    /// ln(k_a/k_b)/d (None for d = 0 or when it is not finite).
    pub fn epsilon_estimate(&self) -> Option<f64> {
        let e = self.log_ratio_estimate / self.distance;
        (self.distance > 0.0 && e.is_finite()).then_some(e)
    }
}

/// The strongest test of one pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairSummary {
    /// The pair's label.
    pub pair: String,
    /// Its distance in the claim's metric.
    pub distance: f64,
    /// max over its tests of L/d (for d = 0: max L), floored at 0.
    pub epsilon_lower_bound: f64,
    /// The test that gave it.
    pub event: String,
    /// Whether a test of this pair exceeded the claim.
    pub violation: bool,
}

/// The goodness-of-fit companion: KS distance of the sampled d(z, center) from its exact law.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GofReport {
    /// The quantity tested (`rotation angle`…).
    pub quantity: String,
    /// sup |F_n − F|.
    pub statistic: f64,
    /// DKW–Massart critical value at `alpha`.
    pub critical: f64,
    /// Draws.
    pub samples: usize,
    /// False-failure bound of this check.
    pub alpha: f64,
    /// statistic ≤ critical.
    pub passed: bool,
}

impl From<(&'static str, KsOutcome)> for GofReport {
    fn from((quantity, ks): (&'static str, KsOutcome)) -> Self {
        GofReport {
            quantity: quantity.to_string(),
            statistic: ks.statistic,
            critical: ks.critical,
            samples: ks.n,
            alpha: ks.alpha,
            passed: ks.passed(),
        }
    }
}

/// Everything an audit found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport {
    /// The target's label.
    pub mechanism: String,
    /// The mechanism's own guarantee (may differ from the claim when a different ε is claimed).
    pub guarantee: Guarantee,
    /// The claimed ε per unit of the pairs' distances.
    pub epsilon: f64,
    /// The claimed δ: that of an `ApproxDp` guarantee, 0 for every other claim.
    pub delta: f64,
    /// The claim as text.
    pub claim: String,
    /// Counting draws per input of every pair.
    pub samples: u64,
    /// Pilot draws per input of every pair.
    pub pilot_samples: u64,
    /// Bound on the probability that a mechanism meeting its claim (and sampling the claimed law) is flagged.
    pub alpha: f64,
    /// The part of α spent on the privacy tests: α/2 when the goodness-of-fit check runs (it gets the
    /// other half), α otherwise. ε̂ holds with confidence 1 − `alpha_privacy`.
    pub alpha_privacy: f64,
    /// α′ = alpha_privacy/(2·tests), the level of each Clopper–Pearson bound.
    pub alpha_per_bound: f64,
    /// Number of input pairs.
    pub pairs_tested: usize,
    /// Number of (pair, event) tests.
    pub tests: usize,
    /// The verdict.
    pub verdict: Verdict,
    /// ε̂_lb = max over tests with d > 0 of L/d, floored at 0: with confidence 1 − `alpha_privacy` the
    /// mechanism's privacy loss per unit of distance is at least this (on the tested pairs).
    pub epsilon_lower_bound: f64,
    /// ε̂_lb/ε (None when ε = 0).
    pub ratio: Option<f64>,
    /// The test that gave ε̂_lb (the one with the largest L when no pair has d > 0).
    pub strongest: TestOutcome,
    /// The point estimate ln(k_a/k_b)/d of the strongest test (None when a count is 0).
    pub epsilon_point_estimate: Option<f64>,
    /// The test with the largest excess L − ε·d when that is positive (the evidence of the VIOLATION).
    pub violating: Option<TestOutcome>,
    /// The strongest test of every pair.
    pub per_pair: Vec<PairSummary>,
    /// The goodness-of-fit companion.
    pub gof: Option<GofReport>,
}

/// The KS test of `values` (d(z, center) of releases; +∞ where the distance overflowed, NaN for a
/// non-finite release) against the reference law. Values at +∞ enter the empirical CDF only at infinity:
/// D = max(sup over finite values, fraction at +∞). A non-finite release fails the check outright.
fn goodness_of_fit<P>(reference: &ReferenceLaw<P>, mut values: Vec<f64>, alpha: f64) -> GofReport {
    let n = values.len();
    let non_finite = values.iter().any(|v| v.is_nan());
    values.retain(|v| v.is_finite());
    values.sort_by(f64::total_cmp);
    let cdf = (reference.cdf_sorted)(&values);
    let nf = n as f64;
    let mut statistic =
        cdf.iter().enumerate().fold(0.0_f64, |d, (i, &f)| d.max(f - i as f64 / nf).max((i + 1) as f64 / nf - f));
    statistic = statistic.max((n - values.len()) as f64 / nf);
    if non_finite || statistic.is_nan() {
        statistic = 1.0;
    }
    let ks = KsOutcome { statistic, critical: dkw_critical_value(n, alpha), n, alpha };
    GofReport::from((reference.quantity, ks))
}

/// Stream id of (phase, pair, side, chunk).
fn stream_id(phase: u64, pair: usize, side: usize, chunk: u64) -> u64 {
    debug_assert!(pair < 1 << 16 && side < 2 && chunk < 1 << 32);
    (phase << 56) | ((pair as u64) << 40) | ((side as u64) << 32) | chunk
}

/// `count` draws split into chunks: (chunk index, draws in it).
fn chunks(count: u64) -> impl Iterator<Item = (u64, u64)> {
    (0..count.div_ceil(CHUNK)).map(move |c| (c, CHUNK.min(count - c * CHUNK)))
}

impl<M> AuditTarget<M>
where
    M: Mechanism + Sync,
    M::Point: AuditPoint,
{
    /// The δ of the claim: the mechanism's `ApproxDp { δ }` guarantee, 0 for every other guarantee (metric
    /// and pure DP claims).
    pub fn claimed_delta(&self) -> f64 {
        match self.mechanism.guarantee() {
            Guarantee::ApproxDp { delta, .. } => delta,
            _ => 0.0,
        }
    }

    /// Total draws an audit with `config` makes (for progress bars).
    pub fn total_draws(&self, config: &AuditConfig) -> u64 {
        let gof = if self.reference.is_some() { config.gof_samples } else { 0 };
        let pairs = self.pairs.len() + 2 * usize::from(config.llr_resolution == 0.0 && !self.pairs.is_empty());
        2 * pairs as u64 * (config.samples + config.pilot_samples) + gof
    }

    fn features(&self, z: &M::Point, pair: &InputPair<M::Point>, grid: f64, raw_bits: bool) -> Features {
        if !z.is_finite_point() {
            return Features::not_finite();
        }
        let m = &self.mechanism;
        let llr = m.log_density(z, &pair.x) - m.log_density(z, &pair.x_prime);
        Features {
            llr: if grid > 0.0 { (llr / grid).round() * grid } else { llr },
            dist_x: z.audit_distance(&pair.x),
            dist_x_prime: z.audit_distance(&pair.x_prime),
            finite: true,
            reproduced: raw_bits && z.reproduced_from(&pair.x),
            reproduced_prime: raw_bits && z.reproduced_from(&pair.x_prime),
            low_bits: if raw_bits { low_bits_pattern(z.coordinates()) } else { 0 },
            exponent: if raw_bits { exponent_field(z.coordinates()[0]) } else { 0 },
        }
    }

    /// The pairs an audit with `config` tests: the target's, and in raw-bit mode (`llr_resolution` 0) the
    /// first pair's x against itself one ulp away and a pair one ulp apart across a power of two
    /// ([`AuditPoint::across_binade`]).
    fn pairs_for(&self, config: &AuditConfig) -> Vec<InputPair<M::Point>> {
        let mut pairs = self.pairs.clone();
        if config.llr_resolution == 0.0
            && let Some(first) = self.pairs.first()
        {
            let x_prime = first.x.one_ulp_away();
            // The claim's metric is not known here; the space's own distance bounds it for one-ulp moves (and
            // a larger distance only makes the test more lenient).
            let distance = first.x.audit_distance(&x_prime).max(f64::EPSILON);
            pairs.push(InputPair {
                label: format!("{} vs itself one ulp away", first.label.split(" vs ").next().unwrap_or("x")),
                x: first.x.clone(),
                x_prime,
                distance,
            });
            let (x, x_prime) = first.x.across_binade();
            let distance = x.audit_distance(&x_prime).max(f64::EPSILON);
            pairs.push(InputPair {
                label: "a coordinate at a power of two vs one ulp below it (different exponents)".into(),
                x,
                x_prime,
                distance,
            });
        }
        pairs
    }

    /// The rounding grid of ℓ for `pair`.
    fn grid(&self, config: &AuditConfig, pair: &InputPair<M::Point>) -> f64 {
        let scale = self.epsilon * pair.distance;
        config.llr_resolution * if scale > 0.0 { scale } else { 1.0 }
    }

    /// Runs the audit. `key` determines every draw (use [`StreamKey::from_os`] unless the run must be
    /// reproducible); `progress` is called with the number of draws each finished chunk made (from any
    /// thread). Errors on an invalid configuration, a target without pairs, or a negative claim.
    pub fn run(&self, config: &AuditConfig, key: &StreamKey, progress: &(dyn Fn(u64) + Sync)) -> Fallible<AuditReport> {
        config.validate()?;
        if self.pairs.is_empty() {
            return Err(Error::Incomplete("an audit needs at least one input pair".into()));
        }
        if !(self.epsilon >= 0.0 && self.epsilon.is_finite()) {
            return Err(Error::InvalidParameter {
                name: Param::Epsilon,
                value: self.epsilon,
                reason: "the claimed epsilon must be finite and >= 0",
            });
        }
        let delta = self.claimed_delta();
        if !(0.0..1.0).contains(&delta) {
            return Err(Error::InvalidParameter {
                name: Param::Delta,
                value: delta,
                reason: "the claimed delta must lie in [0, 1)",
            });
        }
        let pairs = self.pairs_for(config);
        let raw_bits = config.llr_resolution == 0.0;
        for p in &pairs {
            if !(p.distance >= 0.0 && p.distance.is_finite()) {
                return Err(Error::InvalidParameter {
                    name: Param::PairDistance,
                    value: p.distance,
                    reason: "must be finite and >= 0",
                });
            }
        }
        // A release the mechanism refuses (an unrepresentable draw) ends the audit with its error.
        let draw = |phase: u64, pair: usize, side: usize, chunk: u64, len: u64| -> Fallible<Vec<Features>> {
            let p = &pairs[pair];
            let input = if side == 0 { &p.x } else { &p.x_prime };
            let mut rng = key.stream(stream_id(phase, pair, side, chunk));
            let grid = self.grid(config, p);
            let out = (0..len)
                .map(|_| Ok(self.features(&self.mechanism.privatize(input, &mut rng)?, p, grid, raw_bits)))
                .collect();
            progress(len);
            out
        };

        // 1. Pilot: fix the events of every pair.
        let pilot_jobs: Vec<(usize, usize, u64, u64)> = (0..pairs.len())
            .flat_map(|i| (0..2).flat_map(move |s| chunks(config.pilot_samples).map(move |(c, n)| (i, s, c, n))))
            .collect();
        let pilot: Vec<Vec<Features>> =
            pilot_jobs.par_iter().map(|&(i, s, c, n)| draw(1, i, s, c, n)).collect::<Fallible<_>>()?;
        let mut pilot_by = vec![[Vec::new(), Vec::new()]; pairs.len()];
        for (&(i, s, _, _), block) in pilot_jobs.iter().zip(pilot) {
            pilot_by[i][s].extend(block);
        }
        let events: Vec<Vec<Event>> = pilot_by
            .iter()
            .zip(&pairs)
            .map(|([at_x, at_xp], p)| {
                let mut e = events_from_pilot(at_x, at_xp, &config.levels, raw_bits);
                if delta > 0.0 {
                    e.extend(claim_llr_events(at_x, at_xp, self.epsilon * p.distance));
                }
                e
            })
            .collect();
        drop(pilot_by);

        // 2. Counting: hits[pair][event][side].
        let count_jobs: Vec<(usize, usize, u64, u64)> = (0..pairs.len())
            .flat_map(|i| (0..2).flat_map(move |s| chunks(config.samples).map(move |(c, n)| (i, s, c, n))))
            .collect();
        let partial: Vec<Vec<u64>> = count_jobs
            .par_iter()
            .map(|&(i, s, c, n)| {
                let p = &pairs[i];
                let input = if s == 0 { &p.x } else { &p.x_prime };
                let mut rng = key.stream(stream_id(2, i, s, c));
                let mut hits = vec![0u64; events[i].len()];
                let grid = self.grid(config, p);
                for _ in 0..n {
                    let f = self.features(&self.mechanism.privatize(input, &mut rng)?, p, grid, raw_bits);
                    for (h, e) in hits.iter_mut().zip(&events[i]) {
                        *h += u64::from(e.contains(&f));
                    }
                }
                progress(n);
                Ok(hits)
            })
            .collect::<Fallible<_>>()?;
        let mut hits: Vec<Vec<[u64; 2]>> = events.iter().map(|e| vec![[0u64; 2]; e.len()]).collect();
        for (&(i, s, _, _), block) in count_jobs.iter().zip(partial) {
            for (h, k) in hits[i].iter_mut().zip(block) {
                h[s] += k;
            }
        }

        // 3. Bounds.
        let with_gof = self.reference.is_some() && config.gof_samples > 0;
        let alpha_privacy = if with_gof { 0.5 * config.alpha } else { config.alpha };
        let tests: usize = events.iter().map(Vec::len).sum();
        let alpha_per_bound = alpha_privacy / (2.0 * tests as f64);
        if alpha_per_bound <= 0.0 || alpha_per_bound.is_nan() {
            // Unreachable with α ≥ MIN_AUDIT_ALPHA; kept so that no configuration reaches the bounds with 0.
            return Err(Error::InvalidParameter {
                name: Param::Alpha,
                value: config.alpha,
                reason: "too small to split over the tests",
            });
        }
        let n = config.samples;
        let jobs: Vec<(usize, usize)> =
            events.iter().enumerate().flat_map(|(i, e)| (0..e.len()).map(move |j| (i, j))).collect();
        let outcomes: Vec<TestOutcome> = jobs
            .par_iter()
            .map(|&(i, j)| {
                let pair = &pairs[i];
                let event = &events[i][j];
                let (a, b) = if event.forward { (0, 1) } else { (1, 0) };
                let (ka, kb) = (hits[i][j][a], hits[i][j][b]);
                let lower = clopper_pearson::lower(ka, n, alpha_per_bound);
                let lower = if delta > 0.0 { (lower - delta).max(0.0) } else { lower }.ln();
                let upper = clopper_pearson::upper(kb, n, alpha_per_bound).ln();
                let l = lower - upper;
                let estimate = if delta > 0.0 {
                    let nf = n as f64;
                    (ka as f64 / nf - delta).max(0.0).ln() - (kb as f64 / nf).ln()
                } else {
                    (ka as f64).ln() - (kb as f64).ln()
                };
                TestOutcome {
                    pair_index: i,
                    pair: pair.label.clone(),
                    distance: pair.distance,
                    event: event.label(),
                    event_detail: event.clone(),
                    hits_a: ka,
                    hits_b: kb,
                    log_ratio_lower_bound: l,
                    log_ratio_estimate: estimate,
                    excess: l - self.epsilon * pair.distance,
                }
            })
            .collect();

        // 4. Goodness of fit.
        let gof = match &self.reference {
            Some(reference) if config.gof_samples > 0 => {
                let blocks: Vec<Vec<f64>> = chunks(config.gof_samples)
                    .collect::<Vec<_>>()
                    .par_iter()
                    .map(|&(c, len)| {
                        let mut rng = key.stream(stream_id(3, 0, 0, c));
                        let out = (0..len)
                            .map(|_| {
                                let z = self.mechanism.privatize(&reference.center, &mut rng)?;
                                Ok(if !z.is_finite_point() {
                                    f64::NAN
                                } else {
                                    // A distance that overflows (a release too ill-conditioned for the distance
                                    // to be computed) is beyond every finite value.
                                    let d = (reference.distance)(&z, &reference.center);
                                    if d.is_nan() { f64::INFINITY } else { d }
                                })
                            })
                            .collect::<Fallible<Vec<f64>>>();
                        progress(len);
                        out
                    })
                    .collect::<Fallible<_>>()?;
                let values: Vec<f64> = blocks.concat();
                Some(goodness_of_fit(reference, values, config.alpha - alpha_privacy))
            }
            _ => None,
        };

        Ok(self.summarise(config, &pairs, alpha_privacy, alpha_per_bound, tests, outcomes, gof))
    }

    #[allow(clippy::too_many_arguments)]
    fn summarise(
        &self,
        config: &AuditConfig,
        pairs: &[InputPair<M::Point>],
        alpha_privacy: f64,
        alpha_per_bound: f64,
        tests: usize,
        outcomes: Vec<TestOutcome>,
        gof: Option<GofReport>,
    ) -> AuditReport {
        // A total order on "strength": L/d for d > 0, then L for d = 0; NaN never wins.
        let key = |t: &TestOutcome| -> (bool, f64) {
            match t.epsilon_lower_bound() {
                Some(e) => (true, if e.is_nan() { f64::NEG_INFINITY } else { e }),
                None => (false, t.log_ratio_lower_bound),
            }
        };
        let stronger = |a: &TestOutcome, b: &TestOutcome| -> bool {
            let (ka, kb) = (key(a), key(b));
            (ka.0 && !kb.0) || (ka.0 == kb.0 && ka.1 > kb.1)
        };
        let mut strongest = &outcomes[0];
        for t in &outcomes {
            if stronger(t, strongest) {
                strongest = t;
            }
        }
        let violating =
            outcomes.iter().filter(|t| t.excess > 0.0).max_by(|a, b| a.excess.total_cmp(&b.excess)).cloned();
        let per_pair = pairs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mine = outcomes.iter().filter(|t| t.pair_index == i);
                let best = mine.clone().fold(None::<&TestOutcome>, |acc, t| match acc {
                    Some(b) if !stronger(t, b) => Some(b),
                    _ => Some(t),
                });
                let best = best.expect("every pair has events");
                let value = best.epsilon_lower_bound().unwrap_or(best.log_ratio_lower_bound);
                PairSummary {
                    pair: p.label.clone(),
                    distance: p.distance,
                    epsilon_lower_bound: if value.is_nan() { 0.0 } else { value.max(0.0) },
                    event: best.event.clone(),
                    violation: mine.clone().any(|t| t.excess > 0.0),
                }
            })
            .collect();
        let lb = strongest.epsilon_lower_bound().filter(|e| !e.is_nan()).unwrap_or(0.0).max(0.0);
        AuditReport {
            mechanism: self.label.clone(),
            guarantee: self.mechanism.guarantee(),
            epsilon: self.epsilon,
            delta: self.claimed_delta(),
            claim: self.claim.clone(),
            samples: config.samples,
            pilot_samples: config.pilot_samples,
            alpha: config.alpha,
            alpha_privacy,
            alpha_per_bound,
            pairs_tested: pairs.len(),
            tests,
            verdict: if violating.is_some() {
                Verdict::Violation
            } else if gof.as_ref().is_some_and(|g| !g.passed) {
                Verdict::LawMismatch
            } else {
                Verdict::NoViolationFound
            },
            epsilon_lower_bound: lb,
            ratio: (self.epsilon > 0.0).then(|| lb / self.epsilon),
            epsilon_point_estimate: strongest.epsilon_estimate(),
            strongest: strongest.clone(),
            violating,
            per_pair,
            gof,
        }
    }
}

/// An audit target behind a trait object: what a command line or a table builder chooses at run time.
pub trait Auditable: Send + Sync {
    /// The target's label.
    fn label(&self) -> &str;
    /// Total draws an audit with `config` makes.
    fn total_draws(&self, config: &AuditConfig) -> u64;
    /// Runs the audit ([`AuditTarget::run`]).
    fn run(&self, config: &AuditConfig, key: &StreamKey, progress: &(dyn Fn(u64) + Sync)) -> Fallible<AuditReport>;
}

impl<M> Auditable for AuditTarget<M>
where
    M: Mechanism + Send + Sync,
    M::Point: AuditPoint,
{
    fn label(&self) -> &str {
        &self.label
    }

    fn total_draws(&self, config: &AuditConfig) -> u64 {
        AuditTarget::total_draws(self, config)
    }

    fn run(&self, config: &AuditConfig, key: &StreamKey, progress: &(dyn Fn(u64) + Sync)) -> Fallible<AuditReport> {
        AuditTarget::run(self, config, key, progress)
    }
}
