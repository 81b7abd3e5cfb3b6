//! Float safety seen from outside: an attacker who sees releases of one of two inputs one ulp
//! apart (true privacy loss e^{ε·1e-16} ≈ 1) tallies the lowest mantissa bits of every coordinate. On the
//! float-safe path the tallies agree; on the raw f64 path (the negative control) they differ.
//!
//! The test: for F bit features f and n independent pairs (z from x, z′ from x′), D̄_f = mean(f(z) − f(z′)) is
//! a mean of n independent terms in [−1, 1] whose expectation is at most s = e^{ε·d + ε₀} − 1 in absolute
//! value when the mechanism meets its guarantee; Hoeffding gives P(|D̄_f| ≥ s + t) ≤ 2e^{−nt²/2}, so with
//! t = √(2 ln(2F/α)/n) and a union over the features the check fails falsely with probability ≤ α = 1e-8
//! per mechanism (eighteen mechanisms, the generalized Gaussian's five degrees counted apart: < 1.8e-7 in
//! all).
//!
//! The second attack is Mironov's reachability test carried to the pipeline's last step: recompute the
//! release from the public input x and the noise that x implies (SO(3): x∘(x̄∘z); S²: z's coordinates in x's
//! tangent frame, recombined as the sampler does; the circle: z's cosine and sine against x, x rotated again)
//! and ask whether z's exact bits come back. The raw pipeline
//! reproduces its own releases far more often than releases built around x′; on the grid both rates agree.
//! The same Hoeffding bound, one feature, α = 1e-8 per mechanism (six: < 6e-8 in all).

use manifold_dp::mechanism::Unprotected;
use manifold_dp::mechanism::scalar::{Gaussian, GeneralizedGaussian, ScalarLaplace};
use manifold_dp::mechanism::{
    BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, TangentPlanarLaplace, VmfSphere, WrappedLaplaceCircle,
};
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
    let (a, b) = releases(&x, &x_prime, 1, |p, rng| coords(&m.privatize(p, rng).unwrap()));
    let (gap, t) = largest_gap(&a, &b);
    assert!(
        gap < s + t,
        "{name}: float-safe releases of inputs one ulp apart differ in their low bits: {gap} >= {}",
        s + t
    );
    let (a, b) =
        releases(&x, &x_prime, 2, |p, rng| coords(&m.privatize_unprotected(p, rng, Unprotected::acknowledged())));
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

/// The reachability check: the share of releases of x (float-safe, then raw) for which `reproduced(z)` holds,
/// minus the share among releases of x′. The float-safe path must stay within `s` + t; the raw path (the
/// negative control) must exceed it.
fn check_reachability<M: Mechanism>(
    name: &str,
    m: &M,
    (x, x_prime): (&M::Point, &M::Point),
    reproduced: impl Fn(&M::Point) -> bool,
    s: f64,
) {
    const N: usize = 500_000;
    let t = (2.0 * (2.0f64 / ALPHA).ln() / N as f64).sqrt();
    let mut rng = seeded_rng_for_experiments(5);
    let mut gap = |raw: bool| {
        let mut diff = 0i64;
        for _ in 0..N {
            let (z, z_prime) = if raw {
                (
                    m.privatize_unprotected(x, &mut rng, Unprotected::acknowledged()),
                    m.privatize_unprotected(x_prime, &mut rng, Unprotected::acknowledged()),
                )
            } else {
                (m.privatize(x, &mut rng).unwrap(), m.privatize(x_prime, &mut rng).unwrap())
            };
            diff += reproduced(&z) as i64 - reproduced(&z_prime) as i64;
        }
        (diff as f64 / N as f64).abs()
    };
    let (safe, raw) = (gap(false), gap(true));
    assert!(safe < s + t, "{name}: float-safe releases of x are reproduced from x more often: {safe} >= {}", s + t);
    assert!(raw > s + t, "{name}: the raw path (negative control) was not detected: {raw} <= {}", s + t);
    eprintln!("{name}: reachability gap float-safe {safe:.4}, raw {raw:.4}, threshold {:.4}", s + t);
}

