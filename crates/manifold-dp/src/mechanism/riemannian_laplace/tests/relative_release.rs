//! The means' relative-error release on S^{n−1} and SO(3) (`docs/proofs/float_safety.md` §3i).

use super::*;
use crate::audit::gof::ks_test;
use crate::sample::double_double::Dd;
use crate::sample::rng::seeded_rng_for_experiments;
use crate::space::grid::{snap_cube_map, snap_cube_map_dd, snap_quaternion};

fn paris() -> DVector<f64> {
    DVector::from_vec(vec![0.6580, 0.0270, 0.7525]).normalize()
}

fn latlon(n: usize, eps: f64) -> PrivateFrechetMean<Sphere> {
    PrivateFrechetMean::new(Sphere::new(3).unwrap(), paris(), 300.0 / 6371.0088, n, eps, Conditioning::Auto).unwrap()
}

fn rotations(n: usize, eps: f64) -> PrivateFrechetMean<So3> {
    PrivateFrechetMean::new(So3, UnitQuaternion::identity(), 20f64.to_radians(), n, eps, Conditioning::Auto).unwrap()
}

/// A footpoint `angle` from the centre, towards a fixed direction.
fn s2_footpoint(angle: f64) -> DVector<f64> {
    let c = paris();
    let t = DVector::from_vec(vec![-c[2], 0.0, c[0]]).normalize();
    (c * angle.cos() + t * angle.sin()).normalize()
}

/// Releases at footpoints at the centre and at the ball's edge (r + Δ/2) are the points of grid cells,
/// reconstructed from the release alone (snapped again by main's f64 path: the same bits), and lie in the
/// public keep-ball. Control: the raw draws are not grid points.
#[test]
fn relative_releases_are_grid_points_reconstructed_from_the_release_alone() {
    let mut rng = seeded_rng_for_experiments(341);
    for eps in [0.01, 1.0] {
        let ll = latlon(1_000_000, eps);
        let chart = ll.ball_chart.as_ref().unwrap();
        let grid = chart.rounding.float_safe_grid();
        let edge = ll.radius() + 0.5 * ll.sensitivity();
        for foot in [paris(), s2_footpoint(edge)] {
            for _ in 0..2000 {
                let y = ll.release_mean(&foot, &mut rng).unwrap();
                let mut again = y.clone();
                snap_cube_map(again.as_mut_slice(), grid.spacing_log2);
                assert_eq!(
                    again.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    y.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                );
                assert!(Sphere::new(3).unwrap().distance(&paris(), &y) <= chart.ball);
            }
            let raw = ll.privatize_mean(&foot, &mut rng);
            let mut snapped = raw.clone();
            snap_cube_map(snapped.as_mut_slice(), grid.spacing_log2);
            assert_ne!(raw, snapped, "the control: a raw draw is no grid point");
        }
        let rot = rotations(1_000_000, eps);
        let chart = rot.ball_chart.as_ref().unwrap();
        let grid = chart.rounding.float_safe_grid();
        let edge = rot.radius() + 0.5 * rot.sensitivity();
        let feet =
            [UnitQuaternion::identity(), UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(edge, 0.0, 0.0))];
        for foot in feet {
            for _ in 0..2000 {
                let y = rot.release_mean(&foot, &mut rng).unwrap();
                let again = snap_quaternion(&y, grid.spacing_log2);
                assert_eq!(again.coords.map(f64::to_bits), y.coords.map(f64::to_bits));
                assert!(So3.distance(&UnitQuaternion::identity(), &y) <= chart.ball);
            }
            let raw = rot.privatize_mean(&foot, &mut rng);
            assert_ne!(raw, snap_quaternion(&raw, grid.spacing_log2), "the control");
        }
    }
}

