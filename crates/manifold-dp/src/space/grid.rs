//! Public grids that float-safe releases are rounded onto (`docs/proofs/float_safety.md` §2).
//!
//! A release computed in f64 carries low bits that depend on the input; rounding it onto a public grid whose
//! cells are far wider than the pipeline's float error leaves only the cell, whose probability is within a
//! stated factor of the exact law's. Each function here maps a point to its cell's *representative*, a
//! deterministic function of the cell alone, so two points in one cell give bit-identical releases.
//!
//! - [`snap_turns`]: the circle, angle in turns rounded to a multiple of 2^s.
//! - [`snap_cube_map`]: S^{n−1} (n ≥ 3), the cube map: face i* = argmax |vᵢ| (lowest index on ties), the other
//!   coordinates divided by |v_{i*}| and rounded to multiples of 2^s; the representative is the normalised
//!   point of the rounded chart coordinates.
//! - [`snap_quaternion`]: SO(3), a unit quaternion with q ≡ −q: the cube map of S³ on the face of the
//!   largest-magnitude component taken positive.

use crate::numerics::trig::{atan2_turns, sin_cos_turns};
use nalgebra::{Quaternion, UnitQuaternion};
use serde::{Deserialize, Serialize};
use std::f64::consts::TAU;
use std::fmt;

/// The public chart a release is rounded in (`docs/proofs/float_safety.md` §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Chart {
    /// The circle S¹ in turns: the angle atan2(y, x)/2π rounded to a multiple of the spacing.
    Turns,
    /// The cube map of S^{n−1} (n ≥ 3): the face i* = argmax |vᵢ| (lowest index on ties) with its sign, and the
    /// other coordinates divided by |v_{i*}|, each rounded to a multiple of the spacing.
    CubeMap,
    /// SO(3) as unit quaternions with q ≡ −q: the sign that makes the largest-magnitude component (lowest
    /// index on ties) positive, then the cube map of S³.
    QuaternionCubeMap,
    /// The tangent space at the planar Laplace's reference point p, in a public orthonormal basis of p^⊥: each
    /// coordinate clamped to [−B, B] (B a public power of two beyond the antipode's π) and rounded to a
    /// multiple of the spacing; the release is exp_p of the rounded vector.
    TangentPlane,
    /// SPD(k) under the log-Euclidean metric: the isometric coordinates of log Y (the diagonal, then √2 times
    /// each entry above it, row by row), each clamped to [−B, B] (B a public power of two) and rounded to a
    /// multiple of the spacing; the release is exp of the rounded symmetric matrix.
    LogDomain,
    /// SPD(k) under the affine-invariant metric, around the public centre m0 = L0·L0ᵀ (Cholesky): the isometric
    /// coordinates of log(W·Y·Wᵀ) with W = L0⁻¹ (the log chart at m0), each rounded to a multiple of the
    /// spacing; the release is L0·exp(S)·L0ᵀ for the rounded S.
    SpdLogAtCenter,
    /// The coordinates of a Euclidean embedding (the extrinsic means: rotation matrices in R⁹ row by row, unit
    /// vectors in R^N), each clamped to [−B, B] (B a public power of two) and rounded to a multiple of the
    /// spacing; the release is the projection of the rounded point onto the space.
    Embedding,
}

/// A public grid: a chart and a spacing 2^`spacing_log2` in the chart's coordinates. Releases are the cells'
/// representatives, a deterministic function of the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Grid {
    /// The chart the spacing is measured in.
    pub chart: Chart,
    /// log₂ of the spacing (−21 means cells 2^-21 wide in chart coordinates).
    pub spacing_log2: i32,
}

impl Grid {
    /// The spacing 2^`spacing_log2` (exact).
    pub fn spacing(&self) -> f64 {
        2f64.powi(self.spacing_log2)
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let chart = match self.chart {
            Chart::Turns => "turn grid",
            Chart::CubeMap => "cube-map grid",
            Chart::QuaternionCubeMap => "quaternion cube-map grid",
            Chart::TangentPlane => "tangent-plane grid",
            Chart::LogDomain => "log-domain grid",
            Chart::SpdLogAtCenter => "grid of the log chart at the centre",
            Chart::Embedding => "grid of the embedding's coordinates",
        };
        write!(f, "{chart} of spacing 2^{}", self.spacing_log2)
    }
}

/// The nearest multiple of 2^`spacing_log2` to `u` (ties to even): exact, since scaling by a power of two is.
#[inline]
pub fn round_to_grid(u: f64, spacing_log2: i32) -> f64 {
    // Both scalings are by powers of two, hence exact; `powi` and `round_ties_even` are library calls on
    // CPUs without SSE4.1, and this runs for every coordinate of every release.
    let y = u * pow2(-spacing_log2);
    let rounded = if y.abs() < TWO_51 {
        // Adding and removing 1.5·2^52 rounds |y| < 2^51 to the nearest integer, ties to even, in the
        // default rounding mode; copysign keeps the sign of a zero as round_ties_even does.
        ((y + ROUNDER) - ROUNDER).copysign(y)
    } else {
        y.round_ties_even()
    };
    rounded * pow2(spacing_log2)
}

