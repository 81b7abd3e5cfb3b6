//! The input pairs an audit tests, per space: pairs at several distances scaled to the claimed ε (so that
//! ε·d ∈ [`SCALES`], where a test has the most power) and the edge cases where implementations break
//! (`docs/audit.md`).
//!
//! - SO(3): the identity against rotations about z, a half-turn (distance π, the cut locus), two half-turns
//!   about different axes, q against −q (the same rotation: d = 0, equal laws claimed), and a generic pair
//!   away from the identity.
//! - S^{n−1} (circle included): the north pole e_n against points along a meridian, the poles (antipodal),
//!   a near-antipodal pair (π − 10⁻⁶), a pair at the south pole and a generic pair.
//! - SPD(k): the identity against exp(tH), an ill-conditioned pair (condition number 10¹²), a near-singular
//!   pair (smallest eigenvalue 10⁻¹²), and isotropic scaling.
//! - ℝ: pairs at 0, at large magnitude (10¹², where the grid of doubles is coarse) and at negative values;
//!   for an (ε, δ) claim, neighbouring values ([`real_neighbour_pairs`]).
//!
//! Every pair's `distance` is computed by the caller's `claim_distance` (the metric of the claim: chordal for
//! VMF, tangent-plane for the planar Laplace, …), never assumed.

use crate::audit::auditor::InputPair;
use crate::space::spd::{congruence, expm, sqrt_and_inv_sqrt};
use nalgebra::{DMatrix, DVector, Quaternion, UnitQuaternion, Vector3};
use std::f64::consts::PI;

/// The values of ε·d at which scaled pairs are placed.
pub const SCALES: [f64; 4] = [0.5, 1.0, 2.0, 4.0];

/// The separation at which a scaled pair with ε·d = `scale` is placed (`scale`/2 rad for a claim of ε = 0).
fn separation(epsilon: f64, scale: f64) -> f64 {
    if epsilon > 0.0 { scale / epsilon } else { 0.5 * scale }
}

fn pair<P>(label: String, x: P, x_prime: P, claim_distance: &dyn Fn(&P, &P) -> f64) -> InputPair<P> {
    let distance = claim_distance(&x, &x_prime);
    InputPair { label, x, x_prime, distance }
}

fn fmt_rad(x: f64) -> String {
    if (x - PI).abs() < 1e-12 { "pi".to_string() } else { format!("{x:.4} rad") }
}

/// Pairs of rotations for a claim of `epsilon` per unit of `claim_distance`.
pub fn so3_pairs(
    epsilon: f64,
    claim_distance: &dyn Fn(&UnitQuaternion<f64>, &UnitQuaternion<f64>) -> f64,
) -> Vec<InputPair<UnitQuaternion<f64>>> {
    let id = UnitQuaternion::identity();
    let about = |axis: Vector3<f64>, angle: f64| UnitQuaternion::from_scaled_axis(axis.normalize() * angle);
    let mut pairs = Vec::new();
    for scale in SCALES {
        let d = separation(epsilon, scale);
        if d < PI {
            pairs.push(pair(
                format!("identity vs rotation by {} about z", fmt_rad(d)),
                id,
                about(Vector3::z(), d),
                claim_distance,
            ));
        }
    }
    // A half-turn: q = (0, 1, 0, 0), distance π, on the cut locus of the identity.
    let half_x = UnitQuaternion::from_quaternion(Quaternion::new(0.0, 1.0, 0.0, 0.0));
    let half_y = UnitQuaternion::from_quaternion(Quaternion::new(0.0, 0.0, 1.0, 0.0));
    pairs.push(pair("identity vs half-turn about x (distance pi)".into(), id, half_x, claim_distance));
    pairs.push(pair("half-turns about x and about y (distance pi)".into(), half_x, half_y, claim_distance));
    let generic = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -1.2, 2.5));
    let minus = UnitQuaternion::new_unchecked(-generic.into_inner());
    pairs.push(pair("q vs -q (the same rotation, distance 0)".into(), generic, minus, claim_distance));
    let d = separation(epsilon, 1.0).min(PI);
    let step = generic * about(Vector3::new(1.0, 2.0, 3.0), d);
    pairs.push(pair(
        format!("generic q vs q rotated by {} (non-identity input)", fmt_rad(d)),
        generic,
        step,
        claim_distance,
    ));
    pairs
}

/// cos θ·x + sin θ·u for a unit u ⊥ x, renormalised.
fn along(x: &DVector<f64>, u: &DVector<f64>, theta: f64) -> DVector<f64> {
    let (s, c) = theta.sin_cos();
    (x * c + u * s).normalize()
}

