//! The private extrinsic mean: data anywhere on SO(3) or a sphere S^{N−1}, no public centre or radius.
//!
//! Each row is embedded in a Euclidean space (a rotation as its 3×3 matrix in R⁹, row by row; a direction as
//! its unit vector in R^N), the embedded rows are averaged, ℓ₂ K-norm noise (density ∝ e^{−‖z‖/σ}: radius
//! Gamma(D, σ), direction uniform; [`EuclideanLaplace`]) is added, the noisy point is rounded onto a public
//! grid of the embedding's coordinates ([`Rounding::for_embedding`], the log-Euclidean SPD mean's grid), and
//! the rounded point is projected back onto the space (post-processing): the nearest rotation (the Procrustes
//! projection, as the top eigenvector of the 4×4 matrix K(M) with qᵀK(M)q = tr(R(q)ᵀM)) or z/‖z‖.
//!
//! Replacing one row moves the exact embedded mean by at most 2√2/n on SO(3) (‖R − R′‖_F = 2√2·sin(θ/2)) and
//! 2/n on spheres. The computed mean differs from the exact one by at most [`ExtrinsicMean::float_error`]
//! (each row's embedding and the summation of depth d), added twice to Δ, so the release is pure ε-DP
//! between data sets of n rows that differ in one row, with the rounding's ε₀ inside ε. The projection is
//! unstable where the noisy embedded mean is near degenerate (near 0 on spheres; on SO(3), where the gap
//! s₂ + s₃ of its signed singular values is small): every release states, from the release alone, how much
//! noise could have come from a degenerate mean and how likely that was ([`ExtrinsicRelease`]). Proofs:
//! `docs/proofs/extrinsic_mean.md`.

use crate::analysis::sphere_angle::MAX_SPHERE_DIM;
use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use crate::numerics::rounding::{add_up, div_up, mul_up};
use crate::privacy::Guarantee;
use crate::privacy::float_safety::Rounding;
use crate::sample::k_norm::EuclideanLaplace;
use nalgebra::{Matrix4, Quaternion, UnitQuaternion};
use rand::CryptoRng;

const U: f64 = f64::EPSILON / 2.0;

/// γ_k = k·u/(1 − k·u), rounded up.
fn gamma(k: f64) -> f64 {
    div_up(mul_up(k, U), 1.0 - k * U)
}

/// How far from 1 the norm of a row (a quaternion, or a unit vector) may be: 2^-36 ≈ 1.5e-11. Rows as the
/// decoders give them are normalised in f64, within a few hundred ulps of 1 at the largest dimension; a row
/// beyond it is refused (the bound enters Δ through [`ExtrinsicMean::float_error`]).
pub const UNIT_TOLERANCE: f64 = 1.0 / (1u64 << 36) as f64;

/// The share of ε the rounding may cost at most; beyond it the release is refused.
const MAX_ROUNDING_SHARE: f64 = 0.1;

/// The confidence level of the error bound every release states.
pub const CONFIDENCE: f64 = 0.95;

/// The space a mean is taken on, as embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedding {
    /// SO(3), as 3×3 rotation matrices in R⁹ (row by row).
    So3,
    /// S^{N−1}, as unit vectors of R^N (N ≥ 2; the circle and time of day are N = 2, latitude/longitude N = 3).
    Sphere(usize),
}

impl Embedding {
    /// The checked embedding of S^{`n`−1}.
    pub fn sphere(n: usize) -> Fallible<Self> {
        if !(2..=MAX_SPHERE_DIM).contains(&n) {
            return Err(Error::InvalidParameter {
                name: Param::Dimension,
                value: n as f64,
                reason: "a sphere's ambient dimension must be in [2, 10000]",
            });
        }
        Ok(Embedding::Sphere(n))
    }

