//! Uniform points on S² (random axes: Archimedes' uniform height, read at full precision from the nearer
//! pole) and S³ (Haar-random rotations, Marsaglia's (1972) method), with no trigonometry; and points of
//! S^{n−1} at a given angle from a centre in a uniformly random direction, for the rotationally symmetric laws on spheres (on S², from one 64-bit
//! word: a uniform point of the circle mapped into the plane ⊥ μ by a branch-free orthonormal basis; on the
//! circle, μ rotated by ±θ with a fair sign; otherwise n − 1 Gaussians and a Householder reflection).

use nalgebra::{DVector, Quaternion, UnitQuaternion, Vector3};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// A uniform unit vector on S² (Archimedes: the height z is uniform on [−1, 1] and independent of the uniform
/// azimuth). The height is read at full precision from whichever pole it is nearer: a fair bit picks the
/// pole, x ∈ (0, ½] is read by [`crate::sample::uniform::unit`], the distance to that pole is 2x, and the
/// radius of the circle of latitude is √((1 − z)(1 + z)) = 2√(x(1 − x)), with no cancellation. So the point
/// is within a few units of 2^-53 of the exact point of the real uniforms read, everywhere on the sphere
/// (`docs/proofs/float_safety.md` §3f). Marsaglia's (1972) disk method, used until then, maps the rim of the
/// disk onto a pole with an unbounded derivative: a 2^-52 lattice step there moved the point by up to ~2^-27.
#[inline]
pub fn uniform_s2<R: Rng + ?Sized>(rng: &mut R) -> Vector3<f64> {
    let (c, s) = uniform_circle(rng);
    let x = 0.5 * crate::sample::uniform::unit(rng);
    let r = 2.0 * (x * (1.0 - x)).sqrt();
    let z = 1.0 - 2.0 * x;
    let z = if rng.random::<bool>() { z } else { -z };
    Vector3::new(r * c, r * s, z)
}

#[inline]
fn point_in_unit_disk<R: Rng + ?Sized>(rng: &mut R) -> (f64, f64, f64) {
    loop {
        let u = 2.0 * rng.random::<f64>() - 1.0;
        let v = 2.0 * rng.random::<f64>() - 1.0;
        let s = u * u + v * v;
        if s < 1.0 && s > 0.0 {
            return (u, v, s);
        }
    }
}

/// A uniform unit quaternion on S³, i.e. a Haar-distributed rotation.
#[inline]
pub fn uniform_s3<R: Rng + ?Sized>(rng: &mut R) -> UnitQuaternion<f64> {
    let (x1, x2, s1) = point_in_unit_disk(rng);
    let (x3, x4, s2) = point_in_unit_disk(rng);
    let f = ((1.0 - s1) / s2).sqrt();
    UnitQuaternion::new_unchecked(Quaternion::new(x1, x2, x3 * f, x4 * f))
}

/// The point cos θ·μ + sin θ·v of S^{n−1}, with v uniform on the unit sphere orthogonal to the unit vector `mu`:
/// a uniform unit vector of R^{n−1} (normalised Gaussians) carried onto μ^⊥ by a Householder reflection with
/// its sign chosen so that nothing is ill-conditioned. O(n), no n×n matrix, no special case at the poles. On S²
/// (n = 3), v is a uniform point of the circle ([`uniform_circle`]) in an orthonormal basis
/// of the plane ⊥ μ ([`s2_point_at_angle`]), with no Gaussians and no rejection; on the circle (n = 2),
/// v = ±μ^⊥ with a fair sign (one random bit).
pub fn point_at_angle<R: Rng + ?Sized>(mu: &DVector<f64>, cos: f64, sin: f64, rng: &mut R) -> DVector<f64> {
    let mut out = DVector::zeros(mu.len());
    point_at_angle_into(mu.as_slice(), cos, sin, out.as_mut_slice(), rng);
    out
}

/// [`point_at_angle`] written into `out` (same length as `mu`), without allocating.
#[inline(always)]
pub fn point_at_angle_into<R: Rng + ?Sized>(mu: &[f64], cos: f64, sin: f64, out: &mut [f64], rng: &mut R) {
    debug_assert_eq!(mu.len(), out.len());
    if let (&[x, y, z], [o0, o1, o2]) = (mu, &mut *out) {
        let p = s2_point_at_angle([x, y, z], cos, sin, uniform_circle(rng));
        (*o0, *o1, *o2) = (p[0], p[1], p[2]);
    } else {
        if mu.len() == 2 {
            circle_point_at_angle(mu, cos, sin, out, rng);
        } else {
            point_at_angle_by_reflection(mu, cos, sin, out, rng);
        }
    }
}

