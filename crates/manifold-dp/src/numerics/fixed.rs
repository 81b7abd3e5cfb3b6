//! Fixed-size symmetric-matrix numerics for SPD(2) and SPD(3), so that the manifolds' kernels
//! (`crate::manifold::fixed`) allocate nothing per point. The generic code works on `DMatrix`/`DVector`, which costs
//! several heap allocations per point and per pass (a clone for the eigendecomposition, temporaries of every
//! product); here every temporary is a `Matrix2`/`Matrix3`/`Vector3` on the stack.
//!
//! The mathematics is the generic code's, formula for formula (the same whitening, the same symmetrisations,
//! the same distance formulas), so results agree with it to rounding (the tests check ~1e-13). The only new
//! algorithm is the closed-form 2×2 symmetric eigendecomposition: one Jacobi rotation, which is exact up to
//! rounding and accurate to a few ulps in the eigenvalues and eigenvectors at any condition number (Golub & Van
//! Loan, *Matrix Computations*, §8.5.2, `sym.schur2`); the 3×3 case applies the same rotation cyclically
//! (Jacobi's method, §8.5.3).

use nalgebra::{DMatrix, DVector, Matrix2, Matrix3, SMatrix, SVector, Vector2, Vector3};

/// A symmetric eigendecomposition A = U diag(λ) Uᵀ of a K×K symmetric matrix, on the stack: implemented for
/// [`Fixed<2>`] (closed form) and [`Fixed<3>`] (cyclic Jacobi).
pub trait SymEigen<const K: usize> {
    /// (λ, U): the eigenvalues and the orthonormal eigenvectors as U's columns.
    fn sym_eigen(a: &SMatrix<f64, K, K>) -> (SVector<f64, K>, SMatrix<f64, K, K>);
}

/// The matrix size K of a fixed-size kernel (only 2 and 3 have one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fixed<const K: usize>;

impl SymEigen<2> for Fixed<2> {
    /// One Jacobi rotation [[c, s], [−s, c]] diagonalises [[p, q], [q, r]]: with τ = (r − p)/(2q) and t the
    /// smaller root of t² + 2τt − 1 = 0, the eigenvalues are p − tq and r + tq (no cancellation, unlike the
    /// (p + r)/2 ± … formula at large condition numbers).
    fn sym_eigen(a: &Matrix2<f64>) -> (Vector2<f64>, Matrix2<f64>) {
        let (p, q, r) = (a[(0, 0)], a[(0, 1)], a[(1, 1)]);
        if q == 0.0 {
            return (Vector2::new(p, r), Matrix2::identity());
        }
        let tau = (r - p) / (2.0 * q);
        // Above 1e150, τ² would overflow; t = 1/(2τ) is then exact to rounding.
        let t = if tau.abs() < 1e150 { tau.signum() / (tau.abs() + (1.0 + tau * tau).sqrt()) } else { 0.5 / tau };
        let c = 1.0 / (1.0 + t * t).sqrt();
        let s = t * c;
        (Vector2::new(p - t * q, r + t * q), Matrix2::new(c, s, -s, c))
    }
}

impl SymEigen<3> for Fixed<3> {
    /// Cyclic Jacobi: rotations as in the 2×2 case, in the planes (0,1), (0,2), (1,2) in turn, until every
    /// off-diagonal entry is negligible. Quadratically convergent (two to four sweeps here) and at least as
    /// accurate as QR (Demmel & Veselić 1992); about five times faster than nalgebra's general `SymmetricEigen`
    /// on a `Matrix3`, which is what made SPD(3) no faster on the stack than on the heap.
    fn sym_eigen(m: &Matrix3<f64>) -> (Vector3<f64>, Matrix3<f64>) {
        let mut a =
            [[m[(0, 0)], m[(0, 1)], m[(0, 2)]], [m[(1, 0)], m[(1, 1)], m[(1, 2)]], [m[(2, 0)], m[(2, 1)], m[(2, 2)]]];
        let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        // An off-diagonal entry below ε/2 relative to its diagonal pair (or to the whole matrix, for
        // indefinite arguments of exp with zero diagonal) changes no eigenvalue beyond rounding: it is dropped.
        let scale = m.iter().fold(0.0f64, |acc, x| acc.max(x.abs()));
        let floor = scale * 1e-20;
        for _sweep in 0..32 {
            let mut rotated = false;
            for (p, q) in [(0, 1), (0, 2), (1, 2)] {
                let apq = a[p][q];
                if apq == 0.0 {
                    continue;
                }
                if apq.abs() <= 0.5 * f64::EPSILON * (a[p][p] * a[q][q]).abs().sqrt() || apq.abs() <= floor {
                    a[p][q] = 0.0;
                    a[q][p] = 0.0;
                    continue;
                }
                rotated = true;
                let h = a[q][q] - a[p][p];
                let r = apq / h;
                let (c, s, t) = if r.abs() < 1e-5 {
                    // a_pq small against the diagonal gap (the later sweeps): the series t = r(1 − r² + O(r⁴))
                    // and c = 1 − t²/2 + O(t⁴) are exact to rounding here (r⁴, t⁴ < 1e-20), and avoid the two
                    // square roots and divisions of the general case.
                    let t = r * (1.0 - r * r);
                    let c = 1.0 - 0.5 * t * t;
                    (c, t * c, t)
                } else {
                    let tau = h / (2.0 * apq);
                    let t = if tau.abs() < 1e150 {
                        tau.signum() / (tau.abs() + (1.0 + tau * tau).sqrt())
                    } else {
                        0.5 / tau
                    };
                    let c = 1.0 / (1.0 + t * t).sqrt();
                    (c, t * c, t)
                };
                a[p][p] -= t * apq;
                a[q][q] += t * apq;
                a[p][q] = 0.0;
                a[q][p] = 0.0;
                let r = 3 - p - q;
                let (arp, arq) = (a[r][p], a[r][q]);
                a[r][p] = c * arp - s * arq;
                a[p][r] = a[r][p];
                a[r][q] = s * arp + c * arq;
                a[q][r] = a[r][q];
                for row in &mut v {
                    let (vp, vq) = (row[p], row[q]);
                    row[p] = c * vp - s * vq;
                    row[q] = s * vp + c * vq;
                }
            }
            if !rotated {
                break;
            }
        }
        (
            Vector3::new(a[0][0], a[1][1], a[2][2]),
            Matrix3::new(v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2], v[2][0], v[2][1], v[2][2]),
        )
    }
}

