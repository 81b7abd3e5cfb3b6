//! Fixed-size kernels for the small spaces people use most — SPD(2), SPD(3), S² and SO(3) — so that a pass of
//! the Karcher iteration allocates nothing per point, built on the stack-allocated symmetric eigensolver of
//! [`crate::numerics::fixed`] (whose documentation gives the algorithms).

pub use crate::numerics::fixed::*;
use nalgebra::{DMatrix, DVector, SMatrix, UnitQuaternion, Vector3};

/// Σ log(P^{-1/2} X P^{-1/2}) over `xs`, given P^{-1/2}: the affine-invariant sum of logs at P.
pub fn spd_affine_sum_log<const K: usize>(p_inv_sqrt: &SMatrix<f64, K, K>, xs: &[DMatrix<f64>]) -> SMatrix<f64, K, K>
where
    Fixed<K>: SymEigen<K>,
{
    let mut sum = SMatrix::<f64, K, K>::zeros();
    for x in xs {
        sum += sym_fn(&congruence(p_inv_sqrt, &to_fixed::<K>(x)), f64::ln);
    }
    sum
}

/// Σ log X over `xs` (the log-Euclidean metric's sum, before the base point's log is taken off).
pub fn spd_sum_logm<const K: usize>(xs: &[DMatrix<f64>]) -> SMatrix<f64, K, K>
where
    Fixed<K>: SymEigen<K>,
{
    let mut sum = SMatrix::<f64, K, K>::zeros();
    for x in xs {
        sum += sym_fn(&to_fixed::<K>(x), f64::ln);
    }
    sum
}

/// The affine-invariant distance √(Σ ln² λ_i), λ the eigenvalues of P^{-1/2} Q P^{-1/2}.
pub fn spd_affine_distance<const K: usize>(p: &SMatrix<f64, K, K>, q: &SMatrix<f64, K, K>) -> f64
where
    Fixed<K>: SymEigen<K>,
{
    let (_, p_inv_sqrt) = sqrt_and_inv_sqrt(p);
    let (values, _) = Fixed::<K>::sym_eigen(&congruence(&p_inv_sqrt, q));
    values.iter().map(|l| l.ln().powi(2)).sum::<f64>().sqrt()
}

/// Σ log_b(x) over unit vectors `xs` of R³ at the unit vector `b`: θ·u with u the unit tangent towards x (zero
/// where x = b), as `Sphere::log` computes it, but with the angle θ from the tangent part v = x − (b·x)b and
/// c = b·x: θ = atan(‖v‖/c) within a quarter circle (c > 0), else atan2(‖v‖, c). Both are accurate to a few
/// ulps like `Sphere::log`'s 2·atan2(‖x − b‖, ‖x + b‖) (the tests compare them), with one square root instead
/// of three, and libm's `atan` takes half the time of its `atan2`: ~10 instead of ~20 ns a point.
pub fn sphere2_sum_log(b: &Vector3<f64>, xs: &[DVector<f64>]) -> Vector3<f64> {
    let mut sum = Vector3::zeros();
    for x in xs {
        let x = x.as_slice();
        let x = Vector3::new(x[0], x[1], x[2]);
        let c = b.dot(&x);
        let v = x - b * c;
        let s = v.norm();
        if s != 0.0 {
            let theta = if c > 0.0 { (s / c).atan() } else { s.atan2(c) };
            sum += v * (theta / s);
        }
    }
    sum
}