/// The double-double cell is the exact cell: chart coordinates (k + ½)·h + t at cell boundaries, t from
/// ±2^-60 down to ±2^-104 and 0 (a tie: to even), for faces 1, 2^-1 and 3·2^-2 (the last makes the
/// quotient inexact), given as exact double-doubles; the reference is sign(t) (ties to the even k).
/// Control: main's f64 path, rounding fl(z), misses the cell for small t.
#[test]
fn the_double_double_cell_is_the_exact_cell_at_cell_boundaries() {
    let s = -30;
    let h = 2f64.powi(s);
    let mut misses = 0;
    let mut cases = 0;
    for face in [1.0, 0.5, 0.75] {
        for k in [0i64, 1, 2, 3, 12345, -7, 536870910, -536870911] {
            for t in [2f64.powi(-60), 2f64.powi(-80), 2f64.powi(-100), 2f64.powi(-104), 0.0] {
                for sign in [1.0, -1.0] {
                    let mid = (k as f64 + 0.5) * h;
                    let t = sign * t;
                    let expected = if t > 0.0 || (t == 0.0 && k % 2 != 0) { k + 1 } else { k };
                    // z = face·(e₀ + (mid + t)·e₁ + ¼·e₂), exact as double-doubles.
                    let a = Dd::sum(face * mid, face * t);
                    let (hi, lo) = ([face, a.hi, 0.25 * face], [0.0, a.lo, 0.0]);
                    let mut out = [0.0; 3];
                    snap_cube_map_dd(&hi, &lo, s, &mut out);
                    // The representative's chart coordinate, read back from the f64 snap.
                    let got = (out[1] / out[0] / h).round() as i64;
                    assert_eq!(got, expected, "face {face} k {k} t {t:e}");
                    let mut plain = hi;
                    snap_cube_map(&mut plain, s);
                    cases += 1;
                    if (plain[1] / plain[0] / h).round() as i64 != expected {
                        misses += 1;
                    }
                }
            }
        }
    }
    eprintln!("main's f64 path missed {misses} of {cases} boundary cells");
    assert!(misses >= cases / 4, "the control: {misses}");
}

/// The released distance from the footpoint follows the exact angle law (conditioned on the public ball,
/// which holds all but `tail` of it), DKW at false failure 1e-6, on S² and SO(3) at 10⁶ rows, ε = 0.01 and
/// 1; a law 10 % wider is rejected.
#[test]
fn released_distances_follow_the_exact_law() {
    let mut rng = seeded_rng_for_experiments(342);
    for eps in [0.01, 1.0] {
        let ll = latlon(1_000_000, eps);
        let tail = ll.ball_chart.as_ref().unwrap().tail_cost;
        assert!(tail < 1e-5, "{tail}");
        let s2 = Sphere::new(3).unwrap();
        let ts: Vec<f64> =
            (0..20_000).map(|_| s2.distance(&paris(), &ll.release_mean(&paris(), &mut rng).unwrap())).collect();
        let kappa = ll.noise.kappa();
        let exact = SphereAngle::purkayastha(3, kappa).unwrap();
        let wider = SphereAngle::purkayastha(3, kappa / 1.1).unwrap();
        // The footpoint is the centre: the release is the law truncated at R (up to the cells straddling
        // the ball's edge, of mass ~f(R)·h, far below 1e-20).
        let top = exact.cdf(ll.ball_chart.as_ref().unwrap().ball);
        let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
        assert!(out.passed(), "S² ε {eps}: KS {} > {}", out.statistic, out.critical);
        assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());

        let rot = rotations(1_000_000, eps);
        let id = UnitQuaternion::identity();
        let ts: Vec<f64> = (0..20_000).map(|_| So3.distance(&id, &rot.release_mean(&id, &mut rng).unwrap())).collect();
        let exact = LaplaceAngle::new(rot.noise.epsilon()).unwrap();
        let wider = LaplaceAngle::new(rot.noise.epsilon() / 1.1).unwrap();
        let top = exact.cdf(rot.ball_chart.as_ref().unwrap().ball);
        let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
        assert!(out.passed(), "SO(3) ε {eps}: KS {} > {}", out.statistic, out.critical);
        assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());
    }
}