    /// The embedding of a registry space: so3, and the spheres (sphere:N, latlon as S², circle and timeofday as
    /// S¹); refused elsewhere.
    pub fn of_space(space: crate::space::kind::Space) -> Fallible<Self> {
        use crate::space::kind::Space;
        match space {
            Space::So3 => Ok(Embedding::So3),
            Space::Spd(_) | Space::Real => Err(Error::NotApplicable(format!(
                "the extrinsic estimator applies to so3, sphere:N, latlon, circle and timeofday, not {space} (its \
                 means need a public ball or bounds: use the Fréchet estimator)"
            ))),
            _ => Self::sphere(space.sphere_dim().expect("a sphere")),
        }
    }

    /// The dimension D of the embedding: 9, or N.
    pub fn dim(self) -> usize {
        match self {
            Embedding::So3 => 9,
            Embedding::Sphere(n) => n,
        }
    }

    /// The largest distance between two embedded points of the space: 2√2 (rotations at angle π), or 2
    /// (antipodes).
    pub fn diameter(self) -> f64 {
        match self {
            Embedding::So3 => 2.0 * std::f64::consts::SQRT_2,
            Embedding::Sphere(_) => 2.0,
        }
    }

    /// For people.
    pub fn describe(self) -> String {
        match self {
            Embedding::So3 => "SO(3) embedded as 3×3 rotation matrices in R^9".into(),
            Embedding::Sphere(n) => format!("S^{} embedded as unit vectors of R^{n}", n - 1),
        }
    }

    /// A bound on the embedding error of one accepted row, e_row, and on the norm of its computed embedding, V
    /// (`docs/proofs/extrinsic_mean.md` §3). T = [`UNIT_TOLERANCE`].
    /// - Spheres: the row x̂ itself; its point is x̂/‖x̂‖, at distance |‖x̂‖ − 1| ≤ T; V = 1 + T.
    /// - SO(3): the matrix E(q) = ‖q‖²·R(q/‖q‖) of the homogeneous formula, each entry a sum of at most four
    ///   rounded products (error ≤ γ₄‖q‖² per entry, so ≤ 3γ₄(1 + T)² in Frobenius, plus underflow), and
    ///   ‖E(q) − R(q/‖q‖)‖_F = √3·|‖q‖² − 1| ≤ √3(2T + T²); V = √3(1 + T)² + the rounding.
    fn row_bounds(self) -> (f64, f64) {
        let t = UNIT_TOLERANCE;
        match self {
            Embedding::Sphere(_) => (t, add_up(1.0, t)),
            Embedding::So3 => {
                let a = mul_up(add_up(1.0, t), add_up(1.0, t));
                let rounding = add_up(mul_up(3.0 * gamma(4.0), a), 1e-300);
                let scale = mul_up(3f64.sqrt().next_up(), add_up(2.0 * t, t * t));
                (add_up(rounding, scale), add_up(mul_up(3f64.sqrt().next_up(), a), rounding))
            }
        }
    }
}

/// The norm of a row, checked against [`UNIT_TOLERANCE`] with a rigorous margin: the computed Σx² is within
/// γ_m of the exact (m terms), so exact ‖x‖² ∈ [s/(1 + γ_m), s/(1 − γ_m)].
fn check_norm(x: &[f64]) -> Fallible<()> {
    let s: f64 = x.iter().map(|v| v * v).sum();
    let g = gamma(x.len() as f64);
    let (lo, hi) = (1.0 - UNIT_TOLERANCE, 1.0 + UNIT_TOLERANCE);
    let ok = s.is_finite() && s / (1.0 + g) * (1.0 - U) >= lo * lo && s / (1.0 - g) * (1.0 + U) <= hi * hi;
    if ok { Ok(()) } else { Err(Error::NotUnitVector { norm: s.sqrt(), tolerance: UNIT_TOLERANCE }) }
}

/// The embedding of a rotation: its matrix by the homogeneous formula, row by row.
#[inline]
pub fn rotation_matrix_entries(q: &UnitQuaternion<f64>) -> [f64; 9] {
    let (w, x, y, z) = (q.w, q.i, q.j, q.k);
    [
        w * w + x * x - y * y - z * z,
        2.0 * (x * y - w * z),
        2.0 * (x * z + w * y),
        2.0 * (x * y + w * z),
        w * w - x * x + y * y - z * z,
        2.0 * (y * z - w * x),
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        w * w - x * x - y * y + z * z,
    ]
}