/// The tangent-plane grid's rounding of one coordinate (`docs/proofs/float_safety.md` §3c): below 4 in
/// magnitude, the nearest multiple of 2^s (ties to even); from 4 up, the nearest number with 2 − s bits after
/// the leading one (ties away from zero), whose spacing in [2^e, 2^{e+1}) is 2^{e−2+s}: 2^s in [4, 8), so the
/// two rules meet at 4. The spacing grows with the coordinate as the f64 error does. Requires
/// −49 ≤ s ≤ −2 and a finite `x`.
#[inline]
pub fn round_tangent(x: f64, spacing_log2: i32) -> f64 {
    if x.abs() < 4.0 {
        return round_to_grid(x, spacing_log2);
    }
    // Keep 2 − s of the 52 stored mantissa bits: add half of the last kept one and cut (a carry into the
    // exponent is the correct rounding up to the next power of two).
    debug_assert!((-49..=-2).contains(&spacing_log2) && x.is_finite());
    let dropped = (50 + spacing_log2) as u32;
    let half = 1u64 << (dropped - 1);
    f64::from_bits((x.to_bits() + half) & !((1u64 << dropped) - 1))
}

const TWO_51: f64 = 2251799813685248.0;
const ROUNDER: f64 = 6755399441055744.0; // 1.5 · 2^52

/// 2^k exactly, for the exponents of normal numbers (|k| ≤ 1022); beyond, `powi`.
#[inline]
fn pow2(k: i32) -> f64 {
    if (-1022..=1023).contains(&k) { f64::from_bits(((k + 1023) as u64) << 52) } else { pow2_beyond_normal(k) }
}

/// 2^k outside the normal exponents, out of line: inlined, the compiler computes `powi` (a library loop) on
/// every call and selects, since it may be evaluated speculatively.
#[cold]
#[inline(never)]
fn pow2_beyond_normal(k: i32) -> f64 {
    2f64.powi(k)
}

/// The cell of the angle of (x, y) on the turn grid of spacing 2^`spacing_log2` turns: an index in
/// [0, 2^-`spacing_log2`).
#[inline]
pub fn turn_cell(x: f64, y: f64, spacing_log2: i32) -> u64 {
    turn_cell_guarded(x, y, spacing_log2, TURN_GUARD)
}

/// [`turn_cell`] with the fast angle kept `guard` turns from a cell boundary (tests pass 0 as a control).
#[inline(always)]
fn turn_cell_guarded(x: f64, y: f64, spacing_log2: i32, guard: f64) -> u64 {
    // pow2, not powi: inlined into `snap_direction`, a powi would be computed for every chart (speculatively).
    let cells = pow2(-spacing_log2);
    // The angle without libm (`atan2_turns`, within 2·2^-53 turns of the exact one), kept unless it lies within
    // TURN_GUARD of a cell boundary: libm's path below is then within 1.68·2^-53 turns of the exact angle,
    // so it rounds to the same cell (`docs/proofs/float_safety.md` §2, "The turn cell without libm"). Near a
    // boundary, for grids finer than 2^-42, and at (0, 0) or non-finite points, libm decides, as before.
    if (-42..=0).contains(&spacing_log2)
        && let Some(turns) = atan2_turns(y, x)
    {
        let t = turns * cells;
        let k = (t + ROUNDER) - ROUNDER;
        if (t - k).abs() <= 0.5 - guard * cells {
            return (k + [0.0, cells][usize::from(k < 0.0)]) as u64;
        }
    }
    turn_cell_by_libm(x, y, cells)
}

/// How far (in turns) the angle without libm must lie from a cell boundary for its cell to be kept: 2^-44, far
/// above the two paths' errors together (3.16·2^-53 turns), and below 2^-20 of a cell on grids up to 2^-24 turns.
const TURN_GUARD: f64 = 5.684341886080802e-14; // 2^-44

/// [`turn_cell`] by libm's atan2, with `cells` = 2^-s: the definition of the cell.
#[inline(never)]
fn turn_cell_by_libm(x: f64, y: f64, cells: f64) -> u64 {
    // atan2 ∈ [−π, π], so k ∈ [−N/2, N/2]; the index wraps so that −½ turn and +½ turn are one cell. The
    // rounding and the wrap are `round_ties_even` and `rem_euclid(N)` exactly (k is an integer in (−N, N)),
    // without their library calls.
    let k = round_to_grid(y.atan2(x) / TAU * cells, 0);
    (if k < 0.0 { k + cells } else { k }) as u64
}

/// The cell of the angle `turns` (in turns, |`turns`| ≤ 1) on the turn grid of spacing 2^`spacing_log2` turns,
/// −50 ≤ `spacing_log2` ≤ 0: round(turns·N) mod N, N = 2^-s, ties to even, computed exactly (the scaling is by
/// a power of two and |turns·N| ≤ 2^50 < 2^51, where adding and removing 1.5·2^52 rounds exactly). The circle's
/// releases that know their angle in turns (the input's angle plus the drawn offset) snap it here, without
/// forming the rotated point and taking its angle again (`docs/proofs/float_safety.md` §4, "The circle by its
/// angle"). A NaN angle gives cell 0.
#[inline]
pub fn turn_cell_of_turns(turns: f64, spacing_log2: i32) -> u64 {
    debug_assert!((-50..=0).contains(&spacing_log2) && (turns.is_nan() || turns.abs() <= 1.0));
    let cells = pow2(-spacing_log2);
    let k = (turns * cells + ROUNDER) - ROUNDER;
    // k ∈ [−N, N]: one wrap from each side, by selects (the sign of an offset is a fair coin).
    let k = k + [0.0, cells][usize::from(k < 0.0)];
    let k = k - [0.0, cells][usize::from(k >= cells)];
    k as u64
}

