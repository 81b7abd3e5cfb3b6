//! Float safety of the log-Euclidean releases (`docs/proofs/float_safety.md` §3d).

use super::*;
use crate::mechanism::Unprotected;
use crate::privacy::Chart;
use crate::sample::rng::seeded_rng_for_experiments;
use rand_distr::StandardNormal;

fn spd(a: f64, b: f64, c: f64) -> DMatrix<f64> {
    DMatrix::from_row_slice(2, 2, &[a, b, b, c])
}

/// Whether z is exp of a point of the log-domain grid, found from z alone: its log coordinates, rounded
/// (they must lie within a quarter cell of a grid point), map back to z bit for bit.
fn on_grid(le: &SpdLogEuclidean, rounding: &Rounding, z: &DMatrix<f64>) -> bool {
    let c = le.log_coordinates(z);
    let grid = rounding.grid();
    let k = c.map(|v| crate::space::grid::round_to_grid(v, grid.spacing_log2));
    (&k - &c).amax() < grid.spacing() / 4.0 && expm(&coords_to_sym(&k, le.k())) == *z
}

/// The isometric log coordinates of a 2×2 SPD matrix [[a, b], [b, d]] to a few ulps, however ill-conditioned:
/// the small eigenvalue as det/λ_max with the determinant from exact products (fma), the eigenvectors from
/// the angle ½·atan2(2b, a − d), well conditioned because the gap is ≈ λ_max.
fn reference_log_coordinates(p: &DMatrix<f64>) -> [f64; 3] {
    let (a, b, d) = (p[(0, 0)], p[(0, 1)], p[(1, 1)]);
    let big = 0.5 * (a + d) + (0.5 * (a - d)).hypot(b);
    let (ad, bb) = (a * d, b * b);
    let det = (ad - bb) + (a.mul_add(d, -ad) - b.mul_add(b, -bb));
    let (l1, l2) = (big.ln(), (det / big).ln());
    let (s, c) = (0.5 * (2.0 * b).atan2(a - d)).sin_cos();
    [l1 * c * c + l2 * s * s, (l1 - l2) * c * s * std::f64::consts::SQRT_2, l1 * s * s + l2 * c * c]
}

/// The log-Euclidean Laplace's guarantee is per unit of the computed log coordinates ĉ (§3d), and says so:
/// for inputs of condition number 1e12, accepted by the input checks, ĉ misses the exact log coordinates
/// by far more than ε₀/(2ε), so a label in the exact metric ‖log P − log Q‖_F would leave out a loss
/// ε·(e(P) + e(P′)) larger than the ε₀ it states. Fails on the old label (`spd_log_euclidean`).
#[test]
fn the_log_euclidean_guarantee_is_per_unit_of_the_computed_log_coordinates() {
    let le = SpdLogEuclidean::new(2).unwrap();
    let sigma = 0.5;
    let mech = RiemannianLaplace::new(le, sigma).unwrap();
    let g = mech.guarantee();
    let json = serde_json::to_value(g).unwrap();
    assert_eq!(json["metric"], "spd_computed_log_coordinates", "{json}");
    assert!(g.to_string().contains("computed log coordinates"), "{g}");
    // The reference is exact to a few ulps: on well-conditioned matrices ĉ agrees with it to 1e-14.
    let worst = |cond: f64| {
        (0..400)
            .map(|i| {
                let (s, c) = (0.0137 * i as f64).sin_cos();
                let p = spd(c * c + s * s / cond, c * s * (1.0 - 1.0 / cond), s * s + c * c / cond);
                crate::space::spd::check_positive_definite(&p).unwrap();
                let r = reference_log_coordinates(&p);
                let e = le.log_coordinates(&p);
                ((e[0] - r[0]).powi(2) + (e[1] - r[1]).powi(2) + (e[2] - r[2]).powi(2)).sqrt()
            })
            .fold(0.0, f64::max)
    };
    assert!(worst(4.0) < 1e-14, "{}", worst(4.0));
    // Just inside the input checks' limit (smallest eigenvalue above 1e-12 times the largest).
    let cond = 0.999e12;
    let e = worst(cond);
    let (epsilon, eps0) = (1.0 / sigma, g.additive_epsilon());
    println!("cond {cond:e}: e(P) up to {e:.3e}; 2ε·e = {:.3e} against ε₀ = {eps0:.3e}", 2.0 * epsilon * e);
    assert!(2.0 * epsilon * e > eps0, "e = {e:e}, ε₀ = {eps0:e}");
    // Within (E)'s bound δ/(1 − δ) + assembly, δ = c_E·u·√k·cond (float_safety.md §3d).
    let u = f64::EPSILON / 2.0;
    let delta = crate::numerics::EIGEN_BACKWARD_ERROR * u * 2f64.sqrt() * cond;
    let assembly = u * (2.0 * 64.0 + 12.0) * 2f64.sqrt() * (cond.ln() + 1.0);
    assert!(e <= delta / (1.0 - delta) + assembly, "{e:e}");
}

