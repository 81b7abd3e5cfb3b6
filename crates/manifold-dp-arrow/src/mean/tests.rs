use super::*;
use manifold_dp::manifold::{KarcherStop, frechet_mean};
use manifold_dp::sample::rng::seeded_rng_for_experiments;

fn batch(columns: &[(&str, Vec<f64>)]) -> RecordBatch {
    RecordBatch::try_from_iter(
        columns.iter().map(|(n, v)| (n.to_string(), Arc::new(Float64Array::from(v.clone())) as ArrayRef)),
    )
    .unwrap()
}

/// n unit vectors near (0.6, 0.8, 0) within about 0.2 rad, as x1, x2, x3 columns.
fn directions(n: usize) -> (RecordBatch, Vec<DVector<f64>>) {
    let points: Vec<DVector<f64>> = (0..n)
        .map(|i| {
            let t = 0.927 + 0.15 * ((i as f64) * 0.37).sin();
            let z = 0.1 * ((i as f64) * 1.3).cos();
            DVector::from_vec(vec![t.cos(), t.sin(), z]).normalize()
        })
        .collect();
    let col = |j: usize| points.iter().map(|p| p[j]).collect::<Vec<f64>>();
    (batch(&[("x1", col(0)), ("x2", col(1)), ("x3", col(2))]), points)
}

fn plan(outside: Outside, radius: f64) -> MeanPlan {
    MeanPlan::new(Space::Sphere(3), None, None, Some(&[0.6, 0.8, 0.0]), radius, outside, SpdMetric::Affine).unwrap()
}

#[test]
fn the_fit_is_the_library_mean_and_batching_changes_only_rounding() {
    let (b, points) = directions(10_000);
    let p = plan(Outside::Error, 0.5);
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    assert_eq!(fit.pass.used, 10_000);
    let s2 = Sphere::new(3).unwrap();
    let c = DVector::from_vec(vec![0.6, 0.8, 0.0]);
    let exact = frechet_mean(&s2, &points, &c, KarcherOptions::default()).unwrap();
    assert!(s2.distance(&exact.mean, &DVector::from_vec(fit.mean.clone())) < 1e-12);
    // The same rows in three batches: the same mean up to the order of additions.
    let parts = [b.slice(0, 1234), b.slice(1234, 5000), b.slice(6234, 3766)];
    let split = p.fit(&parts).unwrap();
    assert!(s2.distance(&DVector::from_vec(split.mean), &DVector::from_vec(fit.mean.clone())) < 1e-12);
    // Threads never change a pass: chunks are summed in order.
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let serial = one.install(|| p.pass(&b, &fit.mean)).unwrap();
    assert_eq!(serial, p.pass(&b, &fit.mean).unwrap());
}

/// The fit (rows placed once, extrinsic start, fixed-size sums) against the distributed protocol (pass
/// and step from the centre): the same mean to the tolerance, on SPD(2), SPD(3), SO(3) and S², and the
/// same bits on one thread as on many.
#[test]
fn the_fit_is_the_pass_and_step_mean_from_the_centre_and_threads_change_nothing() {
    fn by_passes(p: &MeanPlan, b: &RecordBatch) -> Vec<f64> {
        let (mut base, mut iterations) = (p.start(), 0);
        loop {
            match p.step(&base, &p.pass(b, &base).unwrap(), iterations).unwrap() {
                MeanStep::Converged { gradient_norm } => {
                    assert!(gradient_norm.is_finite());
                    return base;
                }
                MeanStep::Next(next) => base = next,
            }
            iterations += 1;
        }
    }
    let n = 9000; // three DECODE_CHUNKs, the last one partial
    let wiggle = |i: usize, j: usize| ((i as f64) * 12.9898 + (j as f64) * 78.233).sin();
    for k in [2, 3] {
        let names: Vec<String> = (1..=k).flat_map(|r| (1..=k).map(move |c| format!("m{r}{c}"))).collect();
        let rows: Vec<DMatrix<f64>> = (0..n)
            .map(|i| {
                let g = DMatrix::from_fn(k, k, |r, c| 0.3 * wiggle(i, r * k + c) + if r == c { 1.0 } else { 0.0 });
                &g * g.transpose()
            })
            .collect();
        let columns: Vec<(&str, Vec<f64>)> = names
            .iter()
            .enumerate()
            .map(|(j, name)| (name.as_str(), rows.iter().map(|x| x[(j / k, j % k)]).collect()))
            .collect();
        let b = batch(&columns);
        let p = MeanPlan::new(Space::Spd(k), None, None, None, 3.0, Outside::Error, SpdMetric::Affine).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let m = SpdAffine::new(k).unwrap();
        let at = |v: &[f64]| spd_from_row_major(v, k, DEFAULT_SYMMETRY_TOLERANCE).unwrap();
        // Both stop within the certified tolerance τ (h = 1) of the exact mean; on SPD τ exceeds 1e-12.
        let tolerance =
            KarcherStop::in_ball(&m, &DMatrix::identity(k, k), 3.0, n, KarcherOptions::default()).unwrap().tolerance();
        let d = m.distance(&at(&fit.mean), &at(&by_passes(&p, &b)));
        assert!(d <= 2.0 * tolerance, "SPD({k}): {d:e} against τ = {tolerance:e}");
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(one.install(|| p.fit(std::slice::from_ref(&b))).unwrap(), fit, "SPD({k})");
    }
    let q: Vec<UnitQuaternion<f64>> = (0..n)
        .map(|i| UnitQuaternion::from_scaled_axis(nalgebra::Vector3::from_fn(|j, _| 0.5 * wiggle(i, j))))
        .collect();
    // Half of them written as −q: the same rotations.
    let sign = |i: usize| if i.is_multiple_of(2) { 1.0 } else { -1.0 };
    let b = batch(&[
        ("w", q.iter().enumerate().map(|(i, x)| sign(i) * x.w).collect()),
        ("x", q.iter().enumerate().map(|(i, x)| sign(i) * x.i).collect()),
        ("y", q.iter().enumerate().map(|(i, x)| sign(i) * x.j).collect()),
        ("z", q.iter().enumerate().map(|(i, x)| sign(i) * x.k).collect()),
    ]);
    let p = MeanPlan::new(Space::So3, None, None, None, 1.5, Outside::Error, SpdMetric::Affine).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let d = So3.distance(&So3.point_at(&fit.mean).unwrap(), &So3.point_at(&by_passes(&p, &b)).unwrap());
    assert!(d < 1e-12, "SO(3): {d}");
    let (b, _) = directions(n);
    let p = plan(Outside::Error, 0.5);
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let s2 = Sphere::new(3).unwrap();
    let d = s2.distance(&DVector::from_vec(fit.mean.clone()), &DVector::from_vec(by_passes(&p, &b)));
    assert!(d < 1e-12, "S²: {d}");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(one.install(|| p.fit(std::slice::from_ref(&b))).unwrap(), fit);
}