/// The cell of the angle hi + lo turns (a double-double, |hi| ≤ 1, |lo| ≤ ulp(hi)/2) on the turn grid of
/// spacing 2^`spacing_log2` turns, −50 ≤ `spacing_log2` ≤ −2: the nearest multiple of the spacing to the real
/// hi + lo, ties to even ([`round_to_grid_dd`], exact), as an index mod N = 2^-`spacing_log2`. The exact cell of
/// the double-double angle: the circle's relative-error mean rounds its release here
/// (`docs/proofs/float_safety.md` §3i, "The circle").
#[inline]
pub fn turn_cell_of_turns_dd(hi: f64, lo: f64, spacing_log2: i32) -> u64 {
    debug_assert!((-50..=-2).contains(&spacing_log2) && hi.abs() <= 1.0);
    let cells = pow2(-spacing_log2);
    // A multiple of 2^s times 2^-s: an integer in [−N, N], exactly.
    let k = round_to_grid_dd(hi, lo, spacing_log2) * cells;
    let k = k + [0.0, cells][usize::from(k < 0.0)];
    let k = k - [0.0, cells][usize::from(k >= cells)];
    k as u64
}

/// The representative of turn cell `k`: (cos 2πk/N, sin 2πk/N) with N = 2^-`spacing_log2`, within 16·2^-53 of
/// libm's (`sample::trig::sin_cos_turns`: a table and short polynomials, not libm, which cost a quarter of a
/// circle release). Any deterministic function of k would do for privacy; this one is also accurate.
#[inline]
pub fn turn_representative(k: u64, spacing_log2: i32) -> [f64; 2] {
    let (s, c) = sin_cos_turns(k as f64 * pow2(spacing_log2));
    [c, s]
}

/// Rounds the point (x, y) of the circle onto the turn grid (the representative of its cell).
#[inline]
pub fn snap_turns(v: &mut [f64], spacing_log2: i32) {
    debug_assert_eq!(v.len(), 2);
    let k = turn_cell(v[0], v[1], spacing_log2);
    v.copy_from_slice(&turn_representative(k, spacing_log2));
}

/// The face of `v` in the cube map: the index of the largest |vᵢ| (lowest index on ties).
#[inline]
pub fn cube_face(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, x) in v.iter().enumerate().skip(1) {
        if x.abs() > v[best].abs() {
            best = i;
        }
    }
    best
}

/// Rounds the point `v` of S^{n−1} (any positive multiple of it: the cube map is scale-invariant) onto the
/// cube-map grid of spacing 2^`spacing_log2`, in place: the representative of its cell.
#[inline]
pub fn snap_cube_map(v: &mut [f64], spacing_log2: i32) {
    if FACE_ROUNDS_TO_ONE.contains(&spacing_log2) {
        match <&mut [f64; 3]>::try_from(&mut *v) {
            // S², the common case: the same code with the length known, unrolled.
            Ok(v3) => snap_cube_map_in_range(v3, spacing_log2),
            Err(_) => snap_cube_map_in_range(v, spacing_log2),
        }
    } else {
        let face = cube_face(v);
        let top = v[face];
        let inv = 1.0 / top.abs();
        for x in v.iter_mut() {
            *x = round_to_grid(*x * inv, spacing_log2);
        }
        v[face] = top.signum();
        normalize_in_index_order(v);
    }
}

/// [`snap_cube_map`] for spacings in [`FACE_ROUNDS_TO_ONE`].
#[inline(always)]
fn snap_cube_map_in_range(v: &mut [f64], spacing_log2: i32) {
    // |x/top|·2^-s < 2^51, so the rounding needs no range check; folding 2^-s into the reciprocal gives the
    // same bits (scaling by powers of two commutes with rounding here). The face needs no index: its own
    // coordinate rounds to exactly its sign (see FACE_ROUNDS_TO_ONE), and only |top| is divided by, whose value
    // the running maximum gives without the face search's unpredictable branches. |u| ≤ 1 and ±1 lie on the
    // grid, so a rounded coordinate stays in [−1, 1].
    let top = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let (up, down) = (pow2(-spacing_log2), pow2(spacing_log2));
    let inv = up / top;
    for x in v.iter_mut() {
        *x = (((*x * inv).abs() + ROUNDER) - ROUNDER).copysign(*x) * down;
    }
    normalize_in_index_order(v);
}

/// a + b exactly as (hi, lo) (Knuth's TwoSum).
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let hi = a + b;
    let bb = hi - a;
    (hi, (a - (hi - bb)) + (b - bb))
}