#[test]
fn log_euclidean_releases_are_exp_of_grid_points() {
    let le = SpdLogEuclidean::new(2).unwrap();
    let mech = RiemannianLaplace::new(le, 0.5).unwrap();
    let g = mech.guarantee();
    assert_eq!(g.grid().unwrap().chart, Chart::LogDomain);
    assert!(g.additive_epsilon() > 0.0 && g.additive_epsilon() < 1e-4, "{}", g.additive_epsilon());
    let rounding = le.rounding(0.5).unwrap();
    let mut rng = seeded_rng_for_experiments(41);
    let xs = [spd(2.0, 0.3, 1.0), spd(1e-3, 0.0, 5e2), spd(1.0, 0.999, 1.0)];
    for i in 0..3000 {
        let z = mech.privatize(&xs[i % 3], &mut rng).unwrap();
        assert!(on_grid(&le, &rounding, &z), "release {i} of {} is not on the grid", xs[i % 3]);
        let mut again = z.clone();
        mech.snap(&mut again);
        assert_eq!(again, z);
    }
    // Negative control: raw releases are not.
    let raw = (0..300)
        .filter(|&i| on_grid(&le, &rounding, &mech.privatize_unprotected(&xs[i % 3], &mut rng, Unprotected::INTERNAL)));
    assert_eq!(raw.count(), 0);
}

#[test]
fn the_private_log_euclidean_mean_is_rounded_on_a_grid_sized_by_its_ball() {
    let le = SpdLogEuclidean::new(2).unwrap();
    let center = spd(4.0, 1.0, 2.0);
    for conditioning in [Conditioning::Unconditioned, Conditioning::Ball] {
        let mech = PrivateFrechetMean::new(le, center.clone(), 1.0, 50, 1.0, conditioning).unwrap();
        let rounding = mech.rounding().unwrap();
        // The ball bounds the footpoint's log coordinates, so the clamp is far smaller than for any input.
        assert!(rounding.clamp() <= 16.0, "{}", rounding.clamp());
        assert!(rounding.clamp() < le.rounding(mech.sigma()).unwrap().clamp());
        // 1.25e-5 since the noise's own relative error is paid at the clamp (float_safety.md §3f, Lemma N).
        let per_cell = rounding.additive_epsilon();
        assert!(per_cell > 0.0 && per_cell < 2e-5, "{per_cell}");
        let factor = if mech.conditioned() { 2.0 } else { 1.0 };
        assert_eq!(mech.rounding_cost(), factor * per_cell);
        let mut rng = seeded_rng_for_experiments(42);
        let data = vec![spd(3.0, 0.5, 2.5); 50];
        for _ in 0..300 {
            let z = mech.release(&data, &mut rng).unwrap();
            assert!(on_grid(&le, &rounding, &z));
        }
    }
}