/// The offset's arithmetic is within its stated relative bound: m + δ̂ against the exact ‖m‖·z* (double-double
/// references, the drawn θ and direction taken as exact inputs), over θ from 10⁻⁹ to 0.5 and footpoints all
/// over S² and SO(3); the bound's arithmetic part is (2 + 16.5 + 27 + 6 + 3)u·θ on S² and
/// (2 + 10 + 1 + 8 + 2.5 + 2)u·φ on S³ (the axis's own 10u included there as slack). Control: main's absolute
/// form, fl(cos θ·m + sin θ·v̂) − m, is off by far more than that at small θ.
#[test]
fn the_offset_is_within_its_relative_bound() {
    use rand::RngExt;
    let u = f64::EPSILON / 2.0;
    let mut rng = seeded_rng_for_experiments(343);
    let (mut worst_s2, mut worst_so3, mut worst_plain) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..20_000 {
        let theta = 10f64.powf(-9.0 + 8.7 * rng.random::<f64>());
        let m: [f64; 3] = {
            let g = crate::sample::sphere::uniform_s2(&mut rng);
            let n = g.norm();
            [g[0] / n, g[1] / n, g[2] / n]
        };
        let dir = crate::sample::sphere::uniform_circle(&mut rng);
        let (mf, d) = s2_offset(&m, theta, dir);
        // Reference: Duff's frame at m̂ = m/‖m‖ in double-double, (c, s) normalised, cos θ and sin θ exact.
        let md: Vec<Dd> = mf.iter().map(|&x| Dd::new(x)).collect();
        let len = crate::sample::double_double::norm(&md);
        let [x, y, z] = [md[0].div(len), md[1].div(len), md[2].div(len)];
        let sigma = Dd::new(1f64.copysign(z.hi));
        let a = Dd::new(-1.0).div(sigma.add(z));
        let e1 = [Dd::new(1.0).add(sigma.mul(x).mul(x).mul(a)), sigma.mul(x).mul(y).mul(a), sigma.mul(x).neg()];
        let e2 = [x.mul(y).mul(a), sigma.add(y.mul(y).mul(a)), y.neg()];
        let cs = crate::sample::double_double::norm(&[Dd::new(dir.0), Dd::new(dir.1)]);
        let (c, s) = (Dd::new(dir.0).div(cs), Dd::new(dir.1).div(cs));
        let (sin, cos) = Dd::new(theta).sin_cos();
        let mut err = 0.0;
        let mut plain = 0.0;
        for j in 0..3 {
            let v = c.mul(e1[j]).add(s.mul(e2[j]));
            let exact = cos.mul(md[j]).add(len.mul(sin).mul(v));
            err += Dd::sum(mf[j], d[j]).sub(exact).hi.powi(2);
            let vhat = crate::sample::sphere::s2_point_at_angle(mf, 0.0, 1.0, dir)[j];
            let absolute = (theta.cos() * mf[j] + theta.sin() * vhat) - mf[j];
            plain += Dd::sum(mf[j], absolute).sub(exact).hi.powi(2);
        }
        worst_s2 = worst_s2.max(err.sqrt() / (u * theta));
        worst_plain = worst_plain.max(plain.sqrt() / (u * theta));

        // SO(3): φ = θ/2, a random axis, a random footpoint.
        let half = 0.5 * theta;
        let axis = crate::sample::sphere::uniform_s2(&mut rng);
        let foot =
            UnitQuaternion::from_scaled_axis(crate::sample::sphere::uniform_s2(&mut rng) * (3.0 * rng.random::<f64>()));
        let mq = so3_footpoint(&foot);
        let (sn, q) = (half.sin(), (0.5 * half).sin());
        let dn = nalgebra::Quaternion::new(-(2.0 * (q * q)), sn * axis[0], sn * axis[1], sn * axis[2]);
        let dq = mq * dn;
        let al = crate::sample::double_double::norm(&axis.iter().map(|&t| Dd::new(t)).collect::<Vec<_>>());
        let (hs, hc) = Dd::new(half).sin_cos();
        let n =
            [hc, hs.mul(Dd::new(axis[0])).div(al), hs.mul(Dd::new(axis[1])).div(al), hs.mul(Dd::new(axis[2])).div(al)];
        let [w1, x1, y1, z1] = [mq.w, mq.i, mq.j, mq.k].map(Dd::new);
        let [w2, x2, y2, z2] = n;
        let exact = [
            w1.mul(x2).add(x1.mul(w2)).add(y1.mul(z2)).sub(z1.mul(y2)),
            w1.mul(y2).sub(x1.mul(z2)).add(y1.mul(w2)).add(z1.mul(x2)),
            w1.mul(z2).add(x1.mul(y2)).sub(y1.mul(x2)).add(z1.mul(w2)),
            w1.mul(w2).sub(x1.mul(x2)).sub(y1.mul(y2)).sub(z1.mul(z2)),
        ];
        let err: f64 = (0..4).map(|j| Dd::sum(mq.coords[j], dq.coords[j]).sub(exact[j]).hi.powi(2)).sum();
        worst_so3 = worst_so3.max(err.sqrt() / (u * half));
        let _ = i;
    }
    eprintln!(
        "offset error per unit of angle: S² {worst_s2:.2}u, SO(3) {worst_so3:.2}u; absolute form {worst_plain:.3e}u"
    );
    assert!(worst_s2 <= 54.5 && worst_so3 <= 25.5, "{worst_s2} {worst_so3}");
    assert!(worst_plain > 1e3, "the control: {worst_plain}");
}