/// SO(3): the raw release is x∘n; is z = x∘(x̄∘z) to the bit?
fn so3_reproduced(x: &UnitQuaternion<f64>) -> impl Fn(&UnitQuaternion<f64>) -> bool + '_ {
    move |z| (x * (x.conjugate() * z)).coords == z.coords
}

/// S²: the raw release is cos·x + c·e₁ + s·e₂ in the sampler's tangent frame of x (`sample::sphere`);
/// project z onto x, e₁, e₂ and recombine the same way.
fn s2_reproduced(x: &DVector<f64>) -> impl Fn(&DVector<f64>) -> bool + '_ {
    let (a, b, c) = (x[0], x[1], x[2]);
    let sigma = 1.0f64.copysign(c);
    let h = -1.0 / (sigma + c);
    let ab = a * b * h;
    let e1 = [1.0 + sigma * a * a * h, sigma * ab, -sigma * a];
    let e2 = [ab, sigma + b * b * h, -b];
    move |z| {
        let dot = |e: &[f64; 3]| e[0] * z[0] + e[1] * z[1] + e[2] * z[2];
        let (cos, u, v) = (x.dot(z), dot(&e1), dot(&e2));
        (0..3).all(|i| cos * x[i] + u * e1[i] + v * e2[i] == z[i])
    }
}

/// The circle: the raw release is x rotated by ±θ (`sample::sphere`); take z's cosine and sine against x and
/// rotate x again.
fn circle_reproduced(x: &DVector<f64>) -> impl Fn(&DVector<f64>) -> bool + '_ {
    move |z| {
        let (cos, sin) = (x[0] * z[0] + x[1] * z[1], x[0] * z[1] - x[1] * z[0]);
        x[0] * cos - x[1] * sin == z[0] && x[1] * cos + x[0] * sin == z[1]
    }
}

/// e^{ε·d + ε₀} − 1 for a guarantee's additive ε₀ and ε·d ≤ 1e-12.
fn slack(additive: f64) -> f64 {
    (additive + 1e-12).exp_m1()
}

/// The raw SO(3) and S² pipelines are not told apart by low-bit tallies at this sample size (their rounding
/// errors look alike from both inputs), so there the tallies check the float-safe path without a control,
/// and the reachability check, which does catch the raw paths, has them as its controls; the wrapped Laplace's
/// and the real line's raw paths are caught by the tallies themselves.
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
    check_reachability("laplace on SO(3)", &laplace, (&x, &x_prime), so3_reproduced(&x), s);
    check_reachability("bingham on SO(3)", &bingham, (&x, &x_prime), so3_reproduced(&x), s);
}

#[test]
fn sphere_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let x = DVector::from_vec(vec![0.6, 0.8, 0.0]);
    let x_prime = DVector::from_vec(vec![0.6, 0.8f64.next_up(), 0.0]);
    let vmf = VmfSphere::new(3, 1.0).unwrap();
    let s = slack(vmf.guarantee().additive_epsilon());
    check("vmf on S2", &vmf, (x.clone(), x_prime.clone()), vector_coords, s, false);
    let pk = PurkayasthaSphere::new(3, 1.0).unwrap();
    let s = slack(pk.guarantee().additive_epsilon());
    check("purkayastha on S2", &pk, (x.clone(), x_prime.clone()), vector_coords, s, false);
    let north = DVector::from_vec(vec![0.0, 0.0, 1.0]);
    let planar = TangentPlanarLaplace::new(north, 1.0).unwrap();
    let s_planar = slack(planar.guarantee().additive_epsilon());
    // The raw planar path is not caught by the tallies either (its last step is exp_p's sine and cosine); the
    // harness's power is shown by the circle's and the real line's controls, and the planar grid's own
    // membership test has the raw path as its control (`mechanism::planar_laplace` tests).
    check("planar laplace on S2", &planar, (x.clone(), x_prime.clone()), vector_coords, s_planar, false);
    check_reachability("vmf on S2", &vmf, (&x, &x_prime), s2_reproduced(&x), s);
    check_reachability("purkayastha on S2", &pk, (&x, &x_prime), s2_reproduced(&x), s);
}

