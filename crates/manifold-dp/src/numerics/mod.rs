//! The numerics every layer above uses and that know nothing of privacy: numbers printed for people
//! ([`mod@format`]), directed rounding ([`rounding`]), trigonometry in turns ([`trig`]), small fixed-size
//! symmetric matrices ([`fixed`]), and the eigensolver's assumed backward error.

pub mod fixed;
pub mod format;
pub mod rounding;
pub mod trig;

/// The backward-error constant c_E assumed of the symmetric eigensolver (nalgebra's `SymmetricEigen`) on
/// k×k matrices, k ≤ 3 (assumption (E), `docs/proofs/float_safety.md` §3e): the computed eigenvalues and
/// eigenvectors of A are exact for A + E with ‖E‖_F ≤ c_E·u·‖A‖_F, and the computed eigenvectors are within
/// c_E·u of an orthonormal set (u = 2^-53). A unit test checks it on the matrices releases build (largest
/// seen: 35·u). (nalgebra's SVD is not backward stable on such graded matrices, so it is not used.)
pub const EIGEN_BACKWARD_ERROR: f64 = 64.0;

/// The backward-error constant c_E assumed of the symmetric eigensolver on k×k matrices for 4 ≤ k ≤ 8 (nalgebra's
/// dynamic `SymmetricEigen`; assumption (E), `docs/proofs/spd_log_euclidean_mean.md` §4): measured up to 53.8·u
/// on 6000 matrices with condition numbers up to 10¹², assumed 128 (a margin of 2.4).
pub const EIGEN_BACKWARD_ERROR_DYNAMIC: f64 = 128.0;

/// c_E for k×k matrices: [`EIGEN_BACKWARD_ERROR`] for k ≤ 3, [`EIGEN_BACKWARD_ERROR_DYNAMIC`] beyond.
pub fn eigen_backward_error(k: usize) -> f64 {
    if k <= 3 { EIGEN_BACKWARD_ERROR } else { EIGEN_BACKWARD_ERROR_DYNAMIC }
}