/// (M + Mᵀ)/2: exactly symmetric, as the generic code makes every matrix it returns.
fn symmetrised<const K: usize>(m: SMatrix<f64, K, K>) -> SMatrix<f64, K, K> {
    (m + m.transpose()) * 0.5
}

/// U diag(d) Uᵀ, exactly symmetric.
fn from_eigen<const K: usize>(u: &SMatrix<f64, K, K>, d: &SVector<f64, K>) -> SMatrix<f64, K, K> {
    let mut scaled = *u;
    for (j, mut col) in scaled.column_iter_mut().enumerate() {
        col *= d[j];
    }
    symmetrised(scaled * u.transpose())
}

/// f(A) = U diag(f(λ)) Uᵀ for a symmetric A.
pub fn sym_fn<const K: usize>(a: &SMatrix<f64, K, K>, f: impl Fn(f64) -> f64) -> SMatrix<f64, K, K>
where
    Fixed<K>: SymEigen<K>,
{
    let (values, vectors) = Fixed::<K>::sym_eigen(a);
    from_eigen(&vectors, &values.map(f))
}

/// The square root and inverse square root of an SPD matrix, from one eigendecomposition.
pub fn sqrt_and_inv_sqrt<const K: usize>(a: &SMatrix<f64, K, K>) -> (SMatrix<f64, K, K>, SMatrix<f64, K, K>)
where
    Fixed<K>: SymEigen<K>,
{
    let (values, vectors) = Fixed::<K>::sym_eigen(a);
    let sqrt = values.map(f64::sqrt);
    (from_eigen(&vectors, &sqrt), from_eigen(&vectors, &sqrt.map(f64::recip)))
}

/// B A B for symmetric A and B, exactly symmetric (whitening and un-whitening).
pub fn congruence<const K: usize>(b: &SMatrix<f64, K, K>, a: &SMatrix<f64, K, K>) -> SMatrix<f64, K, K> {
    symmetrised(b * a * b)
}

/// A K×K `DMatrix` (a validated point) as a fixed-size matrix; the caller has checked its size.
pub fn to_fixed<const K: usize>(a: &DMatrix<f64>) -> SMatrix<f64, K, K> {
    SMatrix::<f64, K, K>::from_column_slice(a.as_slice())
}

/// A fixed-size matrix as the `DMatrix` the generic interface returns.
pub fn to_dynamic<const K: usize>(a: &SMatrix<f64, K, K>) -> DMatrix<f64> {
    DMatrix::from_column_slice(K, K, a.as_slice())
}

/// A symmetric matrix as the flattened tangent coordinates of `manifold::spd` (column order, which is row
/// order by symmetry).
pub fn flatten<const K: usize>(a: &SMatrix<f64, K, K>) -> DVector<f64> {
    DVector::from_column_slice(a.as_slice())
}

/// Flattened tangent coordinates as a symmetric matrix, symmetrised as `manifold::spd` does.
pub fn unflatten<const K: usize>(v: &DVector<f64>) -> SMatrix<f64, K, K> {
    symmetrised(SMatrix::<f64, K, K>::from_column_slice(v.as_slice()))
}