/// The distributed mean's Newton passes (the Spark path: local fits for a start, then Newton steps) stop
/// at the same mean as gradient passes from the centre, within the certified tolerance, in at most three
/// passes where gradient steps from the centre need five or more; a Hessian that is not positive definite
/// or a step out of the ball falls back to the unit step.
#[test]
fn newton_passes_from_local_fits_reach_the_mean_in_few_passes() {
    fn passes(p: &MeanPlan, parts: &[RecordBatch], mut base: Vec<f64>, newton: bool) -> (Vec<f64>, usize) {
        let mut iterations = 0;
        loop {
            let each: Vec<MeanPass> = parts
                .iter()
                .map(|b| if newton { p.newton_pass(b, &base) } else { p.pass(b, &base) }.unwrap())
                .collect();
            match p.step(&base, &MeanPass::merge_all(each), iterations).unwrap() {
                MeanStep::Converged { .. } => return (base, iterations + 1),
                MeanStep::Next(next) => base = next,
            }
            iterations += 1;
        }
    }
    let wiggle = |i: usize, j: usize| ((i as f64) * 12.9898 + (j as f64) * 78.233).sin();
    let n = 6000;
    // SO(3): rotations within about 35° of a rotation 25° from the centre (the identity).
    let off = UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(0.3, -0.25, 0.2));
    let q: Vec<UnitQuaternion<f64>> = (0..n)
        .map(|i| off * UnitQuaternion::from_scaled_axis(nalgebra::Vector3::from_fn(|j, _| 0.35 * wiggle(i, j))))
        .collect();
    let so3_rows = |range: std::ops::Range<usize>| {
        batch(&[
            ("w", q[range.clone()].iter().map(|x| x.w).collect()),
            ("x", q[range.clone()].iter().map(|x| x.i).collect()),
            ("y", q[range.clone()].iter().map(|x| x.j).collect()),
            ("z", q[range].iter().map(|x| x.k).collect()),
        ])
    };
    let parts: Vec<RecordBatch> = (0..4).map(|k| so3_rows(k * 1500..(k + 1) * 1500)).collect();
    let p = MeanPlan::new(Space::So3, None, None, None, 1.5, Outside::Error, SpdMetric::Affine).unwrap();
    let (slow, slow_passes) = passes(&p, &parts, p.start(), false);
    let fits: Vec<(Vec<f64>, u64)> = parts
        .iter()
        .map(|b| {
            let fit = p.rough_fit(std::slice::from_ref(b)).unwrap();
            // A rough fit is close to the part's exact mean, not on it.
            let exact = p.fit(std::slice::from_ref(b)).unwrap();
            let d = So3.distance(&So3.point_at(&fit.mean).unwrap(), &So3.point_at(&exact.mean).unwrap());
            assert!(d < 1e-8, "{d:e}");
            (fit.mean, fit.pass.used)
        })
        .collect();
    let start = p.start_from(&fits);
    let (fast, fast_passes) = passes(&p, &parts, start.clone(), true);
    let d = So3.distance(&So3.point_at(&slow).unwrap(), &So3.point_at(&fast).unwrap());
    assert!(d < 2e-12, "SO(3): {d:e}");
    assert!(slow_passes >= 5 && fast_passes <= 3, "SO(3): {slow_passes} gradient passes, {fast_passes} Newton");
    // From the centre, Newton steps alone still beat gradient steps.
    let (_, centre_passes) = passes(&p, &parts, p.start(), true);
    assert!(centre_passes < slow_passes, "{centre_passes} vs {slow_passes}");
    // S²: the same.
    let (b, _) = directions(n);
    let p = plan(Outside::Error, 0.5);
    let (slow, slow_passes) = passes(&p, std::slice::from_ref(&b), p.start(), false);
    let fit = p.rough_fit(std::slice::from_ref(&b)).unwrap();
    let (fast, fast_passes) = passes(&p, std::slice::from_ref(&b), p.start_from(&[(fit.mean, fit.pass.used)]), true);
    let s2 = Sphere::new(3).unwrap();
    let d = s2.distance(&DVector::from_vec(slow), &DVector::from_vec(fast));
    assert!(d < 2e-12 && fast_passes <= 2 && slow_passes >= 4, "S²: {d:e}, {slow_passes} vs {fast_passes}");
    // A start outside the ball is not used; no parts leave the centre.
    assert_eq!(p.start_from(&[(vec![-0.6, -0.8, 0.0], 10)]), p.start());
    assert_eq!(p.start_from(&[]), p.start());
}

