//! Symmetric positive definite (SPD) matrices: validation of user data and the matrix functions the
//! affine-invariant geometry needs (square root, inverse square root, logarithm, exponential), all through
//! one symmetric eigendecomposition.
//!
//! Points are `DMatrix<f64>` of size k×k. Validation accepts a matrix that is symmetric within a relative
//! tolerance (then symmetrises it) and positive definite; anything else is an error naming what is wrong.

use crate::error::{Error, Fallible};
use crate::space::so3::check_finite;
use nalgebra::{DMatrix, DVector, SymmetricEigen};

/// Default relative tolerance on |a_ij − a_ji| / max|a|: covariance matrices written to CSV with 6 significant
/// digits pass; a transposed or mistyped entry does not.
pub const DEFAULT_SYMMETRY_TOLERANCE: f64 = 1e-6;

/// An SPD matrix from its k·k entries in row-major order: finite, symmetric within `tolerance` (relative to
/// the largest entry), positive definite. Returns the symmetrised matrix (A + Aᵀ)/2.
pub fn spd_from_row_major(values: &[f64], k: usize, tolerance: f64) -> Fallible<DMatrix<f64>> {
    if values.len() != k * k {
        return Err(Error::WrongLength { expected: k * k, got: values.len() });
    }
    check_finite(values)?;
    // Entry by entry, as the matrix expressions max|A|, max|A − Aᵀ| and (A + Aᵀ)/2 compute them (the same bits),
    // without their temporaries: this runs once per row of a file.
    let at = |i: usize, j: usize| values[i * k + j];
    let scale = values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let asymmetry =
        (0..k).flat_map(|i| (0..k).map(move |j| (i, j))).fold(0.0f64, |m, (i, j)| m.max((at(i, j) - at(j, i)).abs()));
    let deviation = if scale > 0.0 { asymmetry / scale } else { 0.0 };
    if deviation > tolerance {
        return Err(Error::NotSymmetric { deviation, tolerance });
    }
    let sym = DMatrix::from_fn(k, k, |i, j| (at(i, j) + at(j, i)) * 0.5);
    check_positive_definite(&sym)?;
    Ok(sym)
}

/// The largest condition number (largest over smallest eigenvalue) an input matrix may have: beyond it the
/// logarithm's float error (`docs/proofs/float_safety.md` §3d, §6) is no longer small.
pub const MAX_CONDITION: f64 = 1e12;

/// Checks that a symmetric matrix is positive definite, with a margin that keeps its logarithm finite and
/// well conditioned: the smallest eigenvalue must be positive ([`Error::NotPositiveDefinite`]) and exceed
/// 1e-12 times the largest ([`Error::IllConditioned`], condition number at most [`MAX_CONDITION`]).
pub fn check_positive_definite(a: &DMatrix<f64>) -> Fallible<()> {
    use crate::numerics::fixed::{Fixed, SymEigen, to_fixed};
    // 2×2 and 3×3 (every row of an spd:2 or spd:3 file) on the stack.
    let extremes = |l: &[f64]| l.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let (min, max) = match (a.nrows(), a.ncols()) {
        (2, 2) => extremes(Fixed::<2>::sym_eigen(&to_fixed(a)).0.as_slice()),
        (3, 3) => extremes(Fixed::<3>::sym_eigen(&to_fixed(a)).0.as_slice()),
        _ => extremes(SymmetricEigen::new(a.clone()).eigenvalues.as_slice()),
    };
    // Written so that NaN fails both tests.
    let positive = min > 0.0;
    let well_conditioned = min > max * (1.0 / MAX_CONDITION);
    if !positive {
        return Err(Error::NotPositiveDefinite { min_eigenvalue: min });
    }
    if !well_conditioned {
        return Err(Error::IllConditioned { min_eigenvalue: min, max_eigenvalue: max, limit: MAX_CONDITION });
    }
    Ok(())
}

/// Checks that a computed SPD matrix is a valid point in double precision: finite entries and a Cholesky
/// factorisation that succeeds. It fails for a matrix whose condition number is beyond ~2⁵³: rounding its
/// entries loses the smallest eigenvalue, so the stored matrix is singular or indefinite.
pub fn check_representable(a: &DMatrix<f64>) -> Fallible<()> {
    if a.iter().any(|x| !x.is_finite()) {
        return Err(Error::Unrepresentable("an entry overflowed".into()));
    }
    if a.clone().cholesky().is_none() {
        return Err(Error::Unrepresentable(
            "its condition number exceeds ~2^53, so the rounded matrix is not positive definite".into(),
        ));
    }
    Ok(())
}

/// The entries of `a` in row-major order.
pub fn to_row_major(a: &DMatrix<f64>) -> Vec<f64> {
    a.transpose().as_slice().to_vec()
}

/// f(A) = U diag(f(λ)) Uᵀ for a symmetric A = U diag(λ) Uᵀ, symmetrised against rounding.
pub fn sym_fn(a: &DMatrix<f64>, f: impl Fn(f64) -> f64) -> DMatrix<f64> {
    let eig = SymmetricEigen::new(a.clone());
    from_eigen(&eig.eigenvectors, &eig.eigenvalues.map(f))
}

/// U diag(d) Uᵀ, exactly symmetric.
pub fn from_eigen(u: &DMatrix<f64>, d: &DVector<f64>) -> DMatrix<f64> {
    let mut scaled = u.clone();
    for (j, mut col) in scaled.column_iter_mut().enumerate() {
        col *= d[j];
    }
    let m = scaled * u.transpose();
    (&m + m.transpose()) * 0.5
}

