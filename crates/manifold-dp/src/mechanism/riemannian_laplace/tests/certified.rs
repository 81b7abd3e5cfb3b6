//! (K) as the code runs it on SPD(2) with an ill-conditioned centre (`docs/proofs/frechet_mean_sensitivity.md`,
//! `docs/proofs/float_safety.md` §3e), against double-double references.

use super::*;
use crate::manifold::float_error::reference;

/// cond(m0) = 10⁸, rotated so nothing is diagonal.
fn centre() -> DMatrix<f64> {
    let (c, s) = (0.3f64.cos(), 0.3f64.sin());
    let rot = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
    let m0 = &rot * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1.0, 1e-8])) * rot.transpose();
    (&m0 + m0.transpose()) * 0.5
}

/// A row whose computed distance from the centre is ≤ r (so `check_ball` accepts it) while its exact
/// distance exceeds r by more than 10⁻¹⁰: the sensitivity covers it (Δ at r′ = r + e_ρ ≥ its exact
/// distance). Before, Δ = 2r/n + 2·10⁻¹² did not.
#[test]
fn the_sensitivity_covers_rows_accepted_by_computed_distance() {
    let spd = SpdAffine::new(2).unwrap();
    let m0 = centre();
    let root = crate::space::spd::sqrt_and_inv_sqrt(&m0).0;
    let found = (0..2000).find_map(|i| {
        let a = i as f64;
        let s = DMatrix::from_row_slice(2, 2, &[a.sin(), a.cos() * 0.7, a.cos() * 0.7, (2.0 * a).sin()]);
        let x = crate::space::spd::congruence(&root, &crate::space::spd::expm(&(&s * (1.5 / s.norm()))));
        let computed = spd.distance(&m0, &x);
        let exact = reference::distance(reference::sym(&m0), reference::sym(&x));
        // Beyond r by more than the old tolerance term 2·10⁻¹²·n/2 could absorb.
        (exact > computed + 1e-10).then_some((x, computed, exact))
    });
    let (x, r, exact) = found.expect("a row whose computed distance is below its exact one");
    assert!(check_ball(&spd, std::slice::from_ref(&x), &m0, r).is_ok());
    let n = 10;
    let mech = PrivateFrechetMean::new(spd, m0.clone(), r, n, 1.0, Conditioning::Ball).unwrap();
    assert!(mech.stop().radius() >= exact, "r′ = {} < {exact}", mech.stop().radius());
    assert!(mech.sensitivity() >= 2.0 * exact / n as f64, "{} < {}", mech.sensitivity(), 2.0 * exact / n as f64);
}

/// The chart's footpoint fl(W·P·Wᵀ) against W·P·Wᵀ in double-double: its measured error is within the
/// whitening part of e_F, is far from negligible at cond(m0) = 10⁸, and the guarantee pays 2e_F/σ per
/// footpoint ratio (twice conditioned on the ball). Before, the rounding cost was 2ε₀ alone.
#[test]
fn the_whitening_error_is_bounded_and_paid_for() {
    let spd = SpdAffine::new(2).unwrap();
    let m0 = centre();
    let root = crate::space::spd::sqrt_and_inv_sqrt(&m0).0;
    let (r, n) = (1.0, 1000);
    let mech = PrivateFrechetMean::new(spd, m0.clone(), r, n, 1.0, Conditioning::Ball).unwrap();
    let chart = mech.ball_chart.as_ref().unwrap();
    let cond = crate::manifold::float_error::spd_condition_bound(&m0);
    let bound = spd_footpoint_error(2, cond, chart.footpoint_radius);
    let mut worst: f64 = 0.0;
    for i in 0..500 {
        let a = i as f64;
        let s = DMatrix::from_row_slice(2, 2, &[a.cos(), a.sin() * 0.5, a.sin() * 0.5, (3.0 * a).cos()]);
        let p = crate::space::spd::congruence(
            &root,
            &crate::space::spd::expm(&(&s * (r * (a * 0.37).sin().abs() / s.norm()))),
        );
        let computed = congruence_by(&chart.whiten, &p);
        let exact = reference::congruence(&chart.whiten, &p);
        worst = worst.max(reference::distance(reference::sym(&computed), exact));
    }
    assert!(worst <= bound, "{worst:e} > {bound:e}");
    assert!(worst > 1e-11, "{worst:e}");
    let per_cell = mech.rounding().unwrap().additive_epsilon();
    let paid = mech.rounding_cost() - 2.0 * per_cell;
    assert!(paid >= 4.0 * worst / mech.sigma(), "{paid:e} < {:e}", 4.0 * worst / mech.sigma());
    // Above a condition number of ~10¹¹ the whitening cannot be bounded: refused.
    let bad = &root * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![1.0, 1e-7])) * &root;
    let bad = (&bad + bad.transpose()) * 0.5;
    assert!(spd_footpoint_error(2, crate::manifold::float_error::spd_condition_bound(&bad), 1.5).is_infinite());
}

