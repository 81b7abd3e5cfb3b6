use super::*;
use crate::sample::normal::fill_normals;
use crate::sample::rng::seeded_rng_for_experiments;
use nalgebra::{DVector, Matrix3};

fn random_rotation<R: rand::Rng + ?Sized>(rng: &mut R) -> UnitQuaternion<f64> {
    let mut g = [0.0; 4];
    fill_normals(rng, &mut g);
    UnitQuaternion::from_quaternion(Quaternion::new(g[0], g[1], g[2], g[3]))
}

fn random_unit<R: rand::Rng + ?Sized>(rng: &mut R, n: usize) -> DVector<f64> {
    let mut g = vec![0.0; n];
    fill_normals(rng, &mut g);
    DVector::from_vec(g).normalize()
}

/// A rotation within `angle` of the identity, about a random axis.
fn near_identity<R: rand::Rng + ?Sized>(rng: &mut R, angle: f64) -> UnitQuaternion<f64> {
    use rand::RngExt;
    let axis = random_unit(rng, 3);
    UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(axis[0], axis[1], axis[2]) * angle * rng.random::<f64>())
}

/// Kolmogorov–Smirnov distance of `xs` from the CDF `cdf`.
fn ks(mut xs: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max)
}

/// The DKW–Massart critical value: P[sup |F_n − F| > t] ≤ 2e^{−2nt²} = α, exact for every n.
fn ks_critical(n: usize, alpha: f64) -> f64 {
    ((2.0 / alpha).ln() / (2.0 * n as f64)).sqrt()
}

#[test]
fn the_embedding_is_a_rotation_matrix_and_its_distance_is_the_chord() {
    let mut rng = seeded_rng_for_experiments(1);
    for _ in 0..1000 {
        let (a, b) = (random_rotation(&mut rng), random_rotation(&mut rng));
        let ra = Matrix3::from_row_slice(&rotation_matrix_entries(&a));
        assert!((ra - a.to_rotation_matrix().into_inner()).amax() < 1e-15);
        let rb = Matrix3::from_row_slice(&rotation_matrix_entries(&b));
        // ‖R − R′‖_F = 2√2·sin(θ/2) ≤ 2√2.
        let theta = a.angle_to(&b);
        assert!(((ra - rb).norm() - 2.0 * 2f64.sqrt() * (theta / 2.0).sin()).abs() < 1e-13);
    }
}

/// Replace-one pairs chosen adversarially (the replaced row turned by π about a random axis on SO(3), sent to
/// its antipode on spheres): the computed means move by at most Δ, and by nearly Δ (the bound is tight).
#[test]
fn adversarial_neighbours_move_the_computed_mean_by_at_most_the_sensitivity() {
    let mut rng = seeded_rng_for_experiments(2);
    for n in [1usize, 2, 17, 1000] {
        let mut worst: f64 = 0.0;
        for _ in 0..50 {
            let mut data: Vec<UnitQuaternion<f64>> = (0..n).map(|_| random_rotation(&mut rng)).collect();
            let a = ExtrinsicSum::of_rotations(&data).unwrap();
            let axis = random_unit(&mut rng, 3);
            let flip = UnitQuaternion::from_quaternion(Quaternion::new(0.0, axis[0], axis[1], axis[2]));
            let i = n / 2;
            data[i] *= flip;
            let b = ExtrinsicSum::of_rotations(&data).unwrap();
            assert_eq!(a.depth, b.depth);
            let mech = ExtrinsicMean::new(Embedding::So3, n as u64, a.depth, 1.0).unwrap();
            let d = a.sum.iter().zip(&b.sum).map(|(x, y)| (x / n as f64 - y / n as f64).powi(2)).sum::<f64>().sqrt();
            assert!(d <= mech.sensitivity(), "n = {n}: {d} > {}", mech.sensitivity());
            worst = worst.max(d * n as f64);
        }
        assert!(worst > 2.0 * 2f64.sqrt() * (1.0 - 1e-9), "n = {n}: {worst}");
        // Spheres: the antipode.
        for dim in [2usize, 3, 10] {
            let mut data: Vec<DVector<f64>> = (0..n).map(|_| random_unit(&mut rng, dim)).collect();
            let a = ExtrinsicSum::of_directions(&data, dim).unwrap();
            data[0] = -data[0].clone();
            let b = ExtrinsicSum::of_directions(&data, dim).unwrap();
            let mech = ExtrinsicMean::new(Embedding::sphere(dim).unwrap(), n as u64, a.depth, 1.0).unwrap();
            let d = a.sum.iter().zip(&b.sum).map(|(x, y)| (x / n as f64 - y / n as f64).powi(2)).sum::<f64>().sqrt();
            assert!(d <= mech.sensitivity() && d * n as f64 > 2.0 * (1.0 - 1e-9), "{dim}, {n}: {d}");
        }
    }
}