/// [`point_at_angle_into`] on the circle (n = 2): μ rotated by ±θ, the sign fair (one random bit), i.e.
/// cos θ·μ + sin θ·v with v = ±(−μ₂, μ₁). One 2×2 rotation: well-conditioned everywhere, a few ulps from the
/// exact point (`docs/proofs/float_safety.md` §4), with the norm of μ to within a few ulps (not renormalised: the
/// circle's float-safe chart, the angle, does not depend on the norm).
///
/// Until issue 20's speed work this drew two Gaussians, projected them orthogonally to μ and normalised twice:
/// the same law, but ill-conditioned when the Gaussian fell nearly along μ, and a quarter of the circle's
/// release time. The recorded releases (`tests/golden`) were recorded again for the change.
#[inline]
fn circle_point_at_angle<R: Rng + ?Sized>(mu: &[f64], cos: f64, sin: f64, out: &mut [f64], rng: &mut R) {
    let sin = if rng.random::<bool>() { sin } else { -sin };
    let (x, y) = (mu[0], mu[1]);
    out[0] = x * cos - y * sin;
    out[1] = y * cos + x * sin;
}

/// The general construction of [`point_at_angle_into`], for n ≥ 4: u = g/‖g‖ with g a standard Gaussian vector
/// in the first n − 1 coordinates (uniform on the unit sphere of e_n^⊥), carried onto μ^⊥ by the Householder
/// reflection that maps e_n to μ: with s = sign(μ_n) and w = μ + s·e_n, −s·R_w sends e_n to μ and e_n^⊥ onto
/// μ^⊥, and v = −s·R_w u = s(k·w − u) with k = 2(μ·u)/‖w‖² = (μ·u)/(1 + |μ_n|). ‖w‖² = 2(1 + |μ_n|) ≥ 2, so
/// nothing is ill-conditioned anywhere on the sphere. n − 1 Gaussians and two passes; the result has unit norm
/// to within a few ulps (it is not renormalised: the float-safe release's cube-map chart does not depend on the
/// norm).
fn point_at_angle_by_reflection<R: Rng + ?Sized>(mu: &[f64], cos: f64, sin: f64, out: &mut [f64], rng: &mut R) {
    let (&mu_n, head) = mu.split_last().expect("a sphere has n ≥ 2 coordinates");
    let (last, out_head) = out.split_last_mut().expect("out has the length of mu");
    let s = 1.0f64.copysign(mu_n);
    // Depends on μ only: divided while the Gaussians are drawn.
    let inv_w = 1.0 / (1.0 + mu_n.abs());
    loop {
        let (mut gg, mut gm) = (0.0, 0.0);
        for (o, &m) in out_head.iter_mut().zip(head) {
            // Called through the trait, which LLVM inlines here (through `rng.sample` it did not: 7 % slower).
            let g: f64 = StandardNormal.sample(rng);
            *o = g;
            gg += g * g;
            gm += g * m;
        }
        // g = 0 has probability 0; redraw rather than divide by it.
        if gg > 0.0 {
            let r = 1.0 / gg.sqrt();
            let k = r * gm * inv_w;
            let (sk, sr) = (sin * s * k, sin * s * r);
            for (o, &m) in out_head.iter_mut().zip(head) {
                *o = cos * m + (sk * m - sr * *o);
            }
            *last = cos * mu_n + sk * (mu_n + s);
            return;
        }
    }
}

/// cos θ·μ + sin θ·(c·e₁ + s·e₂) on S², where (e₁, e₂) is the orthonormal basis of the plane ⊥ μ of Duff et al.
/// (2017, "Building an orthonormal basis, revisited"): branch-free, one division by 1 + |μ_z| ≥ 1, so no loss of
/// accuracy anywhere on the sphere (±e₁, ±e₃ included). (c, s) = `dir` must be a unit vector.
///
/// A centre whose squared norm is off 1 by more than 4 ulps (a caller's error) is first divided by its norm. The
/// result has unit norm to within a few ulps (cos² + sin² = 1, an orthonormal frame and a unit (c, s), each to
/// within about an ulp) without a final renormalisation.
#[inline(always)]
pub(crate) fn s2_point_at_angle(mu: [f64; 3], cos: f64, sin: f64, dir: (f64, f64)) -> [f64; 3] {
    let ([x, y, z], e1, e2) = s2_frame(mu);
    let (c, s) = dir;
    let (c, s) = (sin * c, sin * s);
    [cos * x + c * e1[0] + s * e2[0], cos * y + c * e1[1] + s * e2[1], cos * z + c * e1[2] + s * e2[2]]
}

