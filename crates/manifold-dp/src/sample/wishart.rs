//! Wishart draws W(V, df) = Σ_{i=1}^{df} g_i g_iᵀ with g_i ~ N(0, V) i.i.d. (integer df ≥ 1): the generator of
//! covariance-matrix data in Reimherr et al.'s SPD simulations (their Appendix A.2.1). For experiments.

use nalgebra::{DMatrix, DVector};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// One draw of W(V, df), given the lower Cholesky factor L of V (V = L Lᵀ).
pub fn wishart<R: Rng + ?Sized>(v_cholesky: &DMatrix<f64>, df: usize, rng: &mut R) -> DMatrix<f64> {
    let k = v_cholesky.nrows();
    let mut w = DMatrix::zeros(k, k);
    for _ in 0..df {
        let g = v_cholesky * DVector::from_fn(k, |_, _| rng.sample::<f64, _>(StandardNormal));
        w += &g * g.transpose();
    }
    w
}