/// A step whose Newton direction is unusable is the unit step: a Hessian that is not positive definite, or
/// one that would send the iterate out of the ball.
#[test]
fn unusable_newton_directions_fall_back_to_the_unit_step() {
    let (b, _) = directions(3000);
    let p = plan(Outside::Error, 0.5);
    let base = p.start();
    let plain = p.pass(&b, &base).unwrap();
    let unit = p.step(&base, &plain, 0).unwrap();
    for bad in [-1.0, 1e-9] {
        // −H (not positive definite) or H/10⁹ (a step 10⁹ times too long, far out of the ball).
        let mut pass = p.newton_pass(&b, &base).unwrap();
        pass.hessian = pass.hessian.map(|h| h.iter().map(|x| x * bad).collect());
        assert_eq!(p.step(&base, &pass, 0).unwrap(), unit, "scale {bad}");
    }
    let newton = p.step(&base, &p.newton_pass(&b, &base).unwrap(), 0).unwrap();
    assert_ne!(newton, unit, "the control: a usable Hessian changes the step");
}

/// A pass carries its summation depth: ~64 + log₂ of the rows within a pass, +1 per merge, ⌈log₂ k⌉ over k
/// passes merged pairwise. A step whose sum is too deep for the certified bound to reach the tolerance is
/// refused at once (the old stop test used the computed norm alone and stopped).
#[test]
fn passes_carry_their_depth_and_too_deep_a_sum_is_refused() {
    let (b, _) = directions(9000);
    let p = plan(Outside::Error, 0.5);
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let pass = p.pass(&b, &fit.mean).unwrap();
    assert!(pass.depth > 64 && pass.depth <= 64 + 8 + 3, "{}", pass.depth);
    let parts: Vec<MeanPass> = (0..8).map(|_| pass.clone()).collect();
    let merged = MeanPass::merge_all(parts.clone());
    assert_eq!((merged.depth, merged.used), (pass.depth + 3, 8 * pass.used));
    let mut sequential = MeanPass::default();
    parts.into_iter().for_each(|q| sequential.merge(q));
    assert_eq!(sequential.depth, pass.depth + 7);
    assert!(matches!(p.step(&fit.mean, &pass, 0).unwrap(), MeanStep::Converged { .. }));
    // γ_d·T ≥ 1e-12 once d ≳ 10⁴/T: a sum merged a million times one after another.
    let deep = MeanPass { depth: 1_000_000, ..pass };
    let e = p.step(&fit.mean, &deep, 0).unwrap_err().to_string();
    assert!(e.contains("cannot certify"), "{e}");
}

