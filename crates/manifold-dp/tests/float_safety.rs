//! Float safety seen from outside (issue 15): an attacker who sees releases of one of two inputs one ulp
//! apart (true privacy loss e^{ε·1e-16} ≈ 1) tallies the lowest mantissa bits of every coordinate. On the
//! float-safe path the tallies agree; on the raw f64 path (the negative control) they differ.
//!
//! The test: for F bit features f and n independent pairs (z from x, z′ from x′), D̄_f = mean(f(z) − f(z′)) is
//! a mean of n independent terms in [−1, 1] whose expectation is at most s = e^{ε·d + ε₀} − 1 in absolute
//! value when the mechanism meets its guarantee; Hoeffding gives P(|D̄_f| ≥ s + t) ≤ 2e^{−nt²/2}, so with
//! t = √(2 ln(2F/α)/n) and a union over the features the check fails falsely with probability ≤ α = 1e-8
//! per mechanism (eight mechanisms: < 1e-7 in all).

use manifold_dp::mechanism::scalar::ScalarLaplace;
use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, VmfSphere, WrappedLaplaceCircle};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use nalgebra::{DVector, Quaternion, UnitQuaternion};
use rand::distr::Distribution;

const ALPHA: f64 = 1e-8;
/// Mantissa bits tallied per coordinate (the lowest ones).
const LOW_BITS: usize = 4;
const PAIRS: usize = 2_000_000;

/// The largest |D̄_f| over the features and the Hoeffding threshold t for F features (without s).
fn largest_gap(a: &[Vec<f64>], b: &[Vec<f64>]) -> (f64, f64) {
    let coords = a[0].len();
    // Per coordinate: the LOW_BITS lowest bits one by one, then the 2^LOW_BITS values they take together.
    let cells = 1usize << LOW_BITS;
    let per = LOW_BITS + cells;
    let features = coords * per;
    let mut diff = vec![0i64; features];
    for (za, zb) in a.iter().zip(b) {
        for i in 0..coords {
            for (z, sign) in [(za[i], 1), (zb[i], -1)] {
                let low = z.to_bits() as usize % cells;
                for j in 0..LOW_BITS {
                    diff[i * per + j] += sign * ((low >> j) & 1) as i64;
                }
                diff[i * per + LOW_BITS + low] += sign;
            }
        }
    }
    let n = a.len() as f64;
    let gap = diff.iter().map(|&d| (d as f64 / n).abs()).fold(0.0, f64::max);
    let t = (2.0 * (2.0 * features as f64 / ALPHA).ln() / n).sqrt();
    (gap, t)
}

/// Releases of `x` and `x_prime`, `PAIRS` each, as coordinate vectors.
fn releases<P>(
    x: &P,
    x_prime: &P,
    seed: u64,
    mut release: impl FnMut(&P, &mut manifold_dp::sample::rng::ReleaseRng) -> Vec<f64>,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut rng = seeded_rng_for_experiments(seed);
    let a = (0..PAIRS).map(|_| release(x, &mut rng)).collect();
    let b = (0..PAIRS).map(|_| release(x_prime, &mut rng)).collect();
    (a, b)
}

/// Checks the float-safe path (no detection beyond the slack `s`) and, where `control` is set, that the raw
/// path is detected (the negative control showing the statistic has power).
fn check<M: Mechanism>(
    name: &str,
    m: &M,
    (x, x_prime): (M::Point, M::Point),
    coords: impl Fn(&M::Point) -> Vec<f64>,
    s: f64,
    control: bool,
) {
    let (a, b) = releases(&x, &x_prime, 1, |p, rng| coords(&m.privatize(p, rng)));
    let (gap, t) = largest_gap(&a, &b);
    assert!(
        gap < s + t,
        "{name}: float-safe releases of inputs one ulp apart differ in their low bits: {gap} >= {}",
        s + t
    );
    let (a, b) = releases(&x, &x_prime, 2, |p, rng| coords(&m.privatize_unprotected(p, rng)));
    let (raw_gap, _) = largest_gap(&a, &b);
    if control {
        assert!(raw_gap > s + t, "{name}: the raw path (negative control) was not detected: {raw_gap} <= {}", s + t);
    }
    eprintln!("{name}: float-safe gap {gap:.4}, raw gap {raw_gap:.4}, threshold {:.4}", s + t);
}