/// A centre of S^{n−1} with no zero coordinate (so every face and sign is exercised), and the mean of 10⁶
/// rows within 20° of it.
fn sphere_center(n: usize) -> DVector<f64> {
    DVector::from_iterator(n, (0..n).map(|i| if i == 0 { 1.0 } else { (-0.5f64).powi(i as i32) })).normalize()
}

fn sphere_mean(n: usize, eps: f64, conditioning: Conditioning) -> PrivateFrechetMean<Sphere> {
    PrivateFrechetMean::new(Sphere::new(n).unwrap(), sphere_center(n), 20f64.to_radians(), 1_000_000, eps, conditioning)
        .unwrap()
}

/// A point `angle` from `c` towards e₂'s tangent part.
fn towards(c: &DVector<f64>, angle: f64) -> DVector<f64> {
    let mut t = DVector::zeros(c.len());
    t[1] = 1.0;
    let t = (&t - c * c[1]).normalize();
    (c * angle.cos() + t * angle.sin()).normalize()
}

/// S^{n−1} for n = 4, 10, 100 and 1000, unconditioned, and the ball-conditioned mode on S^{n−1}, S² and SO(3): releases
/// at footpoints at the centre and at the ball's edge (r + Δ/2) are grid points (the f64 snap of the release
/// gives the same bits) and lie in the keep-ball (the data ball when conditioned). Control: raw draws are no
/// grid points.
#[test]
fn sphere_and_conditioned_relative_releases_are_grid_points_in_their_ball() {
    let mut rng = seeded_rng_for_experiments(344);
    let check_sphere = |mean: &PrivateFrechetMean<Sphere>, rng: &mut crate::sample::rng::ReleaseRng| {
        let chart = mean.ball_chart.as_ref().expect("the relative-error release is planned");
        if mean.conditioned {
            assert_eq!(chart.ball, mean.radius());
        }
        let spacing = chart.rounding.float_safe_grid().spacing_log2;
        let c = mean.center().clone();
        let sphere = *mean.manifold();
        for foot in [c.clone(), towards(&c, mean.radius() + 0.5 * mean.sensitivity())] {
            for _ in 0..1000 {
                let y = mean.release_mean(&foot, rng).unwrap();
                let mut again = y.clone();
                snap_cube_map(again.as_mut_slice(), spacing);
                assert_eq!(again.map(f64::to_bits), y.map(f64::to_bits));
                assert!(sphere.distance(&c, &y) <= chart.ball);
            }
            let raw = mean.privatize_mean(&foot, rng);
            let mut snapped = raw.clone();
            snap_cube_map(snapped.as_mut_slice(), spacing);
            assert_ne!(raw, snapped, "the control: a raw draw is no grid point");
        }
    };
    for eps in [0.01, 1.0] {
        for n in [4, 10, 100, 1000] {
            check_sphere(&sphere_mean(n, eps, Conditioning::Unconditioned), &mut rng);
        }
        check_sphere(&sphere_mean(4, eps, Conditioning::Ball), &mut rng);
        let ll = PrivateFrechetMean::new(
            Sphere::new(3).unwrap(),
            paris(),
            300.0 / 6371.0088,
            1_000_000,
            eps,
            Conditioning::Ball,
        )
        .unwrap();
        check_sphere(&ll, &mut rng);
        let rot = PrivateFrechetMean::new(
            So3,
            UnitQuaternion::identity(),
            20f64.to_radians(),
            1_000_000,
            eps,
            Conditioning::Ball,
        )
        .unwrap();
        let chart = rot.ball_chart.as_ref().unwrap();
        assert_eq!(chart.ball, rot.radius());
        let spacing = chart.rounding.float_safe_grid().spacing_log2;
        let edge = rot.radius() + 0.5 * rot.sensitivity();
        for foot in
            [UnitQuaternion::identity(), UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(0.0, edge, 0.0))]
        {
            for _ in 0..1000 {
                let y = rot.release_mean(&foot, &mut rng).unwrap();
                assert_eq!(snap_quaternion(&y, spacing).coords.map(f64::to_bits), y.coords.map(f64::to_bits));
                assert!(So3.distance(&UnitQuaternion::identity(), &y) <= rot.radius());
            }
        }
    }
}