#[test]
fn rows_outside_the_ball_are_refused_dropped_or_clipped() {
    let (b, _) = directions(100);
    // Every row lies within 0.2 rad or so; a radius of 0.1 puts some of them outside.
    let start = plan(Outside::Error, 0.1).start();
    let refused = plan(Outside::Error, 0.1).pass(&b, &start).unwrap();
    let (row, problem) = refused.problem.clone().unwrap();
    assert!(problem.reason.contains("outside the radius"), "{}", problem.reason);
    assert!(plan(Outside::Error, 0.1).step(&start, &refused, 0).is_err());
    let c = DVector::from_vec(vec![0.6, 0.8, 0.0]);
    let first_outside = (0..100)
        .find(|&i| {
            let x = DVector::from_vec((1..=3).map(|j| column_value(&b, &format!("x{j}"), i)).collect());
            Sphere::new(3).unwrap().distance(&c, &x) > 0.1
        })
        .unwrap();
    assert_eq!(row, first_outside);
    let dropped = plan(Outside::Drop, 0.1).pass(&b, &start).unwrap();
    let clipped = plan(Outside::Clip, 0.1).pass(&b, &start).unwrap();
    assert!(dropped.dropped > 0 && dropped.used + dropped.dropped == 100 && dropped.clipped == 0);
    assert_eq!((clipped.clipped, clipped.used, clipped.dropped), (dropped.dropped, 100, 0));
    // Every clipped row sits on the ball's edge, so the clipped mean stays within the radius.
    let fit = plan(Outside::Clip, 0.1).fit(std::slice::from_ref(&b)).unwrap();
    assert!(Sphere::new(3).unwrap().distance(&c, &DVector::from_vec(fit.mean)) <= 0.1);
    // Nothing in the ball: no mean.
    let none = plan(Outside::Drop, 1e-9).fit(std::slice::from_ref(&b));
    assert!(none.unwrap_err().to_string().contains("no rows lie in the ball"));
}

/// The count before the Karcher iteration is the n′ the `drop` fit is over, on every split of the rows (and for
/// any rule: it places by `drop`); a row that is not a point is left out of it, and the fit still refuses it.
#[test]
fn the_count_before_the_iteration_is_the_drop_fits_rows() {
    let (b, _) = directions(7000); // three DECODE_CHUNKs, the last one partial
    let drop = plan(Outside::Drop, 0.1);
    let fit = drop.fit(std::slice::from_ref(&b)).unwrap();
    assert!(fit.pass.dropped > 0 && fit.pass.used > 0, "{:?}", (fit.pass.used, fit.pass.dropped));
    let parts = [b.slice(0, 1234), b.slice(1234, 5000), b.slice(6234, 766)];
    for p in [&drop, &plan(Outside::Clip, 0.1), &plan(Outside::Error, 0.1)] {
        assert_eq!(p.count_inside(std::slice::from_ref(&b)).unwrap(), fit.pass.used);
        assert_eq!(p.count_inside(&parts).unwrap(), fit.pass.used);
    }
    // A row in the ball made not a point: not counted; the fit names it.
    let k = (0..b.num_rows()).find(|&i| drop.count_inside(&[b.slice(i, 1)]).unwrap() == 1).unwrap();
    let col = |j: usize| (0..b.num_rows()).map(|i| column_value(&b, &format!("x{j}"), i)).collect::<Vec<f64>>();
    let mut x1 = col(1);
    x1[k] = f64::NAN;
    let bad = batch(&[("x1", x1), ("x2", col(2)), ("x3", col(3))]);
    assert_eq!(drop.count_inside(std::slice::from_ref(&bad)).unwrap() + 1, fit.pass.used);
    assert_eq!(drop.fit(std::slice::from_ref(&bad)).unwrap().pass.problem.map(|(row, _)| row), Some(k));
    // On the real line: the values within their bounds, a value that is not a number left out.
    let b = batch(&[("depth", vec![10.0, 20.0, f64::NAN, 700.0, 30.0]), ("mag", vec![4.0, 5.0, 6.0, 5.0, 9.0])]);
    let cols = ["depth".to_string(), "mag".to_string()];
    let real = MeanPlan::bounded_per_column(&cols, &[(0.0, 100.0), (4.0, 7.0)], Outside::Drop).unwrap();
    assert_eq!(real.count_inside(&[b.slice(0, 2), b.slice(2, 3)]).unwrap(), 2);
    let clean = [b.slice(0, 2), b.slice(3, 2)];
    assert_eq!(real.count_inside(&clean).unwrap(), real.fit(&clean).unwrap().pass.used);
}

fn column_value(b: &RecordBatch, name: &str, i: usize) -> f64 {
    b.column_by_name(name).unwrap().as_any().downcast_ref::<Float64Array>().unwrap().value(i)
}