/// The nearest multiple of 2^`spacing_log2` to the real number hi + lo (|lo| ≤ ulp(hi)/2, as TwoSum leaves it),
/// ties to even, exactly: hi is rounded (exact, [`round_to_grid`]), the remainder r = hi − k is exact (two
/// multiples of the smaller of ulp(hi) and 2^s, at most 2^s/2 apart), and r + lo, formed exactly by TwoSum, is
/// compared with ±2^s/2. Requires |hi| ≤ 1 and −52 ≤ s ≤ −2: then |lo| ≤ 2^-53 ≤ 2^s/2, so the nearest multiple
/// is k or k ± 2^s, a double; on a finer grid the multiples near 1 are not doubles and one correction does not
/// reach them.
#[inline]
pub fn round_to_grid_dd(hi: f64, lo: f64, spacing_log2: i32) -> f64 {
    debug_assert!((-52..=-2).contains(&spacing_log2), "2^{spacing_log2}");
    let h = pow2(spacing_log2);
    let k = round_to_grid(hi, spacing_log2);
    let (rh, rl) = two_sum(hi - k, lo);
    let half = 0.5 * h;
    let above = rh > half || (rh == half && rl > 0.0);
    let below = rh < -half || (rh == -half && rl < 0.0);
    // A tie of the real value (r + lo = ±half exactly) goes to the even multiple of 2^s.
    let tie = rl == 0.0 && rh.abs() == half;
    let odd = {
        let j = k * pow2(-spacing_log2);
        round_to_grid(0.5 * j, 0) * 2.0 != j
    };
    let (tie_up, tie_down) = (tie && rh > 0.0 && odd, tie && rh < 0.0 && odd);
    if above || tie_up {
        k + h
    } else if below || tie_down {
        k - h
    } else {
        k
    }
}

/// (a_hi + a_lo)/(b_hi + b_lo) as a double-double: the f64 quotient q₁ and one correction r/b_hi from the
/// residual r ≈ a − b·q₁ (b_hi·q₁ exactly by fma and TwoSum). For |lo| ≤ u|hi| (TwoSum's pairs), u = 2^-53,
/// 2^-10 ≤ |b_hi| ≤ 4 and a_hi = 0 or |a_hi| ≥ 2^-900: within 15.01·u²·|q| + 6·2^-1075/|b_hi| of q = a/b;
/// for smaller |a_hi| within 2^-850 (`docs/proofs/float_safety.md` §3i, Lemma D, derived line by line for this
/// code; checked against exact rational arithmetic in the tests). So within 2^-102 for |a| ≤ |b|.
#[inline]
fn div_dd(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let q1 = a.0 / b.0;
    // r = a − b·q1, exactly up to its last rounding: b_hi·q1 by fma, the rest summed.
    let p = b.0 * q1;
    let pe = b.0.mul_add(q1, -p);
    let (s, se) = two_sum(a.0, -p);
    let r = s + (se - pe + a.1 - b.1 * q1);
    let q2 = r / b.0;
    two_sum(q1, q2)
}

/// Rounds the point z = hi + lo of S^{n−1} (any positive multiple: the chart is scale-invariant), given as
/// exact double-double coordinates (each (hiᵢ, loᵢ) from TwoSum), onto the cube-map grid of spacing
/// 2^`spacing_log2`, writing the cell's representative into `out`: the same bits [`snap_cube_map`] gives for
/// that cell. The face is the largest |zᵢ| compared as (hi, lo) pairs (lowest index on ties), the chart
/// coordinates zⱼ/|z_face| are double-double quotients (within 2^-102), and each is rounded to the grid exactly
/// ([`round_to_grid_dd`]): the cell is the exact cell of a point within 2^-99·√n of z/|z_face| in the chart
/// (`docs/proofs/float_safety.md` §3i). Requires −52 ≤ s ≤ −2 (the relative-error releases' plans never go
/// finer, `crate::privacy::float_safety::DD_SNAP_FINEST_LOG2`).
pub fn snap_cube_map_dd(hi: &[f64], lo: &[f64], spacing_log2: i32, out: &mut [f64]) {
    let n = hi.len();
    debug_assert!(lo.len() == n && out.len() == n);
    let abs = |i: usize| if hi[i] < 0.0 { (-hi[i], -lo[i]) } else { (hi[i], lo[i]) };
    let mut face = 0;
    for i in 1..n {
        let (a, b) = (abs(i), abs(face));
        if a.0 > b.0 || (a.0 == b.0 && a.1 > b.1) {
            face = i;
        }
    }
    let top = abs(face);
    for j in 0..n {
        out[j] = if j == face {
            1.0f64.copysign(hi[j])
        } else {
            let (qh, ql) = div_dd((hi[j], lo[j]), top);
            // |q| ≤ 1 + 2^-102: beyond ±1 it rounds to ±1, a grid point.
            round_to_grid_dd(qh, ql, spacing_log2).clamp(-1.0, 1.0)
        };
    }
    normalize_in_index_order(out);
}

/// Divides the rounded chart values by their norm. The norm is summed in index order over the chart values
/// alone, so a cell whose representative ties two faces gives the same bits from either face.
#[inline(always)]
fn normalize_in_index_order(v: &mut [f64]) {
    let inv_norm = 1.0 / v.iter().map(|u| u * u).sum::<f64>().sqrt();
    for x in v.iter_mut() {
        *x *= inv_norm;
    }
}