/// Released distances from the footpoint (the centre) follow the exact angle law truncated at the keep-ball,
/// DKW at false failure 10⁻⁶ with 2·10⁴ draws: S³, S⁹, S⁹⁹ and S⁹⁹⁹ unconditioned at ε = 0.01 and 1, and the
/// ball-conditioned S^{n−1} (n = 3, 4) and SO(3) at ε = 0.01; a law 10 % wider is rejected (the control).
#[test]
fn sphere_and_conditioned_releases_follow_the_exact_law() {
    let mut rng = seeded_rng_for_experiments(345);
    let mut check = |mean: &PrivateFrechetMean<Sphere>, label: &str| {
        let n = mean.manifold().ambient();
        let c = mean.center().clone();
        let ts: Vec<f64> =
            (0..20_000).map(|_| mean.manifold().distance(&c, &mean.release_mean(&c, &mut rng).unwrap())).collect();
        let kappa = mean.noise.kappa();
        let exact = SphereAngle::purkayastha(n, kappa).unwrap();
        let wider = SphereAngle::purkayastha(n, kappa / 1.1).unwrap();
        let top = exact.cdf(mean.ball_chart.as_ref().unwrap().ball);
        let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
        assert!(out.passed(), "{label}: KS {} > {}", out.statistic, out.critical);
        assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());
    };
    for eps in [0.01, 1.0] {
        for n in [4, 10, 100, 1000] {
            check(&sphere_mean(n, eps, Conditioning::Unconditioned), &format!("S^{} ε {eps}", n - 1));
        }
    }
    check(&sphere_mean(4, 0.01, Conditioning::Ball), "S³ conditioned");
    let ll = PrivateFrechetMean::new(
        Sphere::new(3).unwrap(),
        paris(),
        300.0 / 6371.0088,
        1_000_000,
        0.01,
        Conditioning::Ball,
    )
    .unwrap();
    check(&ll, "S² conditioned");
    let rot = PrivateFrechetMean::new(
        So3,
        UnitQuaternion::identity(),
        20f64.to_radians(),
        1_000_000,
        0.01,
        Conditioning::Ball,
    )
    .unwrap();
    let id = UnitQuaternion::identity();
    let ts: Vec<f64> = (0..20_000).map(|_| So3.distance(&id, &rot.release_mean(&id, &mut rng).unwrap())).collect();
    let exact = LaplaceAngle::new(rot.noise.epsilon()).unwrap();
    let wider = LaplaceAngle::new(rot.noise.epsilon() / 1.1).unwrap();
    let top = exact.cdf(rot.radius());
    let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
    assert!(out.passed(), "SO(3) conditioned: KS {} > {}", out.statistic, out.critical);
    assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed());
}