/// Pairs of unit vectors of R^`dim` (points of S^{dim−1}, dim ≥ 2) for a claim of `epsilon` per unit of
/// `claim_distance`.
pub fn sphere_pairs(
    dim: usize,
    epsilon: f64,
    claim_distance: &dyn Fn(&DVector<f64>, &DVector<f64>) -> f64,
) -> Vec<InputPair<DVector<f64>>> {
    assert!(dim >= 2, "sphere_pairs: dim = {dim} < 2");
    let axis = |i: usize| {
        let mut e = DVector::zeros(dim);
        e[i] = 1.0;
        e
    };
    let north = axis(dim - 1);
    let south = -&north;
    let east = axis(0);
    let mut pairs = Vec::new();
    for scale in SCALES {
        let d = separation(epsilon, scale);
        if d < PI {
            pairs.push(pair(
                format!("north pole vs point {} down a meridian", fmt_rad(d)),
                north.clone(),
                along(&north, &east, d),
                claim_distance,
            ));
        }
    }
    pairs.push(pair("north pole vs south pole (antipodal)".into(), north.clone(), south.clone(), claim_distance));
    pairs.push(pair(
        "north pole vs a point pi - 1e-6 away (near-antipodal)".into(),
        north.clone(),
        along(&north, &east, PI - 1e-6),
        claim_distance,
    ));
    let d = separation(epsilon, 1.0).min(PI / 2.0);
    pairs.push(pair(
        format!("south pole vs point {} from it", fmt_rad(d)),
        south.clone(),
        along(&south, &east, d),
        claim_distance,
    ));
    // A generic point (no zero coordinate) and a tangent direction at it.
    let g = DVector::from_fn(dim, |i, _| [0.6, -0.3, 0.5, -0.45, 0.2][i % 5] + 0.01 * i as f64).normalize();
    let mut t = DVector::from_fn(dim, |i, _| if i % 2 == 0 { 1.0 } else { -0.7 });
    t -= &g * g.dot(&t);
    let t = t.normalize();
    let d = separation(epsilon, 1.0).min(PI);
    pairs.push(pair(
        format!("generic point vs point {} away", fmt_rad(d)),
        g.clone(),
        along(&g, &t, d),
        claim_distance,
    ));
    pairs
}

/// Pairs of k×k SPD matrices (k ≥ 2) for a claim of `epsilon` per unit of `claim_distance`. The steps
/// P^{1/2} exp(tH) P^{1/2} with ‖H‖_F = 1 are at affine-invariant distance exactly t.
pub fn spd_pairs(
    k: usize,
    epsilon: f64,
    claim_distance: &dyn Fn(&DMatrix<f64>, &DMatrix<f64>) -> f64,
) -> Vec<InputPair<DMatrix<f64>>> {
    assert!(k >= 2, "spd_pairs: k = {k} < 2");
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let mut diag_dir = DMatrix::zeros(k, k);
    diag_dir[(0, 0)] = s;
    diag_dir[(1, 1)] = -s;
    let mut off_dir = DMatrix::zeros(k, k);
    off_dir[(0, 1)] = s;
    off_dir[(1, 0)] = s;
    let step = |p: &DMatrix<f64>, h: &DMatrix<f64>, t: f64| {
        let (root, _) = sqrt_and_inv_sqrt(p);
        congruence(&root, &expm(&(h * t)))
    };
    let id = DMatrix::<f64>::identity(k, k);
    let mut pairs = Vec::new();
    // Distances beyond ~30 leave the range where e^{±t} keeps useful precision.
    let cap = 30.0;
    for scale in SCALES {
        let t = separation(epsilon, scale).min(cap);
        pairs.push(pair(
            format!("identity vs exp({t:.4} H), H diagonal"),
            id.clone(),
            step(&id, &diag_dir, t),
            claim_distance,
        ));
    }
    let t = separation(epsilon, 1.0).min(cap);
    let mut ill = DMatrix::<f64>::identity(k, k);
    ill[(0, 0)] = 1e6;
    ill[(1, 1)] = 1e-6;
    pairs.push(pair(
        format!("ill-conditioned diag(1e6, 1e-6) vs a step of {t:.4} off the diagonal"),
        ill.clone(),
        step(&ill, &off_dir, t),
        claim_distance,
    ));
    let mut singular = DMatrix::<f64>::identity(k, k);
    singular[(1, 1)] = 1e-12;
    pairs.push(pair(
        format!("near-singular diag(1, 1e-12) vs a step of {t:.4} off the diagonal"),
        singular.clone(),
        step(&singular, &off_dir, t),
        claim_distance,
    ));
    let scaled = &id * (t / (k as f64).sqrt()).exp();
    pairs.push(pair(
        format!("identity vs isotropic scaling (affine distance {t:.4})"),
        id.clone(),
        scaled,
        claim_distance,
    ));
    pairs
}

/// Pairs of real numbers for a claim of `epsilon` per unit of |a − b|.
pub fn real_pairs(epsilon: f64) -> Vec<InputPair<f64>> {
    let d = |x: &f64, y: &f64| (x - y).abs();
    let mut pairs: Vec<InputPair<f64>> = SCALES
        .iter()
        .map(|&scale| {
            let t = separation(epsilon, scale);
            pair(format!("0 vs {t:.6}"), 0.0, t, &d)
        })
        .collect();
    let t = separation(epsilon, 1.0);
    pairs.push(pair(format!("1e12 vs 1e12 + {t:.6} (coarse float grid)"), 1e12, 1e12 + t, &d));
    pairs.push(pair(format!("-{t:.6} vs -{:.6} (negative inputs)", 3.0 * t), -t, -3.0 * t, &d));
    pairs
}