#[test]
fn log_domain_coordinates_stay_within_the_proven_error() {
    // §3d: |fl(ĉ + fl(t·w)) − (ĉ + t·w)| ≤ (2B + C + 8)·2^-53 wherever |ĉ + t·w| ≤ B, recovered exactly with
    // fma and two-sum, at footpoints with coordinates up to C and noise draws of every size.
    let le = SpdLogEuclidean::new(2).unwrap();
    let sigma = 3.0;
    let c_bound = any_log_coordinate_bound(2);
    let rounding = le.rounding(sigma).unwrap();
    let b = rounding.clamp();
    let eta = (2.0 * b + c_bound + 8.0) * (f64::EPSILON / 2.0);
    let noise = le.laplace_noise(sigma, None).unwrap();
    let mut rng = seeded_rng_for_experiments(43);
    let mut worst: f64 = 0.0;
    for i in 0..100_000u64 {
        let c = [700.0 * ((i % 13) as f64 / 6.0 - 1.0), -((i % 5) as f64) * 0.37, 1.0 / (1 + i % 3) as f64];
        let t = noise.sample_radius(&mut rng) * (1.0 + (i % 400) as f64);
        let g: [f64; 3] = [StandardNormal.sample(&mut rng), StandardNormal.sample(&mut rng), 0.5];
        let n = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        for j in 0..3 {
            let w = g[j] / n;
            let hi = w * t;
            let lo = w.mul_add(t, -hi);
            let s = c[j] + hi;
            let bb = s - c[j];
            let err = (c[j] - (s - bb)) + (hi - bb) + lo;
            if s.abs() <= b {
                worst = worst.max(err.abs());
                assert!(err.abs() <= eta, "error {err:e} beyond the bound {eta:e}");
            }
        }
    }
    assert!(worst > eta / 64.0, "the draws never came near the bound ({worst:e} vs {eta:e})");
}

/// Log-Euclidean means of 10⁶ rows around I pay at most 1 % of ε for the rounding at ε = 0.01, 0.1 and 1, from
/// a ball of radius 0.01 to one of radius 3, for SPD(2), SPD(3), SPD(4) and SPD(8) (`docs/proofs/float_safety.md`
/// §3d, "The mean's error": η relative to the ball, the footpoint clamped into it). Control: the η and clamp
/// planned before (B ≥ 4, C with a unit of slack, η ≈ 300u) cost more than 1 % at r = 0.01 for SPD(3), and
/// more than 10 % (a refusal) for SPD(8).
#[test]
fn log_euclidean_means_in_small_and_wide_balls_pay_at_most_one_percent() {
    for k in [2usize, 3, 4, 8] {
        let le = SpdLogEuclidean::new(k).unwrap();
        let id = DMatrix::identity(k, k);
        for radius in [0.01, 0.1, 0.5, 1.5, 3.0] {
            for eps in [0.01, 0.1, 1.0] {
                let m = PrivateFrechetMean::new(le, id.clone(), radius, 1_000_000, eps, Conditioning::Auto).unwrap();
                let share = 100.0 * m.rounding_cost() / eps;
                let r = m.rounding().unwrap();
                let old = Rounding::for_log_domain_by_shell_as_before(le.dimension(), m.sigma(), radius + 1.0);
                let factor = if m.conditioned() { 2.0 } else { 1.0 };
                let old_share = 100.0 * factor * old.additive_epsilon() / eps;
                eprintln!(
                    "spd:{k} r {radius} eps {eps}: {share:.4} % (before {old_share:.3} %), B {}, C {}, conditioned {}",
                    r.clamp(),
                    r.footpoint_clamp(),
                    m.conditioned()
                );
                assert!(share <= 1.0, "spd:{k} r {radius} ε {eps}: {share} %");
                if radius == 0.01 && eps == 0.1 && k == 3 {
                    assert!(old_share > 1.0, "the control: {old_share} %");
                }
                if radius == 0.01 && k == 8 {
                    assert!(old_share > 10.0, "the control: {old_share} %");
                }
            }
        }
    }
}