/// Spacings 2^s for which the face's own chart coordinate, computed as x·(2^-s/|x|) and rounded, is exactly
/// ±1 (its sign) with no special case: both products are correctly rounded, so the scaled value is 2^-s within
/// 2^-s·2^-52·(1 + 2^-53) ≤ 2^-2 (s ≥ −50), which rounds to the integer 2^-s (s ≤ −1), i.e. to ±1 once scaled
/// back. A coordinate that ties with the face's magnitude does the same, as the face search's
/// override gave it. (The tests compare with the override, bit for bit, ties included.)
const FACE_ROUNDS_TO_ONE: std::ops::RangeInclusive<i32> = -50..=-1;

/// Rounds the rotation `q` onto the quaternion cube-map grid of spacing 2^`spacing_log2`: among ±q, the one
/// whose largest-magnitude component (order x, y, z, w; lowest on ties) is positive, snapped on S³.
///
/// Bit for bit [`snap_cube_map`] on (x, y, z, w) followed by the sign rule, written for four components with
/// selects instead of branches (the face of a noisy rotation is unpredictable, and mispredicted branches
/// cost more than the arithmetic); tested against the general path.
#[inline]
pub fn snap_quaternion(q: &UnitQuaternion<f64>, spacing_log2: i32) -> UnitQuaternion<f64> {
    let mut c: [f64; 4] = q.coords.into();
    if !FACE_ROUNDS_TO_ONE.contains(&spacing_log2) {
        // Beyond the rounding trick's range: the general path.
        snap_cube_map(&mut c, spacing_log2);
        if c[cube_face(&c)] < 0.0 {
            c.iter_mut().for_each(|x| *x = -*x);
        }
        return UnitQuaternion::new_unchecked(Quaternion::new(c[3], c[0], c[1], c[2]));
    }
    // Scaling by powers of two commutes with rounding (no overflow or underflow here), so folding 2^-s into
    // the face's reciprocal gives the same bits as round_to_grid(x / |top|, s); the face's own coordinate
    // rounds to its sign (FACE_ROUNDS_TO_ONE), so only |top| is needed, not the face's index: the division
    // starts after three max operations instead of a search and an indexed load.
    let a = c.map(f64::abs);
    let top = a[0].max(a[1]).max(a[2].max(a[3]));
    let (up, down) = (pow2(-spacing_log2), pow2(spacing_log2));
    let inv = up / top;
    let u = c.map(|x| (((x * inv).abs() + ROUNDER) - ROUNDER).copysign(x) * down);
    // Grid values are at least 2^s apart, far more than an ulp, so the largest |uᵢ| (lowest index on ties) is
    // the largest after normalising: the sign rule can be read before it.
    let lead = face_of_four(u.map(f64::abs));
    let sign = if u[lead] < 0.0 { -1.0 } else { 1.0 };
    let scale = sign / (((u[0] * u[0] + u[1] * u[1]) + u[2] * u[2]) + u[3] * u[3]).sqrt();
    UnitQuaternion::new_unchecked(Quaternion::new(u[3] * scale, u[0] * scale, u[1] * scale, u[2] * scale))
}

/// [`cube_face`] for four magnitudes, without branches.
#[inline]
fn face_of_four(a: [f64; 4]) -> usize {
    let (mut face, mut top) = (0usize, a[0]);
    for (i, &x) in a.iter().enumerate().skip(1) {
        let above = (x > top) as usize;
        face += above * (i - face);
        top = top.max(x);
    }
    face
}