/// The centre (normalised if it is off the unit sphere by more than 4 ulps) and the orthonormal tangent frame
/// (e₁, e₂) at it that [`s2_point_at_angle`] combines.
#[inline(always)]
fn s2_frame(mu: [f64; 3]) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let [x, y, z] = mu;
    let (xx, yy) = (x * x, y * y);
    let m2 = xx + yy + z * z;
    // A centre off the unit sphere by more than 4 ulps (a caller's error) is divided by its norm.
    let [x, y, z, xx, yy] = if (m2 - 1.0).abs() <= 4.0 * f64::EPSILON {
        [x, y, z, xx, yy]
    } else {
        let g = inverse_norm(m2);
        let [x, y, z] = [x * g, y * g, z * g];
        [x, y, z, x * x, y * y]
    };
    // e₁ = (1 − σx²/h, −σxy/h, −σx) and e₂ = (−xy/h, σ − y²/h, −y), with σ = sign(z) and h = σ + z (|h| ≥ 1).
    // They depend on μ only, so they are computed while (c, s) is still being drawn, and the output is then two
    // multiply-adds per coordinate away from (c, s).
    let sigma = 1.0f64.copysign(z);
    let a = -1.0 / (sigma + z);
    let b = x * y * a;
    ([x, y, z], [1.0 + sigma * xx * a, sigma * b, -sigma * x], [b, sigma + yy * a, -y])
}

/// Whether `z` is, to the bit, what the S² sampler's last step gives from centre `mu` and z's own
/// coordinates in mu's tangent frame (cos = μ·z, c = e₁·z, s = e₂·z, recombined as
/// [`s2_point_at_angle`] does). The raw f64 pipeline reproduces its own releases far more often than releases
/// built around another centre, even one ulp away: Mironov's reachability attack, used by the auditor's
/// raw-bit mode (`docs/proofs/float_safety.md` §9).
pub fn s2_reproduces(mu: [f64; 3], z: [f64; 3]) -> bool {
    let ([x, y, w], e1, e2) = s2_frame(mu);
    let dot = |e: [f64; 3]| e[0] * z[0] + e[1] * z[1] + e[2] * z[2];
    let (cos, c, s) = (dot([x, y, w]), dot(e1), dot(e2));
    [cos * x + c * e1[0] + s * e2[0], cos * y + c * e1[1] + s * e2[1], cos * w + c * e1[2] + s * e2[2]] == z
}

/// 1/√m2, out of line: the compiler must not compute it speculatively on the hot path (the square root and
/// division would compete with the sampler's own for the divider).
#[cold]
#[inline(never)]
fn inverse_norm(m2: f64) -> f64 {
    1.0 / m2.sqrt()
}

/// A uniform point (cos φ, sin φ) of the unit circle from one 64-bit word, without rejection or branches:
/// φ = 2π(j + f)/512 with j uniform in 0..512 (9 bits) and f uniform in [−1/2, 1/2) (53 bits), computed as a
/// table entry (cos, sin)(2πj/512) rotated by r = 2πf/512, |r| ≤ π/512, whose cosine and sine are short Taylor
/// polynomials (the first omitted terms, r⁷/7! and r⁸/8!, are below 1e-19). The result is within a few 1e-16 of
/// (cos φ, sin φ) and has unit norm to within about 2 ulps.
#[inline(always)]
pub(crate) fn uniform_circle<R: Rng + ?Sized>(rng: &mut R) -> (f64, f64) {
    let bits = rng.next_u64();
    let [cj, sj] = circle_table()[(bits >> 55) as usize];
    // Bits 2..54 as a signed integer in [−2⁵², 2⁵²), scaled to [−π/512, π/512).
    let r = (((bits << 9) as i64) >> 11) as f64 * (CIRCLE_STEP / (1u64 << 53) as f64);
    let r2 = r * r;
    let sin_r = r + r * r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0));
    let cos_r = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 - r2 * (1.0 / 720.0)));
    (cj * cos_r - sj * sin_r, sj * cos_r + cj * sin_r)
}

/// The spacing 2π/512 of [`circle_table`].
const CIRCLE_STEP: f64 = std::f64::consts::PI / 256.0;