/// Rows summed in the embedding, sequentially up to this many, then pairwise.
const LEAF: usize = 16;

/// A sum of embedded rows, its row count and its summation depth (the most additions any row went through:
/// the float error of the sum is at most γ_depth per unit of Σ|terms|). Sums of consecutive parts of the data
/// merge pairwise ([`ExtrinsicSum::merge_all`]); the depth depends on n and on how the rows are split into
/// parts, never on their values.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtrinsicSum {
    /// Σ of the embedded rows (D coordinates).
    pub sum: Vec<f64>,
    /// The number of rows summed.
    pub n: u64,
    /// The summation depth.
    pub depth: u32,
}

impl ExtrinsicSum {
    /// The sum of the embedded `rows` (each given by `embed` into a D-vector), pairwise above [`LEAF`] rows.
    fn pairwise<P>(rows: &[P], dim: usize, embed: &impl Fn(&P, &mut [f64])) -> (Vec<f64>, u32) {
        if rows.len() <= LEAF {
            let mut acc = vec![0.0; dim];
            let mut row = vec![0.0; dim];
            for p in rows {
                embed(p, &mut row);
                acc.iter_mut().zip(&row).for_each(|(a, r)| *a += r);
            }
            // The first row is added to 0 exactly; each later addition is one rounding for every row before it.
            return (acc, rows.len().saturating_sub(1) as u32);
        }
        let half = rows.len() / 2;
        let (mut a, da) = Self::pairwise(&rows[..half], dim, embed);
        let (b, db) = Self::pairwise(&rows[half..], dim, embed);
        a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
        (a, da.max(db) + 1)
    }

    /// The sum of rotations embedded as matrices. Errors on a quaternion whose norm is not 1 within
    /// [`UNIT_TOLERANCE`].
    pub fn of_rotations(rows: &[UnitQuaternion<f64>]) -> Fallible<Self> {
        for q in rows {
            check_norm(q.coords.as_slice())?;
        }
        let (sum, depth) = Self::pairwise(rows, 9, &|q: &UnitQuaternion<f64>, out: &mut [f64]| {
            out.copy_from_slice(&rotation_matrix_entries(q))
        });
        Ok(ExtrinsicSum { sum, n: rows.len() as u64, depth })
    }

    /// The sum of unit vectors of R^`dim`. Errors on a vector of another length or whose norm is not 1 within
    /// [`UNIT_TOLERANCE`].
    pub fn of_directions<V: AsRef<[f64]>>(rows: &[V], dim: usize) -> Fallible<Self> {
        for x in rows {
            let x = x.as_ref();
            if x.len() != dim {
                return Err(Error::WrongLength { expected: dim, got: x.len() });
            }
            check_norm(x)?;
        }
        let (sum, depth) = Self::pairwise(rows, dim, &|x: &V, out: &mut [f64]| out.copy_from_slice(x.as_ref()));
        Ok(ExtrinsicSum { sum, n: rows.len() as u64, depth })
    }

    /// This sum followed by `other` (a later part of the data): depth + 1.
    pub fn merge(mut self, other: ExtrinsicSum) -> ExtrinsicSum {
        if other.n == 0 {
            return self;
        }
        if self.n == 0 {
            return other;
        }
        self.sum.iter_mut().zip(&other.sum).for_each(|(a, b)| *a += b);
        ExtrinsicSum { sum: self.sum, n: self.n + other.n, depth: self.depth.max(other.depth) + 1 }
    }

    /// The sums of consecutive parts, merged pairwise in order (the depth grows by ⌈log₂ k⌉ over k parts).
    pub fn merge_all(parts: Vec<ExtrinsicSum>) -> Option<ExtrinsicSum> {
        let mut level = parts;
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut it = level.into_iter();
            while let Some(a) = it.next() {
                next.push(match it.next() {
                    Some(b) => a.merge(b),
                    None => a,
                });
            }
            level = next;
        }
        level.pop()
    }
}