/// The S^{n−1} release in double-double (n = 4, 5, 10, 100, 1000) is within its bound's arithmetic part: z
/// ([`sphere_release_dd`]) against the exact z* = cos θ·m̂ + sin θ·v* in 2^-400 fixed point (m̂ = m/‖m‖, v* the
/// Householder tangent at m̂ of the same Gaussians, θ the drawn double-double angle as an exact input), over θ
/// from 10⁻⁹ to π/2 and footpoints all over the sphere, some off unit norm by up to 3 ulps and by 10⁻⁸.
/// Asserted: ‖z − z*‖ ≤ [`sphere_mean_release_error`] at angle error 0, less the Gaussians' 16.01u·θ and its 1 %
/// (Lemma DD's terms only). Control: the same point in f64 (fl(cos θ·m̂ + sin θ·v̂) from the same double-double
/// m̂ and v̂) is off by far more.
#[test]
fn the_sphere_release_is_within_its_double_double_bound() {
    use crate::sample::double_double::exact::Fx;
    use rand::RngExt;
    let u = f64::EPSILON / 2.0;
    let mut rng = seeded_rng_for_experiments(346);
    for (n, draws) in [(4usize, 3000), (5, 2000), (10, 2000), (100, 300), (1000, 40)] {
        let (mut worst, mut worst_plain) = (0.0f64, f64::INFINITY);
        for i in 0..draws {
            let theta = 10f64.powf(-9.0 + 9.19 * rng.random::<f64>()).min(std::f64::consts::FRAC_PI_2);
            let theta = Dd { hi: theta, lo: if i % 2 == 0 { 0.0 } else { theta * u * (rng.random::<f64>() - 0.5) } };
            let g: Vec<f64> = (0..n).map(|_| crate::sample::normal::normal_pair(&mut rng).0).collect();
            let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
            let scale = match i % 3 {
                0 => 1.0,
                1 => 1.0 + 3.0 * f64::EPSILON * (rng.random::<f64>() - 0.5),
                _ => 1.0 + 1e-8,
            };
            let foot: Vec<f64> = g.iter().map(|x| x / norm * scale).collect();
            let seed = rng.random::<u64>();
            let z = sphere_release_dd(&foot, theta, &mut seeded_rng_for_experiments(seed));
            // The same Gaussians as the tangent draws: a twin generator, drawn in the same pattern.
            let mut twin = seeded_rng_for_experiments(seed);
            let mut gs = vec![0.0; n - 1];
            let mut j = 0;
            while j + 1 < n - 1 {
                (gs[j], gs[j + 1]) = crate::sample::normal::normal_pair(&mut twin);
                j += 2;
            }
            if j < n - 1 {
                gs[j] = crate::sample::normal::normal_pair(&mut twin).0;
            }
            // Exact: m̂ = m/‖m‖, t = (m̂·g)/(1 + |m̂_n|), v = s(t·(m̂ + s·e_n) − g)/‖g‖.
            let mf: Vec<Fx> = foot.iter().map(|&x| Fx::from_f64(x)).collect();
            let len = mf.iter().fold(Fx::from_f64(0.0), |a, x| a.add(&x.mul(x))).sqrt();
            let mh: Vec<Fx> = mf.iter().map(|x| x.div(&len)).collect();
            let gf: Vec<Fx> = gs.iter().map(|&x| Fx::from_f64(x)).collect();
            let gnorm = gf.iter().fold(Fx::from_f64(0.0), |a, x| a.add(&x.mul(x))).sqrt();
            let p = gf.iter().zip(&mh).fold(Fx::from_f64(0.0), |a, (g, m)| a.add(&g.mul(m)));
            let s = Fx::from_f64(1f64.copysign(foot[n - 1]));
            let t = p.div(&Fx::from_f64(1.0).add(&mh[n - 1].abs()));
            let (sin, cos) = Fx::dd(theta).sin_cos();
            let (mut err, mut plain) = (Fx::from_f64(0.0), Fx::from_f64(0.0));
            for k in 0..n {
                let v = if k == n - 1 { t.mul(&mh[k].add(&s)) } else { t.mul(&mh[k]).sub(&gf[k]) };
                let v = v.div(&gnorm).mul(&s);
                let exact = cos.mul(&mh[k]).add(&sin.mul(&v));
                let d = Fx::dd(z[k]).sub(&exact);
                err = err.add(&d.mul(&d));
                let vk = Fx::dd(z[k]).sub(&cos.mul(&mh[k])).div(&sin).to_f64();
                let f64_point = theta.hi.cos() * mh[k].to_f64() + theta.hi.sin() * vk;
                let d = Fx::from_f64(f64_point).sub(&exact);
                plain = plain.add(&d.mul(&d));
            }
            let arithmetic =
                sphere_mean_release_error(n, theta.hi, 0.0) / 1.01 - GAUSSIAN_DIRECTION_ERROR_UNITS * u * theta.hi;
            worst = worst.max(err.sqrt().to_f64() / arithmetic);
            worst_plain = worst_plain.min(plain.sqrt().to_f64() / arithmetic);
        }
        eprintln!(
            "S^{}: error / the bound's arithmetic part at most {worst:.3e}; f64 point at least {worst_plain:.3e}",
            n - 1
        );
        assert!(worst <= 1.0, "n {n}: {worst}");
        assert!(worst_plain > 1.0, "the control, n {n}: {worst_plain}");
    }
}