/// The exact projection of the SPD(2) matrix a (double-double) onto the ball of radius `radius` around I:
/// a itself inside, else a^t with t = radius/ρ(I, a) (same eigenvectors, eigenvalues λ^t), formed in f64
/// from the double-double eigenvalues and eigenvector angle (a few ulps times cond of the result, ≲ 1e-14
/// here). Returns it and ρ(I, a).
fn reference_projection(a: reference::Sym, radius: f64) -> (DMatrix<f64>, f64) {
    use reference::Dd;
    let d = reference::distance(reference::sym(&DMatrix::identity(2, 2)), a);
    let as_f64 = |m: &reference::Sym| DMatrix::from_row_slice(2, 2, &[m[0].0, m[1].0, m[1].0, m[2].0]);
    if d <= radius {
        return (as_f64(&a), d);
    }
    let trace = a[0].add(a[2]);
    let det = a[0].mul(a[2]).sub(a[1].mul(a[1]));
    let disc = trace.mul(trace).sub(Dd::from(4.0).mul(det));
    let disc = if disc.0 < 0.0 { Dd::from(0.0) } else { disc.sqrt() };
    let big = trace.add(disc).div(Dd::from(2.0));
    let small = det.div(big);
    let t = radius / d;
    let (l1, l2) = ((t * big.ln()).exp(), (t * small.ln()).exp());
    let diff = a[0].sub(a[2]);
    let angle = 0.5 * (2.0 * (a[1].0 + a[1].1)).atan2(diff.0 + diff.1);
    let (s, c) = angle.sin_cos();
    let off = (l1 - l2) * c * s;
    (DMatrix::from_row_slice(2, 2, &[l1 * c * c + l2 * s * s, off, off, l1 * s * s + l2 * c * c]), d)
}