/// The release of a private extrinsic mean.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtrinsicRelease {
    /// The rounded noisy embedded mean (a point of the public grid), D coordinates.
    pub embedded: Vec<f64>,
    /// Its projection onto the space, as a quaternion (w, x, y, z) or a unit vector; `None` where the
    /// projection is undefined (the rounded point is 0, or on SO(3) its top eigenvalue is not simple).
    pub point: Option<Vec<f64>>,
    /// How far the rounded point is from the degenerate set, less the rounding and float slack: its norm on
    /// spheres, half the sum s₂ + s₃ of its two smallest signed singular values on SO(3) (a quarter of the
    /// eigengap of K). The exact embedded mean of the data
    /// can be degenerate only if the noise had norm at least this.
    pub degeneracy_distance: f64,
    /// P[‖noise‖ ≥ `degeneracy_distance`] under the noise law: the probability that noise at least as large as
    /// would be needed to have come from a degenerate mean was drawn (a function of the release and public σ).
    pub degeneracy_probability: f64,
    /// The noise radius t with P[‖noise‖ ≤ t] = [`CONFIDENCE`], plus the slack.
    pub noise_radius: f64,
    /// At [`CONFIDENCE`]: the largest angle (radians; on SO(3) the rotation angle) between [`Self::point`] and
    /// the projection of the exact embedded mean, for every data set; `None` where the noise radius reaches
    /// degeneracy (the projection is unstable: the release does not say where the data lie).
    pub error_bound: Option<f64>,
}

impl ExtrinsicRelease {
    /// Whether the projection is stable at [`CONFIDENCE`].
    pub fn stable(&self) -> bool {
        self.error_bound.is_some()
    }
}

/// The private extrinsic mean of n rows at pure ε.
#[derive(Debug, Clone)]
pub struct ExtrinsicMean {
    embedding: Embedding,
    n: u64,
    depth: u32,
    epsilon: f64,
    noise_epsilon: f64,
    sensitivity: f64,
    sigma: f64,
    noise: EuclideanLaplace,
    rounding: Rounding,
}

impl ExtrinsicMean {
    /// The release for `n` ≥ 1 rows summed to `depth` ([`ExtrinsicSum::depth`]) at pure `epsilon`: Δ =
    /// diameter/n + 2·[`ExtrinsicMean::float_error`], σ = Δ/ε′ with ε′ + ε₀ ≤ ε (ε₀ the rounding's cost, taken
    /// inside ε as every mean does). Refused where rounding would cost more than a tenth of ε.
    pub fn new(embedding: Embedding, n: u64, depth: u32, epsilon: f64) -> Fallible<Self> {
        let epsilon = check_positive(Param::Epsilon, epsilon)?;
        if n == 0 {
            return Err(Error::NotApplicable("no rows: there is no mean to release".into()));
        }
        if n >= 1u64 << 53 {
            return Err(Error::NotApplicable("too many rows (2^53 or more)".into()));
        }
        let d = embedding.dim();
        let error = Self::float_error(embedding, depth);
        let sensitivity = add_up(div_up(embedding.diameter(), n as f64), mul_up(2.0, error));
        // Every coordinate of the computed mean is at most (1 + γ)(1 + T)² ≤ 1 + 2^-20 in magnitude.
        let input_bound = 1.0 + 2f64.powi(-20);
        let build = |inner: f64| -> Fallible<(f64, EuclideanLaplace, Rounding)> {
            let sigma = div_up(sensitivity, inner);
            Ok((sigma, EuclideanLaplace::new(d, sigma, None)?, Rounding::for_embedding(d, sigma, input_bound)))
        };
        let too_costly = |cost: f64| {
            Error::NumericalLimit(format!(
                "rounding this release onto a float-safe grid would cost {} of privacy loss, more than a tenth of \
                 epsilon = {epsilon}: at {n} rows the noise (σ = {:.3e}) is too fine for double precision",
                crate::numerics::format::short(cost),
                sensitivity / epsilon
            ))
        };
        // Ask ε, pay ε: lower ε′ until ε′ + ε₀(ε′) ≤ ε, rounded up (as `PrivateFrechetMean` does).
        let mut inner = epsilon;
        let mut chosen = build(inner)?;
        for _ in 0..16 {
            let cost = chosen.2.additive_epsilon();
            if cost > MAX_ROUNDING_SHARE * epsilon {
                return Err(too_costly(cost));
            }
            if add_up(inner, cost) <= epsilon {
                break;
            }
            let next = (-add_up(cost, -epsilon)).min(inner.next_down());
            if next <= 0.0 {
                return Err(too_costly(cost));
            }
            inner = next;
            chosen = build(inner)?;
        }
        let cost = chosen.2.additive_epsilon();
        if cost > MAX_ROUNDING_SHARE * epsilon || add_up(inner, cost) > epsilon {
            return Err(too_costly(cost));
        }
        let (sigma, noise, rounding) = chosen;
        Ok(ExtrinsicMean { embedding, n, depth, epsilon, noise_epsilon: inner, sensitivity, sigma, noise, rounding })
    }