/// A time-of-day mean: 10⁶ rows within `minutes` of noon on the circle.
fn clock_mean(minutes: f64, eps: f64, conditioning: Conditioning) -> PrivateFrechetMean<Sphere> {
    let noon = DVector::from_vec(vec![1.0, 0.0]);
    let radius = minutes / 1440.0 * std::f64::consts::TAU;
    PrivateFrechetMean::new(Sphere::new(2).unwrap(), noon, radius, 1_000_000, eps, conditioning).unwrap()
}

/// The circle's relative-error release (`docs/proofs/float_safety.md` §3i, "The circle"), time of day within
/// 10 min, 2 h and 4 h (T beyond π/2) of noon at 10⁶ rows, ε = 0.01 and 1, unconditioned and conditioned: releases at footpoints at
/// the centre and at the ball's edge are turn-grid points (the f64 snap of the release gives the same bits) in
/// the keep-ball, and their distances from the centre follow the exact angle law truncated at the keep-ball
/// (DKW at false failure 10⁻⁶, 2·10⁴ draws). Controls: raw draws are no grid points; a law 10 % wider is
/// rejected.
#[test]
fn circle_relative_releases_are_grid_points_and_follow_the_exact_law() {
    let mut rng = seeded_rng_for_experiments(347);
    for (minutes, eps, conditioning) in [
        (10.0, 0.01, Conditioning::Unconditioned),
        (10.0, 1.0, Conditioning::Unconditioned),
        (10.0, 0.01, Conditioning::Ball),
        (120.0, 0.01, Conditioning::Auto),
        (240.0, 0.01, Conditioning::Auto),
    ] {
        let mean = clock_mean(minutes, eps, conditioning);
        let chart = mean.ball_chart.as_ref().expect("the relative-error release is planned");
        let spacing = chart.rounding.float_safe_grid().spacing_log2;
        assert!(chart.rounding.turn_spacing().is_some(), "{spacing}");
        let c = mean.center().clone();
        let circle = *mean.manifold();
        for foot in [c.clone(), towards(&c, mean.radius() + 0.5 * mean.sensitivity())] {
            for _ in 0..1000 {
                let y = mean.release_mean(&foot, &mut rng).unwrap();
                let mut again = y.clone();
                crate::space::grid::snap_turns(again.as_mut_slice(), spacing);
                assert_eq!(again.map(f64::to_bits), y.map(f64::to_bits));
                assert!(circle.distance(&c, &y) <= chart.ball);
            }
            let raw = mean.privatize_mean(&foot, &mut rng);
            let mut snapped = raw.clone();
            crate::space::grid::snap_turns(snapped.as_mut_slice(), spacing);
            assert_ne!(raw, snapped, "the control: a raw draw is no grid point");
        }
        let ts: Vec<f64> =
            (0..20_000).map(|_| circle.distance(&c, &mean.release_mean(&c, &mut rng).unwrap())).collect();
        let kappa = mean.noise.kappa();
        let exact = SphereAngle::purkayastha(2, kappa).unwrap();
        let wider = SphereAngle::purkayastha(2, kappa / 1.1).unwrap();
        let top = exact.cdf(chart.ball);
        let label = format!("{minutes} min, ε {eps}, {conditioning:?}");
        let out = ks_test(&mut ts.clone(), |x| x.iter().map(|&t| (exact.cdf(t) / top).min(1.0)).collect(), 1e-6);
        assert!(out.passed(), "{label}: KS {} > {}", out.statistic, out.critical);
        assert!(!ks_test(&mut ts.clone(), |x| x.iter().map(|&t| wider.cdf(t)).collect(), 1e-6).passed(), "{label}");
    }
}