#[test]
fn circle_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let pair = (DVector::from_vec(vec![0.6, 0.8]), DVector::from_vec(vec![0.6, 0.8f64.next_up()]));
    // VMF and Purkayastha rotate x by ±θ without renormalising, and their raw paths are not told apart by
    // the tallies (like S²'s); the reachability check catches them. Wrapped Laplace renormalises after its
    // rotation, and the tallies catch its raw path.
    let pk = PurkayasthaSphere::new(2, 1.0).unwrap();
    let s_pk = slack(pk.guarantee().additive_epsilon());
    check("purkayastha on the circle", &pk, pair.clone(), vector_coords, s_pk, false);
    let wl = WrappedLaplaceCircle::new(1.0).unwrap();
    check("wrapped laplace", &wl, pair.clone(), vector_coords, slack(wl.guarantee().additive_epsilon()), true);
    let vmf = VmfSphere::new(2, 1.0).unwrap();
    let s_vmf = slack(vmf.guarantee().additive_epsilon());
    check("vmf on the circle", &vmf, pair.clone(), vector_coords, s_vmf, false);
    check_reachability("purkayastha on the circle", &pk, (&pair.0, &pair.1), circle_reproduced(&pair.0), s_pk);
    check_reachability("vmf on the circle", &vmf, (&pair.0, &pair.1), circle_reproduced(&pair.0), s_vmf);
    let planar = TangentPlanarLaplace::new(DVector::from_vec(vec![1.0, 0.0]), 1.0).unwrap();
    // No control here: see the S² test.
    check(
        "planar laplace on the circle",
        &planar,
        pair,
        vector_coords,
        slack(planar.guarantee().additive_epsilon()),
        false,
    );
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

/// The real-line Gaussian: the exact cell of x + σZ (float-safe, no ε₀) against the raw f64 path x + σ·N
/// (ziggurat), the negative control. The releases of inputs d apart differ in total variation by at most
/// d/(σ√(2π)) ≈ 10⁻¹⁶ here, within the slack e^{10⁻¹²} − 1 that bounds each |E D̄_f|.
#[test]
fn real_line_gaussian_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let m = Gaussian::new(1.0, 1.0).unwrap();
    let (x, x_prime) = (1.0, 1.0f64.next_up());
    let (a, b) = releases(&x, &x_prime, 5, |p, rng| m.release(&[*p], rng).unwrap());
    let (gap, t) = largest_gap(&a, &b);
    let s = slack(0.0);
    assert!(gap < s + t, "scalar gaussian: {gap} >= {}", s + t);
    let (a, b) = releases(&x, &x_prime, 6, |p, rng| vec![p + m.unprotected_noise(rng)]);
    let (raw_gap, _) = largest_gap(&a, &b);
    assert!(raw_gap > s + t, "scalar gaussian: raw path not detected: {raw_gap}");
    eprintln!("scalar gaussian: float-safe gap {gap:.4}, raw gap {raw_gap:.4}, threshold {:.4}", s + t);
}