    /// A bound on ‖μ̂ − μ‖₂, the computed embedded mean against the exact mean of the rows' points, for rows
    /// summed to `depth` and divided by n: e_row + γ_{depth+1}·V (`docs/proofs/extrinsic_mean.md` §3).
    pub fn float_error(embedding: Embedding, depth: u32) -> f64 {
        let (e_row, v) = embedding.row_bounds();
        add_up(e_row, mul_up(gamma(f64::from(depth) + 1.0), v))
    }

    /// Pure ε-DP for data sets of n rows (anywhere on the space) that differ in one row (replaced), at exactly
    /// the ε asked.
    pub fn guarantee(&self) -> Guarantee {
        debug_assert!(add_up(self.noise_epsilon, self.rounding_cost()) <= self.epsilon);
        // δ_N of the K-norm direction (`docs/proofs/float_safety.md` §6), between neighbours: L = ε.
        crate::privacy::float_safety::with_negligible_events(
            Guarantee::pure(self.epsilon),
            self.noise.negligible_event_probability(),
        )
    }

    /// [`ExtrinsicMean::guarantee`] with what it holds between: data sets of n rows anywhere on the space that
    /// differ in one row (replaced).
    pub fn stated_guarantee(&self) -> crate::privacy::StatedGuarantee {
        let domain = match self.embedding {
            Embedding::So3 => "rows anywhere on SO(3)".to_string(),
            Embedding::Sphere(n) => format!("rows anywhere on S^{}", n - 1),
        };
        crate::privacy::StatedGuarantee { guarantee: self.guarantee(), rows: self.n, domain, not_protected: None }
    }

    /// The embedding.
    pub fn embedding(&self) -> Embedding {
        self.embedding
    }

    /// n.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The summation depth Δ accounts for.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Δ₂ of the computed embedded mean: diameter/n + twice its float error.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The K-norm scale σ = Δ/ε′.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// ε′, the noise's share of ε.
    pub fn noise_epsilon(&self) -> f64 {
        self.noise_epsilon
    }

    /// ε₀, the rounding's cost, inside ε.
    pub fn rounding_cost(&self) -> f64 {
        self.rounding.additive_epsilon()
    }

    /// The grid releases lie on.
    pub fn rounding(&self) -> Rounding {
        self.rounding
    }

    /// E‖release − μ̂‖ in the embedding (Frobenius on SO(3), chordal on spheres): Dσ.
    pub fn expected_error(&self) -> f64 {
        self.noise.mean_radius()
    }