/// (cos, sin)(2πj/512) for j = 0..512, computed once: libm's `sin_cos` on the first octant (arguments jπ/256 ≤
/// π/4, rounded by at most 2⁻⁵³ relative), the rest by the circle's exact symmetries.
#[inline(always)]
fn circle_table() -> &'static [[f64; 2]; 512] {
    static TABLE: std::sync::OnceLock<[[f64; 2]; 512]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [[0.0; 2]; 512];
        for j in 0..=64 {
            let (s, c) = (j as f64 * CIRCLE_STEP).sin_cos();
            table[j] = [c, s];
            if j < 64 {
                table[128 - j] = [s, c]; // π/2 − θ
            }
        }
        for j in 128..512 {
            let [c, s] = table[j - 128];
            table[j] = [-s, c]; // θ + π/2
        }
        table
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::rng::seeded_rng_for_experiments;

    #[test]
    fn circle_table_and_uniform_circle_match_libm() {
        let table = circle_table();
        for (j, &[c, s]) in table.iter().enumerate() {
            let (s0, c0) = (j as f64 * CIRCLE_STEP).sin_cos();
            assert!((c - c0).abs() <= 1e-15 && (s - s0).abs() <= 1e-15, "entry {j}: {c}, {s} vs {c0}, {s0}");
        }
        assert_eq!(table[0], [1.0, 0.0]);
        assert_eq!(table[128], [0.0, 1.0]);
        assert_eq!(table[256], [-1.0, 0.0]);
        // Replay the draws: the angle φ = 2π(j + f)/512 from the same bits, against libm.
        let mut rng = seeded_rng_for_experiments(1);
        let mut replay = seeded_rng_for_experiments(1);
        for _ in 0..200_000 {
            let (c, s) = uniform_circle(&mut rng);
            let bits = replay.next_u64();
            let f = (((bits << 9) as i64) >> 11) as f64 / (1u64 << 53) as f64;
            let phi = ((bits >> 55) as f64 + f) * CIRCLE_STEP;
            let (s0, c0) = phi.sin_cos();
            assert!((c - c0).abs() <= 2e-15 && (s - s0).abs() <= 2e-15, "phi {phi}: {c}, {s} vs {c0}, {s0}");
        }
    }

    #[test]
    fn uniform_circle_is_unit_and_covers_each_arc_equally() {
        let mut rng = seeded_rng_for_experiments(2);
        let n = 400_000;
        let mut arcs = [0usize; 16];
        for _ in 0..n {
            let (c, s) = uniform_circle(&mut rng);
            assert!((c.hypot(s) - 1.0).abs() < 5e-16);
            let phi = s.atan2(c).rem_euclid(2.0 * std::f64::consts::PI);
            arcs[((phi / (2.0 * std::f64::consts::PI) * 16.0) as usize).min(15)] += 1;
        }
        // Each sixteenth of the circle has probability 1/16: a 6-sigma band.
        let (mean, sd) = (n as f64 / 16.0, (n as f64 * (1.0 / 16.0) * (15.0 / 16.0)).sqrt());
        for (i, &k) in arcs.iter().enumerate() {
            assert!((k as f64 - mean).abs() < 6.0 * sd, "arc {i}: {k} vs {mean}");
        }
    }

    #[test]
    fn s2_points_are_unit_at_the_given_angle_everywhere_on_the_sphere() {
        let mut rng = seeded_rng_for_experiments(3);
        // The poles (where naive constructions divide by ~0), the sign switch of Duff's basis at z = ±0, and
        // random centres.
        let mut mus: Vec<[f64; 3]> = vec![
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
            [0.6, 0.8, 0.0],
            [0.6, 0.8, -0.0],
            [1e-9, 0.0, -1.0],
        ];
        for _ in 0..2000 {
            let v = uniform_s2(&mut rng);
            mus.push([v.x, v.y, v.z]);
        }
        for mu in &mus {
            for _ in 0..50 {
                let t = 2.0 * rng.random::<f64>();
                let (cos, sin) = (1.0 - t, (t * (2.0 - t)).sqrt());
                let dir = uniform_circle(&mut rng);
                let p = s2_point_at_angle(*mu, cos, sin, dir);
                let norm = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                assert!((norm - 1.0).abs() < 4e-15, "mu {mu:?}: norm {norm}");
                let dot = p[0] * mu[0] + p[1] * mu[1] + p[2] * mu[2];
                assert!((dot - cos).abs() < 4e-15, "mu {mu:?}: cos {dot} vs {cos}");
            }
        }
        // A non-unit centre is normalised first.
        let p = s2_point_at_angle([0.0, 3.0, 4.0], 1.0, 0.0, (1.0, 0.0));
        assert!((p[1] - 0.6).abs() < 1e-15 && (p[2] - 0.8).abs() < 1e-15);
    }
}