/// The float error bound holds against an accurate mean (compensated sums of the exact rotations' matrices),
/// and the sensitivity is the diameter over n plus twice it.
#[test]
fn the_float_error_bound_covers_the_computed_mean() {
    let mut rng = seeded_rng_for_experiments(3);
    let n = 5000;
    let data: Vec<UnitQuaternion<f64>> = (0..n).map(|_| near_identity(&mut rng, 0.3)).collect();
    let s = ExtrinsicSum::of_rotations(&data).unwrap();
    assert!(s.depth as usize <= LEAF + 13, "{}", s.depth);
    let bound = ExtrinsicMean::float_error(Embedding::So3, s.depth);
    assert!(bound < 1e-10 && bound > UNIT_TOLERANCE, "{bound}");
    // Neumaier sums of nalgebra's matrices of the normalised quaternions.
    let mut acc = [(0.0f64, 0.0f64); 9];
    for q in &data {
        let r = q.to_rotation_matrix().into_inner();
        for (k, (s, c)) in acc.iter_mut().enumerate() {
            let x = r[(k / 3, k % 3)];
            let t = *s + x;
            *c += if s.abs() >= x.abs() { (*s - t) + x } else { (x - t) + *s };
            *s = t;
        }
    }
    let err = acc.iter().zip(&s.sum).map(|((a, c), b)| ((a + c) / n as f64 - b / n as f64).powi(2)).sum::<f64>();
    assert!(err.sqrt() <= bound, "{} > {bound}", err.sqrt());
    let mech = ExtrinsicMean::new(Embedding::So3, n as u64, s.depth, 1.0).unwrap();
    assert!(mech.sensitivity() >= 2.0 * 2f64.sqrt() / n as f64 + 2.0 * bound);
    assert!(mech.sensitivity() <= (2.0 * 2f64.sqrt() / n as f64 + 2.0 * bound) * (1.0 + 1e-12));
    // Merging parts adds depth, never loses rows.
    let parts: Vec<ExtrinsicSum> = data.chunks(700).map(|c| ExtrinsicSum::of_rotations(c).unwrap()).collect();
    let merged = ExtrinsicSum::merge_all(parts).unwrap();
    assert_eq!(merged.n, n as u64);
    assert!(merged.sum.iter().zip(&s.sum).all(|(a, b)| (a - b).abs() < 1e-9));
}

/// ‖release − μ̂‖ follows Gamma(D, σ) (KS against its exact CDF at α = 1e-6, DKW–Massart critical value), and
/// on R³ the direction is uniform (its first coordinate uniform on [−1, 1], Archimedes). Negative controls:
/// a radius of shape D − 1 or scale 1.1σ, and a direction normalised from a uniform cube, fail the same tests.
#[test]
fn the_noise_radius_is_gamma_and_the_direction_uniform() {
    let mut rng = seeded_rng_for_experiments(4);
    let draws = 20_000;
    let alpha = 1e-6;
    let crit = ks_critical(draws, alpha);
    for embedding in [Embedding::So3, Embedding::Sphere(3)] {
        let d = embedding.dim();
        let n = 10u64;
        let sum = ExtrinsicSum { sum: vec![0.3; d], n, depth: 9 };
        let mech = ExtrinsicMean::new(embedding, n, 9, 1.0).unwrap();
        let sigma = mech.sigma();
        let mu: Vec<f64> = sum.sum.iter().map(|s| s / n as f64).collect();
        let mut radii = Vec::with_capacity(draws);
        let mut first = Vec::with_capacity(draws);
        for _ in 0..draws {
            let r = mech.release(&sum, &mut rng).unwrap();
            let z: Vec<f64> = r.embedded.iter().zip(&mu).map(|(a, b)| a - b).collect();
            let norm = z.iter().map(|x| x * x).sum::<f64>().sqrt();
            radii.push(norm);
            first.push(z[0] / norm);
        }
        let cdf = |s: f64, k: usize| move |x: f64| 1.0 - gamma_tail(k, x / s);
        let good = ks(radii.clone(), cdf(sigma, d));
        assert!(good < crit, "{embedding:?}: KS {good} ≥ {crit}");
        // Controls: the same draws against a wrong law (what a broken sampler's draws against the right law show).
        assert!(ks(radii.clone(), cdf(sigma, d - 1)) > crit, "{embedding:?}: shape control");
        assert!(ks(radii.clone(), cdf(1.1 * sigma, d)) > crit, "{embedding:?}: scale control");
        if d == 3 {
            let uniform = |x: f64| ((x + 1.0) / 2.0).clamp(0.0, 1.0);
            let k = ks(first, uniform);
            assert!(k < crit, "direction KS {k}");
            // A direction normalised from the uniform cube is not uniform: its first coordinate piles up at ±1/√3.
            use rand::RngExt;
            let bad: Vec<f64> = (0..draws)
                .map(|_| {
                    let v = DVector::from_fn(3, |_, _| rng.random::<f64>() * 2.0 - 1.0);
                    v[0] / v.norm()
                })
                .collect();
            assert!(ks(bad, uniform) > crit, "direction control");
        }
    }
}