/// The real-line generalized Gaussian of degrees 1, 2, 3, 8 and 256: the exact cell of x + X (float-safe, no
/// ε₀, `docs/proofs/float_safety.md` §8c) against the raw f64 path x ± s·Gamma(1/N)^{1/N}, the negative
/// control. The tallies catch the raw path at N = 1 (gap 0.017) and N = 256 (0.055), where it is asserted;
/// at N = 2, 3, 8 its gaps (0.0017, 0.0010, 0.0007) stay below the threshold 0.0047 at 2·10⁶ pairs, so there
/// the float-safe path is checked without a control (as for SO(3) and S² above). The releases of inputs d apart differ in total variation by at most d·f(0) = d/(2sΓ(1 + 1/N))
/// < 10⁻¹⁵ here, within the slack e^{10⁻¹²} − 1 that bounds each |E D̄_f|.
#[test]
fn real_line_generalized_gaussian_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    let (x, x_prime) = (1.0, 1.0f64.next_up());
    let s = slack(0.0);
    for (seed, order) in [1, 2, 3, 8, 256].into_iter().enumerate() {
        let m = GeneralizedGaussian::new(order, 1.0, 1.0).unwrap();
        let seed = 10 + 2 * seed as u64;
        let (a, b) = releases(&x, &x_prime, seed, |p, rng| m.release(&[*p], rng).unwrap());
        let (gap, t) = largest_gap(&a, &b);
        assert!(gap < s + t, "generalized gaussian N = {order}: {gap} >= {}", s + t);
        let (a, b) = releases(&x, &x_prime, seed + 1, |p, rng| vec![p + m.noise().sample(rng)]);
        let (raw_gap, _) = largest_gap(&a, &b);
        if order == 1 || order == 256 {
            assert!(raw_gap > s + t, "generalized gaussian N = {order}: raw path not detected: {raw_gap}");
        }
        eprintln!(
            "generalized gaussian N = {order}: float-safe gap {gap:.4}, raw gap {raw_gap:.4}, threshold {:.4}",
            s + t
        );
    }
}

/// SPD(2) under the log-Euclidean metric, rounded in the log domain (`docs/proofs/float_safety.md` §3d):
/// inputs one ulp apart in one entry. Like SO(3) and S², the raw path is not caught by the tallies (exp of the
/// noisy logarithm comes last), so the float-safe path is checked without a control here; the grid-membership
/// test of `mechanism::riemannian_laplace` has the raw path as its control.
#[test]
fn spd_log_euclidean_low_bits_say_nothing_about_inputs_one_ulp_apart() {
    use manifold_dp::manifold::SpdLogEuclidean;
    use manifold_dp::mechanism::RiemannianLaplace;
    use nalgebra::DMatrix;
    let x = DMatrix::from_row_slice(2, 2, &[2.0, 0.3, 0.3, 1.0]);
    let x_prime = DMatrix::from_row_slice(2, 2, &[2.0f64.next_up(), 0.3, 0.3, 1.0]);
    let m = RiemannianLaplace::new(SpdLogEuclidean::new(2).unwrap(), 1.0).unwrap();
    let s = slack(m.guarantee().additive_epsilon());
    check("log-euclidean laplace on SPD(2)", &m, (x, x_prime), |y| y.iter().copied().collect(), s, false);
}

/// The affine-invariant SPD(2) mean, rounded in the log chart at the centre (`docs/proofs/float_safety.md` §3e):
/// means one ulp apart in one entry. No control here, as for SO(3) and S² (the raw draw's last steps are
/// matrix products); the grid-membership test of `mechanism::riemannian_laplace` has the raw draw as its
/// control. ε·d is far below 1e-12 for footpoints one ulp apart.
#[test]
fn spd_affine_mean_low_bits_say_nothing_about_means_one_ulp_apart() {
    use manifold_dp::manifold::SpdAffine;
    use manifold_dp::mechanism::{Conditioning, PrivateFrechetMean};
    use nalgebra::DMatrix;
    let spd = SpdAffine::new(2).unwrap();
    let mech =
        PrivateFrechetMean::new(spd, DMatrix::identity(2, 2), 1.5, 200, 1.0, Conditioning::Unconditioned).unwrap();
    let x = DMatrix::from_row_slice(2, 2, &[1.3, 0.2, 0.2, 0.9]);
    let x_prime = DMatrix::from_row_slice(2, 2, &[1.3f64.next_up(), 0.2, 0.2, 0.9]);
    let s = slack(mech.rounding_cost());
    let (a, b) = releases(&x, &x_prime, 3, |p, rng| mech.release_mean(p, rng).unwrap().iter().copied().collect());
    let (gap, t) = largest_gap(&a, &b);
    assert!(gap < s + t, "affine SPD mean: float-safe releases of means one ulp apart differ: {gap} >= {}", s + t);
    eprintln!("affine SPD mean: float-safe gap {gap:.4}, threshold {:.4}", s + t);
}