/// The circle's release in turns ([`circle_release_turns`]) is within its bound's arithmetic part (the
/// quotient by 2π and the sum, [`circle_mean_release_error`] at angle error 0 less its 1 %) of the exact
/// F + s·θ/2π in 2^-400 fixed point (π by Machin's formula), for footpoints all around the circle and θ from
/// 10⁻¹² to π/2 with low parts. Control: the same sum in f64 errs by far more.
#[test]
fn the_circle_release_is_within_its_double_double_bound() {
    use crate::sample::double_double::exact::{Fx, P};
    use num_bigint::BigInt;
    use rand::RngExt;
    let u = f64::EPSILON / 2.0;
    // atan(1/k) = Σ (−1)^j / ((2j + 1)·k^{2j+1}) in fixed point; π = 16·atan(1/5) − 4·atan(1/239).
    let atan_inv = |k: i64| {
        let (mut sum, mut power, mut j) = (BigInt::from(0), (BigInt::from(1) << P) / k, 0i64);
        while power != BigInt::from(0) {
            let term = &power / (2 * j + 1);
            sum = if j % 2 == 0 { sum + term } else { sum - term };
            power /= k * k;
            j += 1;
        }
        sum
    };
    let tau = Fx((atan_inv(5) * 16 - atan_inv(239) * 4) * 2);
    assert!((tau.to_f64() - std::f64::consts::TAU).abs() < 1e-15);
    let mut rng = seeded_rng_for_experiments(348);
    let (mut worst, mut control) = (0.0f64, f64::INFINITY);
    for i in 0..20_000 {
        let angle = rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
        let foot = [angle.cos(), angle.sin()];
        let theta = 10f64.powf(-12.0 + 12.19 * rng.random::<f64>()).min(std::f64::consts::FRAC_PI_2);
        let theta = Dd { hi: theta, lo: if i % 2 == 0 { 0.0 } else { theta * u * (rng.random::<f64>() - 0.5) } };
        let ahead = rng.random::<bool>();
        let got = circle_release_turns(&foot, theta, ahead);
        let f = crate::numerics::trig::atan2_turns(foot[1], foot[0]).unwrap();
        let offset = Fx::dd(theta).div(&tau);
        let exact = Fx::from_f64(f).add(&if ahead { offset.clone() } else { Fx(-offset.0.clone()) });
        let arithmetic = circle_mean_release_error(theta.hi, 0.0) / 1.01;
        worst = worst.max(Fx::dd(got).sub(&exact).abs().to_f64() / arithmetic);
        let plain = f + if ahead { theta.hi / std::f64::consts::TAU } else { -theta.hi / std::f64::consts::TAU };
        let off = Fx::from_f64(plain).sub(&exact).abs().to_f64();
        if off > 0.0 {
            control = control.min(off / arithmetic);
        }
    }
    eprintln!("circle: error / the bound's arithmetic part at most {worst:.3e}; the f64 sum at least {control:.3e}");
    assert!(worst <= 1.0, "{worst}");
    assert!(control > 1.0, "the control: {control}");
}

/// A footpoint farther from the centre than the mean of points in the ball can lie (R_P) is refused at once by
/// the relative-error release on the circle, S², S^{n−1} and SO(3), rather than drawn for ever (the keep-ball
/// would keep none of its draws); one just inside R_P is released (control).
#[test]
fn a_footpoint_beyond_the_ball_is_refused_not_drawn_for_ever() {
    let mut rng = seeded_rng_for_experiments(349);
    let far = |mean: &PrivateFrechetMean<Sphere>, rng: &mut crate::sample::rng::ReleaseRng| {
        let chart = mean.ball_chart.as_ref().expect("the relative-error release is planned");
        let c = mean.center().clone();
        let inside = towards(&c, chart.footpoint_radius * (1.0 - 1e-9));
        assert!(mean.release_mean(&inside, rng).is_ok());
        let outside = towards(&c, chart.footpoint_radius + 1e-6);
        let err = mean.release_mean(&outside, rng).unwrap_err().to_string();
        assert!(err.contains("farther than the mean of points within the radius can"), "{err}");
    };
    far(&clock_mean(10.0, 0.01, Conditioning::Auto), &mut rng);
    far(&sphere_mean(4, 0.01, Conditioning::Auto), &mut rng);
    far(&latlon(1_000_000, 0.01), &mut rng);
    let rot = rotations(1_000_000, 0.01);
    let chart = rot.ball_chart.as_ref().unwrap();
    let turn = |angle: f64| UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(angle, 0.0, 0.0));
    assert!(rot.release_mean(&turn(chart.footpoint_radius * (1.0 - 1e-9)), &mut rng).is_ok());
    assert!(rot.release_mean(&turn(chart.footpoint_radius + 1e-6), &mut rng).is_err());
}