#[test]
fn every_space_releases_in_its_own_form() {
    let mut rng = seeded_rng_for_experiments(5);
    let eps = 1e4; // noise far below the tolerances checked
    // Latitude/longitude in degrees around (45 N, 10 E), radius 300 km.
    let b = batch(&[("lat", vec![44.5, 45.0, 45.5, 45.0]), ("lon", vec![10.0, 9.5, 10.0, 10.5])]);
    let r = Space::LatLon.parse_distance("300km").unwrap();
    let p =
        MeanPlan::new(Space::LatLon, None, None, Some(&[45.0, 10.0]), r, Outside::Error, SpdMetric::Affine).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let out = p.release(&fit.mean, fit.pass.used, eps, Conditioning::Auto, &mut rng).unwrap();
    assert!((out.mean[0] - 45.0).abs() < 0.01 && (out.mean[1] - 10.0).abs() < 0.01, "{:?}", out.mean);
    // Hours on the time-of-day circle, across midnight: the mean of 23:00 and 01:00 is midnight.
    let b = batch(&[("time", vec![23.0, 1.0, 23.5, 0.5])]);
    let r = Space::TimeOfDay.parse_distance("2h").unwrap();
    let p = MeanPlan::new(Space::TimeOfDay, None, None, Some(&[0.0]), r, Outside::Error, SpdMetric::Affine).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let h = p.release(&fit.mean, 4, eps, Conditioning::Auto, &mut rng).unwrap().mean[0];
    assert!(!(0.01..=23.99).contains(&h), "{h}");
    // Degrees on the circle.
    let b = batch(&[("angle", vec![350.0, 10.0, 0.0])]);
    let p =
        MeanPlan::new(Space::Circle, Some("deg"), None, Some(&[0.0]), 0.5, Outside::Error, SpdMetric::Affine).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let a = p.release(&fit.mean, 3, eps, Conditioning::Auto, &mut rng).unwrap().mean[0];
    assert!(!(0.01..=359.99).contains(&a), "{a}");
    // Rotations in quat-xyzw, and SPD matrices in both metrics.
    let b = batch(&[("x", vec![0.0, 0.1]), ("y", vec![0.0; 2]), ("z", vec![0.0; 2]), ("w", vec![1.0, 0.995])]);
    let p = MeanPlan::new(Space::So3, Some("quat-xyzw"), None, None, 1.0, Outside::Error, SpdMetric::Affine).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let q = p.release(&fit.mean, 2, eps, Conditioning::Auto, &mut rng).unwrap();
    assert!(q.mean[0] > 0.04 && q.mean[0] < 0.06 && q.mean[3] > 0.99, "{:?}", q.mean);
    // The float-safe rounding's small ε₀ is part of the guarantee.
    assert!(matches!(q.guarantee, Guarantee::PureDp { epsilon, .. } if epsilon >= eps && epsilon < eps * 1.001));
    for metric in [SpdMetric::Affine, SpdMetric::LogEuclidean] {
        let b = batch(&[("m11", vec![2.0, 2.0]), ("m12", vec![0.5; 2]), ("m21", vec![0.5; 2]), ("m22", vec![1.0; 2])]);
        let p = MeanPlan::new(Space::Spd(2), None, None, None, 2.0, Outside::Error, metric).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let m = p.release(&fit.mean, 2, eps, Conditioning::Auto, &mut rng).unwrap().mean;
        assert!((m[0] - 2.0).abs() < 1e-2 && (m[1] - 0.5).abs() < 1e-2 && (m[3] - 1.0).abs() < 1e-2, "{m:?}");
    }
}

/// SPD(k) under the log-Euclidean metric, k ≤ 8: the Gaussian mean (μ-GDP, exact cells in the log domain, no
/// rounding cost) and the Laplace mean through the same plan; k = 9 refused for both.
#[test]
fn log_euclidean_means_up_to_k_8() {
    let mut rng = seeded_rng_for_experiments(8);
    let k = 4;
    let names: Vec<String> = (1..=k).flat_map(|i| (1..=k).map(move |j| format!("m{i}{j}"))).collect();
    let cols: Vec<(&str, Vec<f64>)> = names
        .iter()
        .enumerate()
        .map(|(e, n)| (n.as_str(), vec![if e % (k + 1) == 0 { 1.5 } else { 0.0 }; 3]))
        .collect();
    let b = batch(&cols);
    let p = MeanPlan::new(Space::Spd(k), None, None, None, 1.5, Outside::Error, SpdMetric::LogEuclidean).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let noise = MeanNoise::Gaussian { mu: 1e4 };
    p.check_noise(3, &noise).unwrap();
    let out = p.release_with(&fit.mean, 3, &noise, &mut rng).unwrap();
    assert_eq!(out.guarantee, Guarantee::gdp(1e4));
    assert_eq!(p.guarantee_for(&noise), out.guarantee);
    assert_eq!(out.mu, Some(1e4));
    assert_eq!(out.rounding_cost, 0.0);
    assert_eq!(out.grid.map(|g| g.chart), Some(manifold_dp::space::grid::Chart::LogDomain));
    assert!((out.sigma - out.sensitivity / 1e4).abs() <= 1e-15 * out.sigma, "{} {}", out.sigma, out.sensitivity);
    assert!((out.sensitivity / (2.0 * 1.5 / 3.0) - 1.0).abs() < 1e-6, "{}", out.sensitivity);
    assert_eq!(out.mean.len(), k * k);
    for (e, v) in out.mean.iter().enumerate() {
        let want = if e % (k + 1) == 0 { 1.5 } else { 0.0 };
        assert!((v - want).abs() < 1e-2, "{:?}", out.mean);
    }
    let laplace = p.release(&fit.mean, 3, 1e4, Conditioning::Auto, &mut rng).unwrap();
    assert!((laplace.mean[0] - 1.5).abs() < 1e-2, "{:?}", laplace.mean);
    let err = MeanPlan::new(Space::Spd(9), None, None, None, 1.5, Outside::Error, SpdMetric::LogEuclidean).unwrap_err();
    assert!(err.to_string().contains("k ≤ 8"), "{err}");
}