    /// Releases the mean of `sum` (over this release's n rows and depth).
    pub fn release<R: CryptoRng + ?Sized>(&self, sum: &ExtrinsicSum, rng: &mut R) -> Fallible<ExtrinsicRelease> {
        if sum.n != self.n || sum.depth > self.depth || sum.sum.len() != self.embedding.dim() {
            return Err(Error::NotApplicable(format!(
                "the sum is over {} rows of dimension {} at depth {}, the release was set up for {} rows of \
                 dimension {} at depth ≤ {}",
                sum.n,
                sum.sum.len(),
                sum.depth,
                self.n,
                self.embedding.dim(),
                self.depth
            )));
        }
        let n = self.n as f64;
        let mut u: Vec<f64> = sum.sum.iter().map(|s| s / n).collect();
        let noise = self.noise.sample(rng);
        u.iter_mut().zip(noise.iter()).for_each(|(x, z)| *x += z);
        self.rounding.snap_coordinates(&mut u);
        Ok(self.project(u))
    }

    /// The raw f64 release, **not float-safe** (the negative control of the grid tests).
    pub fn release_unprotected<R: CryptoRng + ?Sized>(&self, sum: &ExtrinsicSum, rng: &mut R) -> Vec<f64> {
        let n = self.n as f64;
        let noise = self.noise.sample(rng);
        sum.sum.iter().zip(noise.iter()).map(|(s, z)| s / n + z).collect()
    }

    /// Post-processing of a grid point: the projection and the instability statement.
    pub fn project(&self, embedded: Vec<f64>) -> ExtrinsicRelease {
        let d = self.embedding.dim();
        // The released point is within √D·(h/2 + η) ≤ √D·h of μ̂ + z (η < h/8, the grid's floor), and μ̂ within
        // the float error of μ.
        let slack = add_up(
            mul_up((d as f64).sqrt().next_up(), self.rounding.float_safe_grid().spacing()),
            Self::float_error(self.embedding, self.depth),
        );
        let t = add_up(gamma_quantile(d, self.sigma, CONFIDENCE), slack);
        let (point, reach) = match self.embedding {
            Embedding::Sphere(_) => {
                let norm = embedded.iter().map(|x| x * x).sum::<f64>().sqrt();
                let point = (norm > 0.0).then(|| embedded.iter().map(|x| x / norm).collect());
                (point, norm * (1.0 - 1e-12))
            }
            Embedding::So3 => {
                // Weyl: an error E moves each eigenvalue of K by ≤ ‖K(E)‖₂ ≤ 2‖E‖_F, the gap by ≤ 4‖E‖_F.
                let (q, gap) = nearest_rotation(&embedded);
                (q, 0.25 * gap)
            }
        };
        let distance = (reach - slack).max(0.0);
        let error_bound = match self.embedding {
            _ if point.is_none() || t >= distance => None,
            // μ lies within t of the release z, in a ball that misses 0: the angle is at most arcsin(t/‖z‖).
            Embedding::Sphere(_) => Some((t / reach).min(1.0).asin()),
            // Davis–Kahan on K (Yu, Wang & Samworth 2015): sin ψ ≤ 2‖K(E)‖₂/gap(K(z)) ≤ 4t/gap = t/reach, ψ the
            // angle between the top eigenvectors on S³; the rotation angle is 2ψ.
            Embedding::So3 => Some(2.0 * (t / reach).min(1.0).asin()),
        };
        ExtrinsicRelease {
            embedded,
            point,
            degeneracy_distance: distance,
            degeneracy_probability: gamma_tail(d, distance / self.sigma),
            noise_radius: t,
            error_bound,
        }
    }

    /// What a user should hear about a release, each a sentence without a trailing period: an unstable
    /// projection, and a rounding cost above 1 % of ε.
    pub fn warnings(&self, release: &ExtrinsicRelease) -> Vec<String> {
        use crate::numerics::format::short;
        let mut out = Vec::new();
        if !release.stable() {
            let what = match self.embedding {
                Embedding::So3 => "half of s₂ + s₃, the sum of its two smallest signed singular values",
                Embedding::Sphere(_) => "its norm",
            };
            out.push(format!(
                "the projection is unstable: the noisy mean of the embedded rows lies {} from degeneracy ({what}), \
                 within the noise radius {} that holds with probability {}, and noise of at least that size had \
                 probability {}: the exact extrinsic mean may be (near) degenerate, so the released point may show \
                 the noise rather than the data (the data may be spread evenly over the space; more rows or a larger \
                 epsilon help)",
                short(release.degeneracy_distance),
                short(release.noise_radius),
                CONFIDENCE,
                short(release.degeneracy_probability)
            ));
        }
        if self.rounding_cost() > crate::notes::ROUNDING_SHARE_WARNING * self.epsilon {
            out.push(format!(
                "rounding the release float-safely costs {} of the epsilon {} (taken inside it: the noise is \
                 calibrated at the rest)",
                short(self.rounding_cost()),
                short(self.epsilon)
            ));
        }
        out
    }
}