/// Releases are grid points of the embedding's chart (snapping again changes no bit), raw releases are not (the
/// control), and ε′ + ε₀ ≤ ε with ε₀ small and positive.
#[test]
fn releases_lie_on_the_grid_and_the_rounding_cost_is_inside_epsilon() {
    let mut rng = seeded_rng_for_experiments(5);
    let data: Vec<UnitQuaternion<f64>> = (0..1000).map(|_| near_identity(&mut rng, 0.35)).collect();
    let sum = ExtrinsicSum::of_rotations(&data).unwrap();
    for eps in [0.01, 1.0, 100.0] {
        let mech = ExtrinsicMean::new(Embedding::So3, 1000, sum.depth, eps).unwrap();
        let cost = mech.rounding_cost();
        assert!(cost > 0.0 && cost < 1e-2 * eps, "{eps}: {cost}");
        assert!(add_up(mech.noise_epsilon(), cost) <= eps);
        // ε as asked, up to the K-norm direction's negligible δ_N·(1 + e^ε) (float_safety.md §6).
        let delta = crate::privacy::float_safety::negligible_delta(1e-300, eps);
        assert_eq!(mech.guarantee(), Guarantee::pure(eps).with_delta(delta));
        assert_eq!(mech.rounding().grid().chart, crate::privacy::Chart::Embedding);
        let mut off_grid = 0;
        for _ in 0..200 {
            let r = mech.release(&sum, &mut rng).unwrap();
            let mut again = r.embedded.clone();
            mech.rounding().snap_coordinates(&mut again);
            assert_eq!(again, r.embedded);
            let raw = mech.release_unprotected(&sum, &mut rng);
            let mut snapped = raw.clone();
            mech.rounding().snap_coordinates(&mut snapped);
            off_grid += usize::from(snapped != raw);
        }
        assert!(off_grid > 190, "{eps}: {off_grid}");
    }
}

/// The eigenvector projection is the SVD's nearest rotation U·diag(1, 1, det UVᵀ)·Vᵀ, also for matrices of
/// negative determinant.
#[test]
fn the_projection_is_the_nearest_rotation() {
    let mut rng = seeded_rng_for_experiments(6);
    for i in 0..2000 {
        let mut g = [0.0; 9];
        fill_normals(&mut rng, &mut g);
        if i % 2 == 0 {
            g.iter_mut().step_by(4).for_each(|x| *x += 1.5);
        }
        let m = Matrix3::from_row_slice(&g);
        let svd = m.svd(true, true);
        let (u, vt) = (svd.u.unwrap(), svd.v_t.unwrap());
        let d = (u * vt).determinant().signum();
        let r = u * Matrix3::from_diagonal(&nalgebra::Vector3::new(1.0, 1.0, d)) * vt;
        let (q, gap) = nearest_rotation(&g);
        let q = q.unwrap();
        let mine = UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]));
        let ours = Matrix3::from_row_slice(&rotation_matrix_entries(&mine));
        // The SVD's singular values are sorted descending: s₂ + d·s₃ is the gap's half.
        let s = svd.singular_values;
        assert!((gap - 2.0 * (s[1] + d * s[2])).abs() < 1e-9, "{gap} vs {}", 2.0 * (s[1] + d * s[2]));
        if gap > 1e-6 {
            assert!((ours - r).amax() < 1e-7 / gap, "{i}: {}", (ours - r).amax());
        }
    }
}