/// §3d, "The mean's error": a footpoint coordinate c, |c| ≤ C ≤ B, plus a noise coordinate z within s·u of its
/// own size of the exact z* = hi + lo, one f64 addition, both clamped to [−B, B]: the computed coordinate is
/// within η = [`mean_log_domain_error`] of the exact one, at clamps from 2^-6 to 8, with the sums aimed at the
/// clamp (where the case analysis turns) and the noise's error at its extremes. The error is measured exactly
/// (two-sum) up to terms of order u². The worst case comes within 10 % of η, and the control (η without the
/// noise's own error) is exceeded.
#[test]
fn the_mean_log_domain_error_is_relative_to_its_ball() {
    use crate::privacy::float_safety::mean_log_domain_error;
    use rand::RngExt;
    let u = f64::EPSILON / 2.0;
    let s = crate::sample::normal::radius_direction_error_units(6);
    let mut rng = seeded_rng_for_experiments(44);
    let (mut worst, mut beyond_control) = (0.0f64, 0);
    for i in 0..400_000u32 {
        let b = 2f64.powi(rng.random_range(-6..=3));
        let c_bound = b * rng.random_range(0.3..0.96);
        let eta = mean_log_domain_error(b, c_bound, s);
        let c = rng.random_range(-c_bound..=c_bound);
        let target = if i % 2 == 0 {
            let side = if rng.random_bool(0.5) { b } else { -b };
            side * (1.0 + rng.random_range(-4.0..4.0) * s * u)
        } else {
            rng.random_range(-1.2 * b..1.2 * b)
        };
        let hi = target - c;
        let lo = hi * u * rng.random_range(-1.0..1.0);
        let delta = (s - 3.0) * u * if rng.random_bool(0.8) { rng.random_range(-1.0..=1.0f64).signum() } else { 0.3 };
        let z = hi + hi * delta;
        let v = (c + z).clamp(-b, b);
        // The exact v* = c + hi + lo = big + small (two-sum), clamped.
        let big = c + hi;
        let t = big - c;
        let small = ((c - (big - t)) + (hi - t)) + lo;
        let err = if big.abs() > b * (1.0 + 1e-12) {
            v - big.signum() * b
        } else if (big + small).abs() > b {
            v - (big + small).signum() * b
        } else {
            (v - big) - small
        };
        assert!(err.abs() <= eta, "B {b} C {c_bound}: error {err:e} beyond η {eta:e}");
        worst = worst.max(err.abs() / eta);
        if err.abs() > mean_log_domain_error(b, c_bound, 0.0) {
            beyond_control += 1;
        }
    }
    eprintln!("worst error / η: {worst:.4}, beyond the control: {beyond_control}");
    assert!(worst > 0.9, "the draws never came near the bound ({worst})");
    assert!(beyond_control > 1000, "the control is never exceeded ({beyond_control})");
}

/// A footpoint beyond the mean's public box (a mean computed elsewhere, far from the ball) is clamped into it
/// before the noise is added (`Rounding::clamp_footpoint`), so η's bound C holds for every footpoint: its
/// releases lie around the clamped point, on the grid. Control: the footpoint's own coordinates lie far
/// outside the box.
#[test]
fn a_footpoint_beyond_the_box_is_clamped_into_it() {
    let le = SpdLogEuclidean::new(2).unwrap();
    let m = PrivateFrechetMean::new(le, DMatrix::identity(2, 2), 0.01, 1000, 1.0, Conditioning::Unconditioned).unwrap();
    let rounding = m.rounding().unwrap();
    let far = spd(3.0, 0.5, 2.0);
    let own = le.log_coordinates(&far);
    let c = rounding.footpoint_clamp();
    assert!(own.amax() > 10.0 * c, "the control: {own}");
    let clamped = own.map(|x| x.clamp(-c, c));
    let mut rng = seeded_rng_for_experiments(45);
    for _ in 0..300 {
        let z = m.release_mean(&far, &mut rng).unwrap();
        assert!(on_grid(&le, &rounding, &z));
        // 40·D·σ: beyond it a K-norm draw has probability below 1e-30.
        let moved = (le.log_coordinates(&z) - &clamped).norm();
        assert!(moved <= 40.0 * 3.0 * m.sigma(), "{moved} vs σ {}", m.sigma());
    }
}