/// The square root and inverse square root of an SPD matrix, from one eigendecomposition.
pub fn sqrt_and_inv_sqrt(a: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let eig = SymmetricEigen::new(a.clone());
    let sqrt = eig.eigenvalues.map(f64::sqrt);
    (from_eigen(&eig.eigenvectors, &sqrt), from_eigen(&eig.eigenvectors, &sqrt.map(f64::recip)))
}

/// Matrix logarithm of an SPD matrix.
pub fn logm(a: &DMatrix<f64>) -> DMatrix<f64> {
    sym_fn(a, f64::ln)
}

/// Matrix exponential of a symmetric matrix.
pub fn expm(a: &DMatrix<f64>) -> DMatrix<f64> {
    sym_fn(a, f64::exp)
}

/// B A B for symmetric A and B, exactly symmetric (the congruence that whitens and un-whitens).
pub fn congruence(b: &DMatrix<f64>, a: &DMatrix<f64>) -> DMatrix<f64> {
    let m = b * a * b;
    (&m + m.transpose()) * 0.5
}

/// Affine-invariant distance ρ(P, Q) = ‖log(P^{-1/2} Q P^{-1/2})‖_F = √(Σ ln² λ_i), λ the generalised
/// eigenvalues of (Q, P).
pub fn affine_invariant_distance(p: &DMatrix<f64>, q: &DMatrix<f64>) -> f64 {
    let (_, p_inv_sqrt) = sqrt_and_inv_sqrt(p);
    let w = congruence(&p_inv_sqrt, q);
    SymmetricEigen::new(w).eigenvalues.iter().map(|l| l.ln().powi(2)).sum::<f64>().sqrt()
}

/// Log-Euclidean distance ‖log P − log Q‖_F (a second, simpler metric; flat, so Δ = 2r/n as well).
pub fn log_euclidean_distance(p: &DMatrix<f64>, q: &DMatrix<f64>) -> f64 {
    (logm(p) - logm(q)).norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_symmetry_and_definiteness() {
        let ok = spd_from_row_major(&[2.0, 0.5, 0.5, 1.0], 2, 1e-6).unwrap();
        assert_eq!(ok[(0, 1)], 0.5);
        assert!(matches!(spd_from_row_major(&[2.0, 0.5, 0.4, 1.0], 2, 1e-6), Err(Error::NotSymmetric { .. })));
        assert!(matches!(spd_from_row_major(&[1.0, 2.0, 2.0, 1.0], 2, 1e-6), Err(Error::NotPositiveDefinite { .. })));
        assert!(matches!(spd_from_row_major(&[1.0, 0.0, 0.0], 2, 1e-6), Err(Error::WrongLength { .. })));
        assert!(matches!(
            spd_from_row_major(&[1.0, f64::NAN, 0.0, 1.0], 2, 1e-6),
            Err(Error::NonFinite { component: 1, .. })
        ));
        assert!(matches!(spd_from_row_major(&[0.0; 4], 2, 1e-6), Err(Error::NotPositiveDefinite { .. })));
        // Positive definite but beyond double precision's reach: named as such, with its condition number.
        let e = spd_from_row_major(&[1e300, 0.0, 0.0, 1.0], 2, 1e-6).unwrap_err();
        assert!(matches!(e, Error::IllConditioned { .. }), "{e:?}");
        assert!(e.to_string().contains("condition number 1e300"), "{e}");
        assert!(!e.to_string().contains("not positive definite"), "{e}");
    }

    /// Entry by entry, the same bits as the matrix expressions (A + Aᵀ)/2 and max|A − Aᵀ|/max|A|.
    #[test]
    fn validation_is_the_matrix_formula() {
        let values = [2.0, 0.5 + 1e-9, 0.1, 0.5, 1.5, -0.2 + 3e-10, 0.1 - 1e-10, -0.2, 1.0];
        let a = DMatrix::from_row_slice(3, 3, &values);
        let sym = spd_from_row_major(&values, 3, 1e-6).unwrap();
        assert_eq!(sym, (&a + a.transpose()) * 0.5);
        let deviation = (&a - a.transpose()).amax() / a.amax();
        match spd_from_row_major(&values, 3, 1e-10) {
            Err(Error::NotSymmetric { deviation: d, .. }) => assert_eq!(d, deviation),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn matrix_functions_invert_each_other() {
        let a = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0]);
        assert!((expm(&logm(&a)) - &a).amax() < 1e-13);
        let (s, si) = sqrt_and_inv_sqrt(&a);
        assert!((&s * &s - &a).amax() < 1e-13);
        assert!((&s * &si - DMatrix::identity(3, 3)).amax() < 1e-13);
        // Affine invariance: ρ(GPGᵀ, GQGᵀ) = ρ(P, Q).
        let q = DMatrix::from_row_slice(3, 3, &[1.0, 0.3, 0.0, 0.3, 2.0, 0.1, 0.0, 0.1, 0.5]);
        let g = DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0]);
        let d = affine_invariant_distance(&a, &q);
        let dg = affine_invariant_distance(&(&g * &a * g.transpose()), &(&g * &q * g.transpose()));
        assert!((d - dg).abs() < 1e-12 * d.max(1.0), "{d} vs {dg}");
    }
}