/// The single-point Laplace's footpoints (`docs/proofs/float_safety.md` §3e, "Inputs far outside the
/// ball"), against double-double references, at the centre I and at an ill-conditioned centre:
/// - inputs whose exact whitening lies within R_P + 1 of I (the public ball and the band beyond it that is
///   moved onto the ball): the computed footpoint is within e_F of the exact projection (the bound the
///   guarantee's ε₀ pays);
/// - every input, however far and ill-conditioned (eigenvalue ratios up to 1e300, scales 1e±150): the
///   footpoint's Cholesky factor exists, the footpoint lies within R_P + e_F of I, and releases are drawn
///   without a panic and lie in the kept ball, so any two inputs lose at most ε·2(R_P + e_F) + ε₀;
/// - far ill-conditioned inputs are moved onto the ball with an error far above e_F (measured; the reason
///   the printed ε per unit of ρ binds only the inputs the first point covers), and some have a whitening
///   whose logarithm is not finite, which the code used unmoved before the centre stood in (a NaN norm is
///   not above R_P; the control).
#[test]
fn single_point_footpoints_are_bounded_near_the_ball_and_within_it_for_every_input() {
    let spd = SpdAffine::new(2).unwrap();
    let rot = |phi: f64, a: f64, b: f64| {
        let (c, s) = (phi.cos(), phi.sin());
        let r = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
        let m = &r * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![a, b])) * r.transpose();
        (&m + m.transpose()) * 0.5
    };
    let mut rng = crate::sample::rng::seeded_rng_for_experiments(37);
    let mut not_finite_before = 0;
    for m0 in [DMatrix::identity(2, 2), centre()] {
        let mech = RiemannianLaplace::in_ball(spd, 0.1, &m0, 1.0).unwrap();
        let chart = mech.ball_chart.as_ref().unwrap();
        let rp = chart.footpoint_radius;
        let e_f = spd_footpoint_error(2, crate::manifold::float_error::spd_condition_bound(&m0), rp);
        let unwhiten_exactly = |s: &DMatrix<f64>| {
            let w_inv = chart.whiten.clone().try_inverse().unwrap();
            symmetric_of(&(&w_inv * s * w_inv.transpose()))
        };
        // Near: whitened log coordinates of norm up to R_P + 1 (less the centre's own offset).
        let (mut near_worst, mut near_count) = (0.0f64, 0);
        for i in 0..400 {
            let a = i as f64;
            let s = DMatrix::from_row_slice(2, 2, &[a.cos(), a.sin() * 0.7, a.sin() * 0.7, (2.3 * a).cos()]);
            let len = (rp + 0.99) * ((a * 0.61).sin().abs());
            let x = unwhiten_exactly(&expm(&(&s * (len / s.norm()))));
            let (exact, d) = reference_projection(reference::congruence(&chart.whiten, &x), rp);
            if d > rp + 1.0 {
                continue;
            }
            let p = whitened_footpoint(chart, &x);
            near_worst = near_worst.max(reference::distance(reference::sym(&p), reference::sym(&exact)));
            near_count += 1;
        }
        assert!(near_count > 300 && near_worst <= e_f, "{near_worst:e} > e_F = {e_f:e} ({near_count})");
        // Far: every input's footpoint is in the ball; the projection's error is unbounded.
        let (mut far_worst, mut inside_worst) = (0.0f64, 0.0f64);
        for j in 0..300 {
            let b = j as f64;
            let t = [3.0, 10.0, 20.0, 25.0, 40.0, 100.0, 345.0][j % 7] * (0.5 + 0.5 * (b * 0.37).sin().abs());
            let scale = 10f64.powi([0, 150, -150, 7, -7][j % 5]);
            let x = rot(b * 0.113, scale * t.exp(), scale * (-t).exp());
            let p = whitened_footpoint(chart, &x);
            assert!(p.clone().cholesky().is_some(), "{x}");
            let from_centre = reference::distance(reference::sym(&DMatrix::identity(2, 2)), reference::sym(&p));
            inside_worst = inside_worst.max(from_centre - rp);
            assert!(from_centre <= rp + e_f, "{x}: {from_centre} > {rp} + {e_f:e}");
            if !logm(&congruence_by(&chart.whiten, &x)).norm().is_finite() {
                not_finite_before += 1;
            }
            if t <= 25.0 && scale == 1.0 {
                // Within the double-double reference's reach (cond(W·x·Wᵀ) ≤ e^{50}·cond(W)²).
                let (exact, _) = reference_projection(reference::congruence(&chart.whiten, &x), rp);
                far_worst = far_worst.max(reference::distance(reference::sym(&p), reference::sym(&exact)));
            }
            if j % 10 == 0 {
                let y = mech.privatize(&x, &mut rng).unwrap();
                assert!(spd.distance(&m0, &y) <= chart.ball + 1e-9, "{x}: {y}");
            }
        }
        eprintln!(
            "centre cond {:.1e}: R_P = {rp}, e_F = {e_f:.2e}; near (≤ R_P + 1): worst {near_worst:.2e} over \
             {near_count}; far: beyond R_P by {inside_worst:.2e} at most, projection error up to {far_worst:.2e}",
            crate::manifold::float_error::spd_condition_bound(&m0)
        );
        assert!(far_worst > 100.0 * e_f, "far inputs' projection error {far_worst:e} vs e_F {e_f:e}");
    }
    assert!(not_finite_before > 0, "control: no input lost positive definiteness in its whitening");
}

fn symmetric_of(m: &DMatrix<f64>) -> DMatrix<f64> {
    (m + m.transpose()) * 0.5
}