/// Σ of the body rotation vectors of q⁻¹x_i over `xs` (`So3::log` summed without a vector per point).
pub fn so3_sum_log(q: &UnitQuaternion<f64>, xs: &[UnitQuaternion<f64>]) -> Vector3<f64> {
    let inverse = q.inverse();
    let mut sum = Vector3::zeros();
    for x in xs {
        sum += Vector3::from(crate::space::so3::to_rotvec(&(inverse * x)));
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::spd as generic;
    use nalgebra::{Matrix2, Matrix3, SymmetricEigen};

    /// A few SPD matrices of every kind that matters: diagonal, equal eigenvalues, near-equal eigenvalues,
    /// badly conditioned, off-diagonal dominant.
    fn spd2_cases() -> Vec<Matrix2<f64>> {
        vec![
            Matrix2::new(2.0, 0.0, 0.0, 0.5),
            Matrix2::new(1.0, 0.0, 0.0, 1.0),
            Matrix2::new(1.0, 1e-9, 1e-9, 1.0),
            Matrix2::new(1.0 + 1e-12, 3e-13, 3e-13, 1.0),
            Matrix2::new(1e6, 1.0, 1.0, 1e-5),
            Matrix2::new(3.0, 2.9, 2.9, 3.0),
            Matrix2::new(0.8058, -0.1925, -0.1925, 0.8888),
            Matrix2::new(1e-8, 2e-9, 2e-9, 3e-8),
        ]
    }

    fn spd3_cases() -> Vec<Matrix3<f64>> {
        vec![
            Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0),
            Matrix3::identity(),
            Matrix3::new(1.0, 1e-10, 0.0, 1e-10, 1.0, 1e-10, 0.0, 1e-10, 1.0),
            Matrix3::new(1e5, 1.0, 0.1, 1.0, 1.0, 0.01, 0.1, 0.01, 2e-4),
            Matrix3::new(0.3, 0.1, -0.05, 0.1, 0.9, 0.2, -0.05, 0.2, 1.7),
        ]
    }

    #[test]
    fn the_closed_form_2x2_eigendecomposition_reconstructs_and_is_orthonormal() {
        for a in spd2_cases() {
            let (l, u) = Fixed::<2>::sym_eigen(&a);
            let back = u * Matrix2::from_diagonal(&l) * u.transpose();
            let scale = a.amax();
            assert!((back - a).amax() <= 4e-16 * scale, "{a}: {back}");
            assert!((u.transpose() * u - Matrix2::identity()).amax() <= 4e-16, "{u}");
            // The eigenvalues to a few ulps, the small one included at condition number 1e11.
            let g = SymmetricEigen::new(to_dynamic(&a)).eigenvalues;
            let (mut ours, mut theirs) = ([l[0], l[1]], [g[0], g[1]]);
            ours.sort_by(f64::total_cmp);
            theirs.sort_by(f64::total_cmp);
            for (x, y) in ours.iter().zip(&theirs) {
                assert!((x - y).abs() <= 1e-14 * x.abs().max(1e-300) + 4e-16 * scale, "{a}: {ours:?} vs {theirs:?}");
            }
        }
    }

    #[test]
    fn the_3x3_jacobi_eigendecomposition_reconstructs_and_is_orthonormal() {
        // The SPD cases, and indefinite ones as exp's arguments are (one with a zero diagonal).
        let mut cases = spd3_cases();
        cases.push(Matrix3::new(0.0, 0.4, -0.2, 0.4, 0.0, 0.1, -0.2, 0.1, 0.0));
        cases.push(Matrix3::new(-0.5, 0.3, 0.0, 0.3, 0.2, -0.7, 0.0, -0.7, 0.1));
        for a in cases {
            let (l, u) = Fixed::<3>::sym_eigen(&a);
            let back = u * Matrix3::from_diagonal(&l) * u.transpose();
            // A few rotations, each exact to rounding: a few ulps of the largest entry.
            assert!((back - a).amax() <= 8.0 * f64::EPSILON * a.amax(), "{a}: {back}");
            assert!((u.transpose() * u - Matrix3::identity()).amax() <= 8.0 * f64::EPSILON, "{u}");
        }
    }

    #[test]
    fn matrix_functions_agree_with_the_generic_ones() {
        fn check<const K: usize>(a: SMatrix<f64, K, K>)
        where
            Fixed<K>: SymEigen<K>,
        {
            let d = to_dynamic(&a);
            let close =
                |x: SMatrix<f64, K, K>, y: DMatrix<f64>| (to_dynamic(&x) - &y).amax() <= 1e-13 * y.amax().max(1.0);
            assert!(close(sym_fn(&a, f64::ln), generic::logm(&d)), "{a}");
            assert!(close(sym_fn(&a.map(|x| x * 1e-3), f64::exp), generic::expm(&d.map(|x| x * 1e-3))), "{a}");
            let ((s, si), (gs, gsi)) = (sqrt_and_inv_sqrt(&a), generic::sqrt_and_inv_sqrt(&d));
            assert!(close(s, gs) && (to_dynamic(&si) - &gsi).amax() <= 1e-13 * gsi.amax(), "{a}");
            let q = to_dynamic(&a).map(|x| x * 0.5) + DMatrix::identity(K, K);
            let (ours, theirs) =
                (spd_affine_distance(&a, &to_fixed::<K>(&q)), generic::affine_invariant_distance(&d, &q));
            assert!((ours - theirs).abs() <= 1e-12 * theirs.max(1.0), "{a}: {ours} vs {theirs}");
        }
        // Eigenvalues are accurate to ~ε·λ_max in absolute terms (by any method), so the small one's log and
        // inverse square root are only good to ~ε·condition: past 1e3 the two codes may differ by more than the
        // 1e-13 asked here, and the badly conditioned cases are checked by reconstruction above instead.
        let conditioned =
            |l: &[f64]| l.iter().cloned().fold(0.0, f64::max) / l.iter().cloned().fold(f64::MAX, f64::min) < 1e3;
        spd2_cases().into_iter().filter(|a| conditioned(Fixed::<2>::sym_eigen(a).0.as_slice())).for_each(check);
        spd3_cases().into_iter().filter(|a| conditioned(Fixed::<3>::sym_eigen(a).0.as_slice())).for_each(check);
    }

    /// Deterministic pseudo-random numbers in (−1, 1).
    fn wiggle(i: usize, j: usize) -> f64 {
        ((i as f64) * 12.9898 + (j as f64) * 78.233).sin()
    }

    #[test]
    fn sums_of_logs_and_the_karcher_mean_agree_with_the_generic_path() {
        use crate::manifold::{
            FrechetMean, KarcherOptions, Manifold, So3, SpdAffine, SpdLogEuclidean, Sphere, frechet_mean,
        };
        // The generic path: Σ of the per-point logs, each through DMatrix/DVector code (for SPD the
        // `space::spd` functions, which never take the fixed-size path).
        fn generic_affine(p: &DMatrix<f64>, xs: &[DMatrix<f64>]) -> DVector<f64> {
            let (_, s) = generic::sqrt_and_inv_sqrt(p);
            let sum = xs
                .iter()
                .fold(DMatrix::zeros(p.nrows(), p.nrows()), |acc, x| acc + generic::logm(&generic::congruence(&s, x)));
            DVector::from_column_slice(sum.as_slice())
        }
        fn close(a: &DVector<f64>, b: &DVector<f64>, n: usize) -> bool {
            (a - b).amax() <= 1e-13 * n as f64
        }
        /// The Karcher mean from the fixed-size sums also has its gradient norm within the certified bound (the
        /// stop tolerance) by the generic logs.
        fn agree<M: Manifold>(m: &M, xs: &[M::Point], start: &M::Point, generic_gradient: impl Fn(&M::Point) -> f64) {
            let FrechetMean { mean, gradient_norm, gradient_bound, .. } =
                frechet_mean(m, xs, start, KarcherOptions::default()).unwrap();
            assert!(gradient_norm <= gradient_bound);
            let g = generic_gradient(&mean);
            assert!(
                g <= gradient_bound && (g - gradient_norm).abs() <= 1e-14,
                "{}: {g} vs {gradient_norm}",
                m.describe()
            );
        }
        for k in [2, 3] {
            let m = SpdAffine::new(k).unwrap();
            let xs: Vec<DMatrix<f64>> = (0..300)
                .map(|i| {
                    let g = DMatrix::from_fn(k, k, |r, c| wiggle(i, r * k + c) + if r == c { 1.2 } else { 0.0 });
                    &g * g.transpose() + DMatrix::identity(k, k) * 0.05
                })
                .collect();
            let p = &xs[7] * 0.5 + &xs[8] * 0.5;
            let sum = m.sum_log(&p, &xs);
            assert!(close(&sum, &generic_affine(&p, &xs), xs.len()), "SPD({k})");
            // Single logs, exp and the distance go through the same kernels.
            let v = m.log(&p, &xs[3]);
            assert!(close(&v, &generic_affine(&p, &xs[3..4]), 1));
            assert!(generic::affine_invariant_distance(&m.exp(&p, &v), &xs[3]) <= 1e-12);
            assert!((m.distance(&p, &xs[3]) - generic::affine_invariant_distance(&p, &xs[3])).abs() <= 1e-13);
            agree(&m, &xs, &DMatrix::identity(k, k), |mean| (generic_affine(mean, &xs) / xs.len() as f64).norm());
            let le = SpdLogEuclidean::new(k).unwrap();
            let generic_le = xs.iter().fold(DMatrix::zeros(k, k), |acc, x| acc + generic::logm(x) - generic::logm(&p));
            assert!(close(&le.sum_log(&p, &xs), &DVector::from_column_slice(generic_le.as_slice()), xs.len()));
        }
        for ambient in [3, 4] {
            let m = Sphere::new(ambient).unwrap();
            let xs: Vec<DVector<f64>> = (0..300)
                .map(|i| DVector::from_fn(ambient, |j, _| if j == 0 { 3.0 } else { wiggle(i, j) }).normalize())
                .collect();
            let base = &xs[0];
            let generic_sum = xs.iter().fold(DVector::zeros(ambient), |acc, x| acc + m.log(base, x));
            assert!(close(&m.sum_log(base, &xs), &generic_sum, xs.len()), "S^{}", ambient - 1);
            agree(&m, &xs, &xs[1], |mean| {
                (xs.iter().fold(DVector::zeros(ambient), |acc, x| acc + m.log(mean, x)) / xs.len() as f64).norm()
            });
        }
        let xs: Vec<UnitQuaternion<f64>> =
            (0..300).map(|i| UnitQuaternion::from_scaled_axis(Vector3::from_fn(|j, _| 0.6 * wiggle(i, j)))).collect();
        let generic_sum = xs.iter().fold(DVector::zeros(3), |acc, x| acc + So3.log(&xs[0], x));
        assert!(close(&So3.sum_log(&xs[0], &xs), &generic_sum, xs.len()));
        agree(&So3, &xs, &xs[0], |mean| {
            (xs.iter().fold(DVector::zeros(3), |acc, x| acc + So3.log(mean, x)) / xs.len() as f64).norm()
        });
    }

    /// The S² sum's angle (atan within a quarter circle, else atan2) agrees point by point with `Sphere::log`
    /// at every angle from 1e-9 to just short of the antipode, on both sides of the quarter circle.
    #[test]
    fn sphere_logs_agree_at_every_angle() {
        let m = crate::manifold::Sphere::new(3).unwrap();
        let b = Vector3::new(0.3, -0.2, 0.9).normalize();
        let b_dynamic = DVector::from_column_slice(b.as_slice());
        let away = b.cross(&Vector3::new(1.0, 0.0, 0.0)).normalize();
        let (quarter, half) = (std::f64::consts::FRAC_PI_2, std::f64::consts::PI);
        for theta in [1e-9, 1e-4, 0.1, 0.39, 1.0, 1.5, quarter - 1e-7, quarter + 1e-7, 1.6, 2.5, 3.0, half - 1e-3] {
            let x = (b * theta.cos() + away * theta.sin()).normalize();
            let x = DVector::from_column_slice(x.as_slice());
            let fixed = sphere2_sum_log(&b, std::slice::from_ref(&x));
            let generic = crate::manifold::Manifold::log(&m, &b_dynamic, &x);
            let error = (DVector::from_column_slice(fixed.as_slice()) - &generic).amax();
            assert!(error <= 2e-15 * theta.max(1.0), "θ = {theta}: {error:e}");
            assert!((fixed.norm() - theta).abs() <= 1e-15 * theta.max(1.0), "θ = {theta}");
        }
    }
}