/// Pairs of neighbouring values on ℝ for an (ε, δ) claim on a query of sensitivity `sensitivity`: values
/// `sensitivity` apart (the worst case) at 0, at 10¹² and at negative values, and a pair half as far apart.
/// Every pair is a pair of neighbours, so its claim distance is 1.
pub fn real_neighbour_pairs(sensitivity: f64) -> Vec<InputPair<f64>> {
    let t = sensitivity;
    let neighbours = |label: String, x: f64, x_prime: f64| InputPair { label, x, x_prime, distance: 1.0 };
    vec![
        neighbours(format!("0 vs {t:.6} (neighbours at the sensitivity)"), 0.0, t),
        neighbours(format!("0 vs {:.6} (neighbours at half the sensitivity)", 0.5 * t), 0.0, 0.5 * t),
        neighbours(format!("1e12 vs 1e12 + {t:.6} (coarse float grid)"), 1e12, 1e12 + t),
        neighbours(format!("-{t:.6} vs -{:.6} (negative inputs)", 2.0 * t), -t, -2.0 * t),
    ]
}

/// Pairs of neighbouring footpoints on S^{n−1} for an (ε, δ) claim of a Fréchet mean of sensitivity
/// `sensitivity` (the means of two neighbouring data sets lie at most that far apart): the north pole against a
/// point at the sensitivity and at half of it, the south pole against a point at the sensitivity, and a generic
/// pair. Every pair is a pair of neighbours, so its claim distance is 1.
pub fn sphere_neighbour_pairs(dim: usize, sensitivity: f64) -> Vec<InputPair<DVector<f64>>> {
    assert!(dim >= 2, "sphere_neighbour_pairs: dim = {dim} < 2");
    let axis = |i: usize| {
        let mut e = DVector::zeros(dim);
        e[i] = 1.0;
        e
    };
    let (north, east) = (axis(dim - 1), axis(0));
    let south = -&north;
    let g = DVector::from_fn(dim, |i, _| [0.6, -0.3, 0.5, -0.45, 0.2][i % 5] + 0.01 * i as f64).normalize();
    let mut t = DVector::from_fn(dim, |i, _| if i % 2 == 0 { 1.0 } else { -0.7 });
    t -= &g * g.dot(&t);
    let t = t.normalize();
    let d = sensitivity.min(PI);
    let neighbours =
        |label: String, x: DVector<f64>, x_prime: DVector<f64>| InputPair { label, x, x_prime, distance: 1.0 };
    vec![
        neighbours(
            format!("north pole vs point {} down a meridian (neighbours at the sensitivity)", fmt_rad(d)),
            north.clone(),
            along(&north, &east, d),
        ),
        neighbours(
            format!("north pole vs point {} (half the sensitivity)", fmt_rad(0.5 * d)),
            north.clone(),
            along(&north, &east, 0.5 * d),
        ),
        neighbours(format!("south pole vs point {} from it", fmt_rad(d)), south.clone(), along(&south, &east, d)),
        neighbours(format!("generic point vs point {} away", fmt_rad(d)), g.clone(), along(&g, &t, d)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::so3_metric::geodesic;
    use crate::space::spd::affine_invariant_distance;
    use crate::space::sphere::surface_distance;

    #[test]
    fn pairs_sit_at_their_stated_distances() {
        let so3 = so3_pairs(1.0, &geodesic);
        assert!(so3.iter().any(|p| p.distance == 0.0));
        assert!(so3.iter().filter(|p| (p.distance - PI).abs() < 1e-12).count() >= 2);
        assert!((so3[0].distance - 0.5).abs() < 1e-12);
        for dim in [2, 3, 7] {
            let s = sphere_pairs(dim, 2.0, &surface_distance);
            assert!((s[0].distance - 0.25).abs() < 1e-12);
            assert!(s.iter().any(|p| (p.distance - PI).abs() < 1e-12));
            assert!(s.iter().any(|p| (p.distance - (PI - 1e-6)).abs() < 1e-9));
            for p in &s {
                assert!((p.x.norm() - 1.0).abs() < 1e-14 && (p.x_prime.norm() - 1.0).abs() < 1e-14);
            }
        }
        let spd = spd_pairs(2, 1.0, &affine_invariant_distance);
        for (p, expected) in spd.iter().zip([0.5, 1.0, 2.0, 4.0, 1.0, 1.0, 1.0]) {
            // The ill-conditioned pairs lose ~cond·1e-16 of accuracy in the distance.
            assert!((p.distance - expected).abs() < 1e-4, "{}: {}", p.label, p.distance);
        }
        assert_eq!(spd.len(), 7);
        assert_eq!(real_pairs(2.0)[1].distance, 0.5);
    }
}