/// The Gaussian mean: planned, checked and released through the same plan as the Laplace, with a μ-GDP
/// guarantee on spheres and SO(3) and refusals that name the arguments as the front end spells them.
#[test]
fn gaussian_means_on_spheres_and_so3() {
    let flag = |a: &str| format!("--{a}");
    let parse = |m: Option<&str>, e, d, u| MeanNoise::from_arguments(m, e, d, u, Conditioning::Auto, flag);
    let noise = parse(Some("gaussian"), None, None, Some(1.0)).unwrap();
    assert_eq!(noise, MeanNoise::Gaussian { mu: 1.0 });
    // From (ε, δ): the largest μ whose curve is (ε, δ)-DP.
    let MeanNoise::Gaussian { mu } = parse(Some("gaussian"), Some(1.0), Some(1e-5), None).unwrap() else { panic!() };
    assert!(mu > 0.2 && mu < 0.3, "{mu}");
    for (m, e, d, u, needle) in [
        (None, None, None, Some(1.0), "--mu goes with --mechanism gaussian"),
        (Some("gaussian"), Some(1.0), None, None, "--epsilon alone"),
        (Some("gaussian"), None, None, None, "--mechanism gaussian needs a budget: --mu M"),
        (Some("gaussian"), Some(1.0), Some(1e-5), Some(1.0), "not both"),
        (Some("gaussian"), None, None, Some(-1.0), "--mu -1: must be"),
        (None, Some(1.0), Some(1e-5), None, "--delta goes with"),
        (Some("cauchy"), Some(1.0), None, None, "laplace (pure ε-DP) and gaussian"),
    ] {
        let err = parse(m, e, d, u).unwrap_err().to_string();
        assert!(err.contains(needle), "{err}");
    }
    let keyword = |a: &str| format!("{a}=");
    let err = MeanNoise::from_arguments(None, Some(1.0), None, Some(1.0), Conditioning::Auto, keyword)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("mu= goes with mechanism= gaussian"), "{err}");
    let err = MeanNoise::from_arguments(Some("gaussian"), None, None, Some(1.0), Conditioning::Ball, flag)
        .unwrap_err()
        .to_string();
    assert!(err.contains("--conditioning"), "{err}");

    let mut rng = seeded_rng_for_experiments(8);
    let b = batch(&[("lat", vec![44.5, 45.0, 45.5, 45.0]), ("lon", vec![10.0, 9.5, 10.0, 10.5])]);
    let r = Space::LatLon.parse_distance("300km").unwrap();
    let p =
        MeanPlan::new(Space::LatLon, None, None, Some(&[45.0, 10.0]), r, Outside::Error, SpdMetric::Affine).unwrap();
    let big = MeanNoise::Gaussian { mu: 5.0 };
    p.check_noise(4, &big).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let out = p.release_with(&fit.mean, 4, &big, &mut rng).unwrap();
    // μ-GDP up to the certificate's tail and the proposal's far piece (riemannian_gaussian.md §2, §5).
    let with_delta = Guarantee::gdp_with_delta(5.0, manifold_dp::analysis::riemannian_gdp::RELEASE_DELTA);
    assert_eq!((out.guarantee, out.mu, out.conditioned), (with_delta, Some(5.0), false));
    assert_eq!(p.guarantee_for(&big), out.guarantee);
    assert!((out.mean[0] - 45.0).abs() < 2.0 && (out.mean[1] - 10.0).abs() < 2.0, "{:?}", out.mean);
    assert!(out.sigma >= out.sensitivity / 5.0 && out.grid.is_some() && out.rounding_cost > 0.0);
    // σ ≈ Δ/μ: E[d] ≈ σ√(π/2) on S².
    let ratio = out.expected_error / (out.sigma * (std::f64::consts::PI / 2.0).sqrt());
    assert!((ratio - 1.0).abs() < 0.01, "{ratio}");
    // SO(3), in quat-xyzw.
    let b = batch(&[("x", vec![0.0, 0.1]), ("y", vec![0.0; 2]), ("z", vec![0.0; 2]), ("w", vec![1.0, 0.995])]);
    let p = MeanPlan::new(Space::So3, Some("quat-xyzw"), None, None, 1.0, Outside::Error, SpdMetric::Affine).unwrap();
    let fit = p.fit(std::slice::from_ref(&b)).unwrap();
    let q = p.release_with(&fit.mean, 2, &big, &mut rng).unwrap();
    assert!(q.mean[3] > 0.9, "{:?}", q.mean);
    assert_eq!((q.guarantee, p.guarantee_for(&big)), (with_delta, with_delta));
    // SPD(k) under the affine-invariant metric: the wrapped Gaussian at the centre for k ≤ 3, refused beyond
    // (before any pass).
    let p = MeanPlan::new(Space::Spd(2), None, None, None, 2.0, Outside::Error, SpdMetric::Affine).unwrap();
    p.check_noise(2, &big).unwrap();
    let out = p.release_with(&[2.0, 0.5, 0.5, 1.0], 2, &big, &mut rng).unwrap();
    assert_eq!((out.guarantee, out.mu), (Guarantee::gdp(5.0), Some(5.0)));
    assert_eq!(p.guarantee_for(&big), out.guarantee);
    assert_eq!(out.grid.map(|g| g.chart), Some(manifold_dp::space::grid::Chart::SpdLogAtCenter));
    assert!(out.sigma >= out.sensitivity / 5.0 && out.rounding_cost == 0.0);
    let y = nalgebra::DMatrix::from_row_slice(2, 2, &out.mean);
    assert!(out.mean[1] == out.mean[2] && y.cholesky().is_some(), "{:?}", out.mean);
    let p = MeanPlan::new(Space::Spd(4), None, None, None, 2.0, Outside::Error, SpdMetric::Affine).unwrap();
    let err = p.check_noise(2, &big).unwrap_err().to_string();
    assert!(err.contains("affine-invariant metric is offered for k ≤ 3"), "{err}");
}