/// Concentrated data: stable releases whose stated 95 % error bound covers the exact extrinsic mean's
/// projection at least 95 % of the time (misses ~ Binomial(2000, ≤ 0.05): more than 170 has probability
/// below 1e-9). Evenly spread data (the 24 rotations of the octahedral group, or ± pairs of unit vectors: an
/// exact mean of 0): unstable, said so (the degeneracy probability is then a p-value, uniform on (0, 1)).
#[test]
fn the_instability_statement_says_when_the_projection_means_nothing() {
    let mut rng = seeded_rng_for_experiments(7);
    let data: Vec<UnitQuaternion<f64>> = (0..500).map(|_| near_identity(&mut rng, 0.35)).collect();
    let sum = ExtrinsicSum::of_rotations(&data).unwrap();
    let mech = ExtrinsicMean::new(Embedding::So3, 500, sum.depth, 1.0).unwrap();
    let exact: Vec<f64> = sum.sum.iter().map(|s| s / 500.0).collect();
    let (q, _) = nearest_rotation(&exact);
    let q = q.unwrap();
    let truth = UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]));
    let mut misses = 0;
    for _ in 0..2000 {
        let r = mech.release(&sum, &mut rng).unwrap();
        let bound = r.error_bound.expect("stable");
        assert!(r.degeneracy_probability < 1e-6, "{}", r.degeneracy_probability);
        let p = r.point.clone().unwrap();
        let got = UnitQuaternion::from_quaternion(Quaternion::new(p[0], p[1], p[2], p[3]));
        misses += usize::from(got.angle_to(&truth) > bound);
        assert!(mech.warnings(&r).is_empty());
    }
    assert!(misses <= 170, "{misses}");
    // The binary octahedral group: 48 unit quaternions, each of the 24 rotations twice (q and −q).
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let mut group = Vec::new();
    for i in 0..4 {
        for s in [1.0, -1.0] {
            let mut c = [0.0; 4];
            c[i] = s;
            group.push(c);
        }
    }
    for signs in 0..16u32 {
        group.push(std::array::from_fn(|k| if signs >> k & 1 == 0 { 0.5 } else { -0.5 }));
    }
    for i in 0..4 {
        for j in i + 1..4 {
            for signs in 0..4u32 {
                let mut c = [0.0; 4];
                c[i] = if signs & 1 == 0 { h } else { -h };
                c[j] = if signs & 2 == 0 { h } else { -h };
                group.push(c);
            }
        }
    }
    assert_eq!(group.len(), 48);
    let group: Vec<UnitQuaternion<f64>> =
        group.iter().map(|c| UnitQuaternion::new_unchecked(Quaternion::new(c[0], c[1], c[2], c[3]))).collect();
    let sum = ExtrinsicSum::of_rotations(&group).unwrap();
    assert!(sum.sum.iter().all(|x| x.abs() < 1e-12));
    let mech = ExtrinsicMean::new(Embedding::So3, 48, sum.depth, 1.0).unwrap();
    let r = mech.release(&sum, &mut rng).unwrap();
    assert!(!r.stable() && r.degeneracy_probability > 1e-3, "{r:?}");
    let w = mech.warnings(&r);
    assert!(w.len() == 1 && w[0].starts_with("the projection is unstable"), "{w:?}");
    let pm: Vec<DVector<f64>> = (0..50)
        .flat_map(|_| {
            let x = random_unit(&mut rng, 3);
            [x.clone(), -x]
        })
        .collect();
    let sum = ExtrinsicSum::of_directions(&pm, 3).unwrap();
    let mech = ExtrinsicMean::new(Embedding::Sphere(3), 100, sum.depth, 1.0).unwrap();
    let r = mech.release(&sum, &mut rng).unwrap();
    assert!(!r.stable() && r.degeneracy_probability > 1e-3, "{r:?}");
}

#[test]
fn bad_input_is_refused() {
    assert!(ExtrinsicMean::new(Embedding::So3, 0, 0, 1.0).unwrap_err().to_string().contains("no rows"));
    assert!(ExtrinsicMean::new(Embedding::So3, 10, 9, 0.0).is_err());
    assert!(ExtrinsicMean::new(Embedding::So3, 10, 9, f64::NAN).is_err());
    assert!(Embedding::sphere(1).is_err() && Embedding::sphere(10_001).is_err());
    let not_unit = [DVector::from_vec(vec![1.0, 1e-5, 0.0])];
    assert!(ExtrinsicSum::of_directions(&not_unit, 3).is_err());
    assert!(ExtrinsicSum::of_directions(&[DVector::from_vec(vec![1.0, 0.0])], 3).is_err());
    let q = UnitQuaternion::new_unchecked(Quaternion::new(1.0 + 1e-9, 0.0, 0.0, 0.0));
    assert!(ExtrinsicSum::of_rotations(&[q]).is_err());
    // A sum that does not match the release.
    let mech = ExtrinsicMean::new(Embedding::So3, 10, 9, 1.0).unwrap();
    let mut rng = seeded_rng_for_experiments(8);
    assert!(mech.release(&ExtrinsicSum { sum: vec![0.0; 9], n: 11, depth: 9 }, &mut rng).is_err());
}

#[test]
fn the_gamma_tail_and_quantile_are_right() {
    for x in [0.1, 1.0, 5.0] {
        assert!((gamma_tail(1, x) - (-x).exp()).abs() < 1e-15);
        assert!((gamma_tail(2, x) - (1.0 + x) * (-x).exp()).abs() < 1e-15);
    }
    assert!((gamma_quantile(1, 2.0, 0.95) - 2.0 * 20f64.ln()).abs() < 1e-12);
    // Large shapes: no overflow; the median of Gamma(D) is near D − 1/3.
    let q = gamma_quantile(10_000, 1.0, 0.5);
    assert!((q - (10_000.0 - 1.0 / 3.0)).abs() < 0.01, "{q}");
}