fn quaternion_coords(q: &UnitQuaternion<f64>) -> Vec<f64> {
    q.coords.iter().copied().collect()
}

fn vector_coords(v: &DVector<f64>) -> Vec<f64> {
    v.iter().copied().collect()
}

/// e^{ε·d + ε₀} − 1 for a guarantee's additive ε₀ and ε·d ≤ 1e-12.
fn slack(additive: f64) -> f64 {
    (additive + 1e-12).exp_m1()
}

/// The raw SO(3) and S² pipelines are not told apart by low-bit tallies at this sample size (their rounding
/// errors look alike from both inputs), so there the float-safe path is checked without a control; the
/// circle's and the real line's raw paths are, and serve as the statistic's negative controls.
#[test]
fn so3_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let x = UnitQuaternion::new_unchecked(Quaternion::new(0.8, 0.36, 0.48, 0.0));
    let x_prime = UnitQuaternion::new_unchecked(Quaternion::new(0.8f64.next_up(), 0.36, 0.48, 0.0));
    let laplace = LaplaceSo3::new(1.0).unwrap();
    let s = slack(laplace.guarantee().additive_epsilon());
    check("laplace on SO(3)", &laplace, (x, x_prime), quaternion_coords, s, false);
    let bingham = BinghamSo3::new(1.0).unwrap();
    let s = slack(bingham.guarantee().additive_epsilon());
    check("bingham on SO(3)", &bingham, (x, x_prime), quaternion_coords, s, false);
}

#[test]
fn sphere_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let x = DVector::from_vec(vec![0.6, 0.8, 0.0]);
    let x_prime = DVector::from_vec(vec![0.6, 0.8f64.next_up(), 0.0]);
    let vmf = VmfSphere::new(3, 1.0).unwrap();
    let s = slack(vmf.guarantee().additive_epsilon());
    check("vmf on S2", &vmf, (x.clone(), x_prime.clone()), vector_coords, s, false);
    let pk = PurkayasthaSphere::new(3, 1.0).unwrap();
    check("purkayastha on S2", &pk, (x, x_prime), vector_coords, slack(pk.guarantee().additive_epsilon()), false);
}

#[test]
fn circle_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let pair = (DVector::from_vec(vec![0.6, 0.8]), DVector::from_vec(vec![0.6, 0.8f64.next_up()]));
    let pk = PurkayasthaSphere::new(2, 1.0).unwrap();
    check(
        "purkayastha on the circle",
        &pk,
        pair.clone(),
        vector_coords,
        slack(pk.guarantee().additive_epsilon()),
        true,
    );
    let wl = WrappedLaplaceCircle::new(1.0).unwrap();
    check("wrapped laplace", &wl, pair.clone(), vector_coords, slack(wl.guarantee().additive_epsilon()), true);
    let vmf = VmfSphere::new(2, 1.0).unwrap();
    check("vmf on the circle", &vmf, pair, vector_coords, slack(vmf.guarantee().additive_epsilon()), true);
}

#[test]
fn real_line_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let m = ScalarLaplace::for_epsilon(1.0, 1.0).unwrap();
    let (x, x_prime) = (1.0, 1.0f64.next_up());
    let (a, b) = releases(&x, &x_prime, 3, |p, rng| m.release(&[*p], rng).unwrap());
    let (gap, t) = largest_gap(&a, &b);
    let s = slack(0.0);
    assert!(gap < s + t, "scalar laplace: {gap} >= {}", s + t);
    let (a, b) = releases(&x, &x_prime, 4, |p, rng| vec![p + m.noise().sample(rng)]);
    let (raw_gap, _) = largest_gap(&a, &b);
    assert!(raw_gap > s + t, "scalar laplace: raw path not detected: {raw_gap}");
    eprintln!("scalar laplace: float-safe gap {gap:.4}, raw gap {raw_gap:.4}, threshold {:.4}", s + t);
}