/// What a ledger is charged before a Laplace mean's release (the rows unknown) is what the release records,
/// δ of the sampler's negligible events included, on every space whose sampler the rows do not change; and
/// never below it where they do (the circle past κ = 10⁶).
#[test]
fn the_laplace_pre_charge_is_the_recorded_guarantee() {
    let mut rng = seeded_rng_for_experiments(9);
    let epsilon = 1.0;
    let noise = MeanNoise::Laplace { epsilon, conditioning: Conditioning::Auto };
    let check = |p: &MeanPlan, mean: &[f64], n: u64, rng: &mut _, equal: bool| {
        let out = p.release_with(mean, n, &noise, rng).unwrap();
        let prepared = p.guarantee_for(&noise);
        if equal {
            assert_eq!(prepared, out.guarantee);
        } else {
            assert!(prepared.epsilon() == out.guarantee.epsilon() && prepared.delta() >= out.guarantee.delta());
        }
        out.guarantee
    };
    // S² (the strips: δ_LC), S³ (+ δ_N), SO(3) (none), the circle (none below κ = 10⁶), SPD(2) log-Euclidean
    // (δ_N) and affine-invariant (δ_P on the polynomial scheme).
    let s2 =
        MeanPlan::new(Space::LatLon, None, None, Some(&[45.0, 10.0]), 0.05, Outside::Error, SpdMetric::Affine).unwrap();
    let g = check(&s2, &s2.start(), 100, &mut rng, true);
    assert!(g.delta() > 0.0, "{g}");
    let s3 = MeanPlan::new(
        Space::Sphere(4),
        None,
        None,
        Some(&[1.0, 0.0, 0.0, 0.0]),
        0.5,
        Outside::Error,
        SpdMetric::Affine,
    )
    .unwrap();
    let g = check(&s3, &s3.start(), 100, &mut rng, true);
    assert!(g.delta() > s2.guarantee_for(&noise).delta(), "{g}");
    let so3 = MeanPlan::new(Space::So3, Some("quat-xyzw"), None, None, 0.5, Outside::Error, SpdMetric::Affine).unwrap();
    assert_eq!(check(&so3, &so3.start(), 100, &mut rng, true).delta(), 0.0);
    let le = MeanPlan::new(Space::Spd(2), None, None, None, 1.5, Outside::Error, SpdMetric::LogEuclidean).unwrap();
    assert!(check(&le, &le.start(), 100, &mut rng, true).delta() > 0.0);
    let affine = MeanPlan::new(Space::Spd(2), None, None, None, 1.5, Outside::Error, SpdMetric::Affine).unwrap();
    check(&affine, &affine.start(), 100, &mut rng, true);
    let circle =
        MeanPlan::new(Space::Circle, None, None, Some(&[0.0]), 0.5, Outside::Error, SpdMetric::Affine).unwrap();
    assert_eq!(check(&circle, &circle.start(), 100, &mut rng, false).delta(), 0.0);
    assert!(circle.guarantee_for(&noise).delta() > 0.0);
}