/// The 4×4 symmetric matrix K(M) with qᵀK(M)q = tr(R(q)ᵀM) for unit q, M row by row.
fn horn_matrix(m: &[f64]) -> Matrix4<f64> {
    let a = |i: usize, j: usize| m[3 * i + j];
    let (m11, m12, m13, m21, m22, m23, m31, m32, m33) =
        (a(0, 0), a(0, 1), a(0, 2), a(1, 0), a(1, 1), a(1, 2), a(2, 0), a(2, 1), a(2, 2));
    Matrix4::new(
        m11 + m22 + m33,
        m32 - m23,
        m13 - m31,
        m21 - m12,
        m32 - m23,
        m11 - m22 - m33,
        m12 + m21,
        m13 + m31,
        m13 - m31,
        m12 + m21,
        -m11 + m22 - m33,
        m23 + m32,
        m21 - m12,
        m13 + m31,
        m23 + m32,
        -m11 - m22 + m33,
    )
}

/// The rotation nearest to the 3×3 matrix `m` (row by row) in Frobenius norm, as (w, x, y, z) with the
/// largest-magnitude component positive, and the gap λ₁ − λ₂ of K(m) (= 2(s₂ + s₃), s the signed singular
/// values), less its computation's error; `None` where the gap is not positive (the projection is not unique).
pub fn nearest_rotation(m: &[f64]) -> (Option<Vec<f64>>, f64) {
    let k = horn_matrix(m);
    let eig = k.symmetric_eigen();
    let mut order: Vec<usize> = (0..4).collect();
    order.sort_by(|&i, &j| eig.eigenvalues[j].total_cmp(&eig.eigenvalues[i]));
    let scale = k.norm();
    let gap = eig.eigenvalues[order[0]] - eig.eigenvalues[order[1]] - 1e-12 * scale;
    if gap.is_nan() || gap <= 0.0 {
        return (None, 0.0);
    }
    let v = eig.eigenvectors.column(order[0]);
    let q = UnitQuaternion::from_quaternion(Quaternion::new(v[0], v[1], v[2], v[3]));
    let c = [q.w, q.i, q.j, q.k];
    let big = (0..4).max_by(|&i, &j| c[i].abs().total_cmp(&c[j].abs())).unwrap_or(0);
    let s = if c[big] < 0.0 { -1.0 } else { 1.0 };
    (Some(c.iter().map(|x| s * x).collect()), gap)
}

/// P[Gamma(`d`, 1) ≥ `x`] = e^{−x} Σ_{k<d} x^k/k!, in logarithms (no overflow for d up to 10⁴).
pub fn gamma_tail(d: usize, x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    let lx = x.ln();
    let mut logs = Vec::with_capacity(d);
    let mut l = -x;
    for k in 0..d {
        if k > 0 {
            l += lx - (k as f64).ln();
        }
        logs.push(l);
    }
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (top + logs.iter().map(|v| (v - top).exp()).sum::<f64>().ln()).exp().min(1.0)
}

/// The `p`-quantile of Gamma(`d`, `sigma`) (shape d, scale σ), by bisection on [`gamma_tail`], rounded up.
pub fn gamma_quantile(d: usize, sigma: f64, p: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, (d as f64) + 20.0 * (d as f64).sqrt() + 60.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if 1.0 - gamma_tail(d, mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    mul_up(hi, sigma)
}

#[cfg(test)]
mod tests;