/// Rounds a point of S^{n−1} in place onto `grid` (turns for the circle, the cube map otherwise).
///
/// # Panics
/// If `grid` is a quaternion grid (use [`snap_quaternion`]), a tangent-plane grid (which needs its
/// mechanism's reference point: `TangentPlanarLaplace::snap`) or a log-domain grid (SPD matrices).
#[inline]
pub fn snap_direction(grid: Grid, v: &mut [f64]) {
    match grid.chart {
        Chart::Turns => snap_turns(v, grid.spacing_log2),
        Chart::CubeMap => snap_cube_map(v, grid.spacing_log2),
        Chart::QuaternionCubeMap => panic!("a quaternion grid applied to a direction"),
        Chart::TangentPlane => panic!("a tangent-plane grid applied without its reference point"),
        Chart::LogDomain | Chart::SpdLogAtCenter | Chart::Embedding => {
            panic!("a coordinate grid applied to a direction")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn fast_rounding_equals_round_ties_even() {
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(5);
        for k in [-60, -52, -51, -50, -30, -21, -1, 0, 3] {
            for _ in 0..20_000 {
                let u: f64 = rng.random_range(-1.0..1.0) * if rng.random::<bool>() { 1.0 } else { 1e-9 };
                let scale = 2f64.powi(-k);
                let want = (u * scale).round_ties_even() / scale;
                assert_eq!(round_to_grid(u, k).to_bits(), want.to_bits(), "{u} at 2^{k}");
            }
            for u in [0.0, -0.0, 0.5, -0.5, 1.5 * 2f64.powi(k), -2.5 * 2f64.powi(k), 1.0, -1.0] {
                let scale = 2f64.powi(-k);
                assert_eq!(round_to_grid(u, k).to_bits(), ((u * scale).round_ties_even() / scale).to_bits());
            }
        }
    }

    #[test]
    fn rounding_is_exact_and_idempotent() {
        assert_eq!(round_to_grid(0.3, -2), 0.25);
        assert_eq!(round_to_grid(0.375, -2), 0.5); // tie to even: 1.5 → 2
        assert_eq!(round_to_grid(-1.0, -21), -1.0);
        let u = round_to_grid(0.123456789, -21);
        assert_eq!(round_to_grid(u, -21), u);
        assert_eq!(u * 2f64.powi(21), (u * 2f64.powi(21)).round());
    }

    #[test]
    fn turn_cells_are_the_rounded_wrapped_angle() {
        // The library calls the fast form replaces, at every spacing the turn grid takes and at the half turn.
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(8);
        for s in [-1, -2, -10, -23, -40, -42, -43, -50] {
            let cells = 2f64.powi(-s);
            let mut points: Vec<(f64, f64)> =
                (0..20_000).map(|_| (rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))).collect();
            points.extend([(-1.0, 0.0), (-1.0, -0.0), (-1.0, 1e-300), (-1.0, -1e-300), (1.0, -0.0), (0.0, -1.0)]);
            for (x, y) in points {
                let want = (y.atan2(x) / TAU * cells).round_ties_even().rem_euclid(cells) as u64;
                assert_eq!(turn_cell(x, y, s), want, "({x}, {y}) at 2^{s}");
            }
        }
    }

    /// Points on the cell boundaries (the half-integer turns (k + ½)·2^s, rotated by a few ulps either way), where
    /// the angle without libm must give way to libm's: the cells equal libm's path bit for bit at every spacing,
    /// and most of these points take the fallback. Negative control: without the guard (0 turns) the fast angle
    /// alone disagrees with libm's on some of them.
    #[test]
    fn turn_cells_at_the_boundaries_are_libms() {
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(36);
        let libm = |x: f64, y: f64, s: i32| {
            let cells = 2f64.powi(-s);
            (y.atan2(x) / TAU * cells).round_ties_even().rem_euclid(cells) as u64
        };
        let mut unguarded_misses = 0;
        for s in [-2, -10, -24, -30, -42] {
            let cells = 2f64.powi(-s);
            for _ in 0..20_000 {
                let k = (rng.random::<f64>() * cells).floor();
                let angle = (k + 0.5) / cells * TAU + rng.random_range(-8..=8) as f64 * f64::EPSILON;
                for (x, y) in [(angle.cos(), angle.sin()), (3.0 * angle.cos(), 3.0 * angle.sin())] {
                    assert_eq!(turn_cell(x, y, s), libm(x, y, s), "({x}, {y}) at 2^{s}");
                    unguarded_misses += usize::from(turn_cell_guarded(x, y, s, 0.0) != libm(x, y, s));
                }
            }
        }
        eprintln!("turn cells at the boundaries: {unguarded_misses} of 200000 differ from libm's without the guard");
        assert!(unguarded_misses > 0, "control: the unguarded fast angle was never caught");
    }

    #[test]
    fn turn_cells_wrap_and_representatives_reproduce_their_cell() {
        let s = -10;
        // Half a turn from either side is one cell.
        assert_eq!(turn_cell(-1.0, -1e-300, s), 512);
        assert_eq!(turn_cell(-1.0, 1e-300, s), 512);
        assert_eq!(turn_cell(1.0, 0.0, s), 0);
        assert_eq!(turn_cell(0.0, 1.0, s), 256);
        for k in [0, 1, 255, 256, 511, 1023] {
            let r = turn_representative(k, s);
            assert_eq!(turn_cell(r[0], r[1], s), k);
            let mut v = r;
            snap_turns(&mut v, s);
            assert_eq!(v, r);
        }
    }

    #[test]
    fn cube_map_snaps_to_a_fixed_point_of_its_cell() {
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(3);
        for n in [3usize, 4, 7] {
            for _ in 0..2000 {
                let mut v: Vec<f64> = (0..n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
                let before = v.clone();
                snap_cube_map(&mut v, -8);
                let norm: f64 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                assert!((norm - 1.0).abs() < 1e-15);
                let once = v.clone();
                snap_cube_map(&mut v, -8);
                assert_eq!(v, once, "snapping is idempotent (bit for bit)");
                // An independent reconstruction of the cell: face, sign and rounded chart coordinates.
                let face = cube_face(&before);
                for (i, (&b, &o)) in before.iter().zip(&once).enumerate() {
                    if i != face {
                        let u = (b / before[face].abs() * 256.0).round_ties_even() / 256.0;
                        assert_eq!(round_to_grid(o / once[face].abs(), -8), u);
                    }
                }
                let norm: f64 = before.iter().map(|x| x * x).sum::<f64>().sqrt();
                let moved: f64 = once.iter().zip(&before).map(|(a, b)| (a - b / norm).powi(2)).sum::<f64>().sqrt();
                assert!(moved < 2f64.powi(-8) * (n as f64).sqrt());
            }
        }
    }

    #[test]
    fn quaternions_snap_the_same_for_q_and_minus_q() {
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(4);
        for _ in 0..2000 {
            let q = crate::sample::sphere::uniform_s3(&mut rng);
            let a = snap_quaternion(&q, -12);
            let b = snap_quaternion(&UnitQuaternion::new_unchecked(-q.into_inner()), -12);
            assert_eq!(a.coords, b.coords);
            assert_eq!(snap_quaternion(&a, -12).coords, a.coords);
            assert!(a.angle_to(&q) < 1e-3);
        }
    }

    #[test]
    fn quaternion_snap_equals_the_general_cube_map_bit_for_bit() {
        let reference = |q: &UnitQuaternion<f64>, k: i32| {
            let mut c: [f64; 4] = q.coords.into();
            snap_cube_map(&mut c, k);
            if c[cube_face(&c)] < 0.0 {
                c.iter_mut().for_each(|x| *x = -*x);
            }
            c
        };
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(9);
        let mut cases: Vec<Quaternion<f64>> = (0..200_000)
            .map(|_| {
                let mut g = || rng.random::<f64>() * 2.0 - 1.0;
                Quaternion::new(g(), g(), g(), g())
            })
            .collect();
        // Ties between faces, signed zeros, edges and corners of the cube.
        for w in [0.5, -0.5, 0.0, -0.0, 1.0] {
            for x in [0.5, -0.5, 0.0, -0.0] {
                cases.push(Quaternion::new(w, x, 0.5, -0.5));
                cases.push(Quaternion::new(w, x, -0.5, 0.0));
            }
        }
        for k in [1, 0, -1, -2, -4, -23, -30, -50, -51, -60] {
            for q in &cases {
                let q = UnitQuaternion::new_normalize(*q);
                let fast: [f64; 4] = snap_quaternion(&q, k).coords.into();
                let want = reference(&q, k);
                assert_eq!(fast.map(f64::to_bits), want.map(f64::to_bits), "{q:?} at 2^{k}");
            }
        }
    }

    #[test]
    fn cube_map_snap_equals_rounding_each_chart_coordinate() {
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(10);
        for n in [2usize, 3, 5] {
            for k in [3, 0, -1, -2, -4, -24, -50, -51, -60] {
                for j in 0..20_000 {
                    let mut v: Vec<f64> = (0..n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
                    if j % 4 == 0 {
                        // Two coordinates of equal magnitude, of either sign (often the largest two).
                        let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
                        v[a] = if rng.random::<bool>() { v[b] } else { -v[b] };
                    }
                    let face = cube_face(&v);
                    let inv = 1.0 / v[face].abs();
                    let mut want: Vec<f64> = v
                        .iter()
                        .enumerate()
                        .map(|(i, &x)| if i == face { v[face].signum() } else { round_to_grid(x * inv, k) })
                        .collect();
                    let norm = 1.0 / want.iter().map(|u| u * u).sum::<f64>().sqrt();
                    want.iter_mut().for_each(|x| *x *= norm);
                    let mut got = v.clone();
                    snap_cube_map(&mut got, k);
                    assert_eq!(
                        got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    );
                }
            }
        }
    }

    /// x = m·2^e exactly, as the integer x·2^1100 (every finite double with |x| < 2^-26·2^1024 is one).
    fn scaled_exactly(x: f64) -> num_bigint::BigInt {
        use num_bigint::BigInt;
        if x == 0.0 {
            return BigInt::from(0);
        }
        let bits = x.abs().to_bits();
        let (biased, frac) = ((bits >> 52) as i64, bits & ((1u64 << 52) - 1));
        let (m, e) = if biased == 0 { (frac, -1074) } else { (frac | (1u64 << 52), biased - 1075) };
        let v = BigInt::from(m) << ((e + 1100) as usize);
        if x < 0.0 { -v } else { v }
    }

    /// n/d for non-negative integers, to about 2^-60 relative (both shifted to at most 62 bits).
    fn big_ratio(n: &num_bigint::BigInt, d: &num_bigint::BigInt) -> f64 {
        let shift = (n.bits().max(d.bits()) as i64 - 62).max(0) as usize;
        let (n, d) = (i64::try_from(&(n >> shift)).unwrap(), i64::try_from(&(d >> shift)).unwrap());
        n as f64 / d as f64
    }

    /// |ĥ + l̂ − a/b| against |a/b| exactly (in units of u² = 2^-106) and, separately, in absolute terms
    /// (in units of 2^-850), from the integers x·2^1100: |q̂·b − a|/|a| and |q̂·b − a|/|b|.
    fn div_dd_errors(a: (f64, f64), b: (f64, f64), q: (f64, f64)) -> (f64, f64) {
        let (a, b, q) = (
            scaled_exactly(a.0) + scaled_exactly(a.1),
            scaled_exactly(b.0) + scaled_exactly(b.1),
            scaled_exactly(q.0) + scaled_exactly(q.1),
        );
        let residual = &q * &b - (&a << 1100usize);
        let residual = if residual.sign() == num_bigint::Sign::Minus { -residual } else { residual };
        let scale = num_bigint::BigInt::from(1) << 1100usize;
        let abs = |x: &num_bigint::BigInt| if x.sign() == num_bigint::Sign::Minus { -x } else { x.clone() };
        let relative = if a.sign() == num_bigint::Sign::NoSign {
            if residual.sign() == num_bigint::Sign::NoSign { 0.0 } else { f64::INFINITY }
        } else {
            big_ratio(&(&residual << 106usize), &(abs(&a) * &scale))
        };
        (relative, big_ratio(&(&residual << 850usize), &(abs(&b) * &scale)))
    }

    /// ulp(x)/2 for a finite nonzero normal x.
    fn half_ulp(x: f64) -> f64 {
        let a = x.abs();
        0.5 * (f64::from_bits(a.to_bits() + 1) - a)
    }

    /// Lemma D of `docs/proofs/float_safety.md` §3i, measured: the double-double quotient is within
    /// 15.01·u²·|q| of the exact a/b (exact rational arithmetic in big integers) on random and adversarial
    /// inputs — divisors at both ends of a binade, remainders at ±ulp/2 and of opposite signs, quotients at
    /// f64 rounding midpoints, |a| = |b|, tiny and subnormal numerators — and the f64 quotient alone (the
    /// correction dropped) is not (the control).
    #[test]
    fn double_double_division_is_within_its_derived_bound() {
        let mut rng = crate::sample::rng::seeded_rng_for_experiments(37);
        let (mut worst, mut worst_abs_tiny, mut control_worst) = (0.0f64, 0.0f64, 0.0f64);
        let mut cases: Vec<((f64, f64), (f64, f64))> = Vec::new();
        let edge = |rng: &mut crate::sample::rng::ReleaseRng, x: f64| -> f64 {
            let h = half_ulp(x);
            match rng.random_range(0..4) {
                0 => h,
                1 => -h,
                2 => 0.0,
                _ => rng.random_range(-1.0..1.0) * h,
            }
        };
        for j in 0..400_000 {
            // The divisor: anywhere in [2^-2, 2], or at a binade's ends (the largest relative ulps).
            let b0: f64 = match j % 3 {
                0 => rng.random_range(0.25..2.0),
                1 => 1.0 + rng.random_range(0..64) as f64 * 2f64.powi(-52),
                _ => 1.0 - rng.random_range(1..64) as f64 * 2f64.powi(-53),
            };
            let b0 = if rng.random::<bool>() { -b0 } else { b0 };
            let b1 = edge(&mut rng, b0);
            // The numerator: |a| ≤ |b|, often at a midpoint of the f64 quotient's rounding, or ±b itself.
            let a0 = match j % 4 {
                0 => b0 * rng.random_range(-1.0..1.0),
                1 => {
                    let t: f64 = rng.random_range(0.5..1.0);
                    let mid = t + half_ulp(t);
                    (b0 * mid).clamp(-b0.abs(), b0.abs())
                }
                2 => {
                    if rng.random::<bool>() {
                        b0
                    } else {
                        -b0
                    }
                }
                _ => b0 * rng.random_range(-1.0..1.0) * 2f64.powi(-rng.random_range(0..60)),
            };
            let a1 = if a0 == 0.0 { 0.0 } else { edge(&mut rng, a0) };
            cases.push(((a0, a1), (b0, b1)));
        }
        for &a0 in &[1e-300, -3.5e-310, 5e-324, 2f64.powi(-900), 2f64.powi(-901), 0.0] {
            for &b0 in &[0.25, 0.7, 1.0 - 2f64.powi(-53), 1.0, 1.5, 2.0 - 2f64.powi(-52)] {
                for &b1 in &[0.0, half_ulp(b0), -half_ulp(b0), 1e-320] {
                    cases.push(((a0, 0.0), (b0, b1)));
                }
            }
        }
        for (a, b) in cases {
            let q = div_dd(a, b);
            let (relative, absolute) = div_dd_errors(a, b, q);
            if a.0 == 0.0 || a.0.abs() >= 2f64.powi(-900) {
                // The underflow terms (≤ 6·2^-1075/|b_hi|) are far below 10^-3 u²|q| once |a| ≥ 2^-900·|b|/4.
                assert!(relative <= 15.01, "{a:?}/{b:?}: {relative} u² relative");
                worst = worst.max(relative);
            } else {
                assert!(absolute <= 1.0, "{a:?}/{b:?}: {absolute}·2^-850 absolute");
                worst_abs_tiny = worst_abs_tiny.max(absolute);
            }
            if a.0.abs() >= 2f64.powi(-900) {
                let (control, _) = div_dd_errors(a, b, (a.0 / b.0, 0.0));
                control_worst = control_worst.max(control);
            }
        }
        eprintln!(
            "double-double division: worst {worst:.3} u² relative (bound 15.01), tiny numerators {worst_abs_tiny:.3e}·2^-850; \
             the f64 quotient alone {control_worst:.3e} u²"
        );
        assert!(worst > 1.0, "the adversarial cases reach {worst} u² only");
        assert!(control_worst > 1e15, "control: the f64 quotient alone errs by {control_worst} u² only");
    }
}