#[test]
fn bounded_means_of_plain_numbers() {
    let b = batch(&[("depth", vec![10.0, 20.0, 30.0, 700.0]), ("mag", vec![4.0, 5.0, 6.0, 5.0])]);
    let cols = ["depth".to_string(), "mag".to_string()];
    let plan = |outside| MeanPlan::bounded(Some(&cols), 0.0, 100.0, outside).unwrap();
    let refused = plan(Outside::Error).fit(std::slice::from_ref(&b)).unwrap();
    let (row, p) = refused.pass.problem.unwrap();
    assert_eq!(row, 3);
    assert!(p.reason.contains("600 outside the bounds [0, 100]"), "{}", p.reason);
    let clipped = plan(Outside::Clip).fit(std::slice::from_ref(&b)).unwrap();
    assert_eq!((clipped.mean.clone(), clipped.pass.used, clipped.pass.clipped), (vec![40.0, 5.0], 4, 1));
    let dropped = plan(Outside::Drop).fit(std::slice::from_ref(&b)).unwrap();
    assert_eq!((dropped.mean.clone(), dropped.pass.used, dropped.pass.dropped), (vec![20.0, 5.0], 3, 1));
    // Two columns of width 100 over 4 rows: Δ₁ = 2·100/4 = 50, b = Δ/ε.
    let mut rng = seeded_rng_for_experiments(2);
    let out = plan(Outside::Clip).release(&clipped.mean, 4, 10.0, Conditioning::Auto, &mut rng).unwrap();
    assert_eq!((out.sensitivity, out.sigma, out.guarantee), (50.0, 5.0, Guarantee::pure(10.0)));
    assert!(MeanPlan::bounded(Some(&cols), 1.0, 1.0, Outside::Error).is_err());
    assert!(MeanPlan::new(Space::Real, None, None, None, 1.0, Outside::Error, SpdMetric::Affine).is_err());
}

/// Columns of different ranges, each with its own bounds (one shared 0,700 for depth and mag
/// gave a mean magnitude of 8.42 against 4.62): each column is clamped to its own bounds and Δ₁ is the sum of
/// the widths over n; the count of bounds must match the columns.
#[test]
fn per_column_bounds_clamp_each_column_and_add_their_widths() {
    let b = batch(&[("depth", vec![10.0, 20.0, 30.0, 700.0]), ("mag", vec![4.0, 5.0, 6.0, 9.0])]);
    let cols = ["depth".to_string(), "mag".to_string()];
    let plan = |outside| MeanPlan::bounded_per_column(&cols, &[(0.0, 700.0), (4.0, 7.0)], outside).unwrap();
    let refused = plan(Outside::Error).fit(std::slice::from_ref(&b)).unwrap();
    let (row, p) = refused.pass.problem.unwrap();
    assert_eq!(row, 3);
    assert!(p.reason.contains("2 outside the bounds [4, 7]"), "{}", p.reason);
    let clipped = plan(Outside::Clip).fit(std::slice::from_ref(&b)).unwrap();
    assert_eq!((clipped.mean.clone(), clipped.pass.clipped), (vec![190.0, 5.5], 1));
    let mut rng = seeded_rng_for_experiments(3);
    let out = plan(Outside::Clip).release(&clipped.mean, 4, 1.0, Conditioning::Auto, &mut rng).unwrap();
    assert_eq!(out.sensitivity, (700.0 + 3.0) / 4.0);
    assert_eq!(plan(Outside::Clip).describe(), "the real line (depth in [0, 700], mag in [4, 7])");
    assert!(MeanPlan::bounded_per_column(&cols, &[(0.0, 700.0)], Outside::Error).is_err());
    assert!(MeanPlan::bounded_per_column(&cols, &[(0.0, 700.0), (7.0, 4.0)], Outside::Error).is_err());
}

#[test]
fn bad_parameters_are_refused_before_any_pass() {
    let new = |space, center: Option<&[f64]>, radius, metric| {
        MeanPlan::new(space, None, None, center, radius, Outside::Error, metric).map(|_| ())
    };
    assert!(new(Space::LatLon, None, 0.1, SpdMetric::Affine).unwrap_err().to_string().contains("lat,lon"));
    assert!(new(Space::LatLon, Some(&[95.0, 0.0]), 0.1, SpdMetric::Affine).is_err());
    assert!(new(Space::Sphere(3), Some(&[1.0, 0.0]), 0.1, SpdMetric::Affine).is_err());
    // Beyond r* = π/4 on a sphere.
    assert!(new(Space::Sphere(3), Some(&[1.0, 0.0, 0.0]), 1.0, SpdMetric::Affine).is_err());
    assert!(new(Space::So3, None, 0.5, SpdMetric::LogEuclidean).is_err());
    assert!("cholesky".parse::<SpdMetric>().is_err());
}
