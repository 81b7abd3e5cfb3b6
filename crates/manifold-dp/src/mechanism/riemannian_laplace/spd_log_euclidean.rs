//! The Riemannian Laplace on SPD(k) with the log-Euclidean metric: the ℓ₂ K-norm law in isometric log
//! coordinates (`docs/proofs/float_safety.md` §3d).

use crate::Fallible;
use crate::manifold::{Manifold, SpdLogEuclidean};
use crate::privacy::Metric;
use crate::privacy::float_safety::Rounding;
use crate::sample::k_norm::EuclideanLaplace;
use crate::space::spd::{self, expm, logm};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use std::f64::consts::FRAC_1_SQRT_2;

use super::LaplaceManifold;

/// The symmetric matrix with isometric coordinates `v`: diagonal entries, then √2 times each entry above
/// the diagonal, row by row, so that ‖v‖ = ‖matrix‖_F.
pub(crate) fn coords_to_sym(v: &DVector<f64>, k: usize) -> DMatrix<f64> {
    let mut m = DMatrix::zeros(k, k);
    let mut it = v.iter();
    for i in 0..k {
        m[(i, i)] = *it.next().expect("k(k+1)/2 coordinates");
        for j in i + 1..k {
            let x = *it.next().expect("k(k+1)/2 coordinates") * FRAC_1_SQRT_2;
            m[(i, j)] = x;
            m[(j, i)] = x;
        }
    }
    m
}

/// The isometric coordinates of a symmetric matrix (the diagonal, then √2 times each entry above it, row by
/// row), so that the Euclidean norm is the Frobenius norm; the inverse of [`coords_to_sym`].
pub(super) fn sym_to_coords(m: &DMatrix<f64>) -> DVector<f64> {
    let k = m.nrows();
    let mut out = Vec::with_capacity(k * (k + 1) / 2);
    for i in 0..k {
        out.push(m[(i, i)]);
        for j in i + 1..k {
            out.push(m[(i, j)] / FRAC_1_SQRT_2);
        }
    }
    DVector::from_vec(out)
}

/// A bound on every isometric log coordinate of an SPD(k) matrix with f64 entries: its eigenvalues lie in
/// [2^-1074, k·2^1024), so |ln λ| ≤ 745.2 and each coordinate is at most ‖log P‖_F ≤ 746√k.
pub(super) fn any_log_coordinate_bound(k: usize) -> f64 {
    746.0 * (k as f64).sqrt()
}

impl SpdLogEuclidean {
    /// The isometric coordinates of log P as computed in f64: the log-Euclidean releases' chart, and the
    /// coordinates in which their guarantee's distance is measured (`docs/proofs/float_safety.md` §3d).
    pub fn log_coordinates(&self, p: &DMatrix<f64>) -> DVector<f64> {
        sym_to_coords(&logm(p))
    }
}

impl LaplaceManifold for SpdLogEuclidean {
    fn negligible_event_probability(&self, noise: &EuclideanLaplace) -> f64 {
        noise.negligible_event_probability()
    }

    fn negligible_event_bound(&self) -> f64 {
        if self.dimension() >= 2 { crate::sample::normal::DIRECTION_EVENT_PROBABILITY } else { 0.0 }
    }

    fn distance_unit(&self) -> &'static str {
        "(the metric's distance)"
    }

    fn rounding_refusal_advice(&self) -> &'static str {
        "the condition numbers in a wide ball amplify its rounding errors; use a centre closer to the data and a \
         smaller radius, conditioning on the ball, or the log-Euclidean metric"
    }

    type Noise = EuclideanLaplace;

    const ROUNDS_IN_CHART: bool = true;

    /// The log domain's uniform grid, clamped beyond every f64 matrix's log coordinates.
    fn rounding(&self, sigma: f64) -> Option<Rounding> {
        Some(Rounding::for_log_domain(self.dimension(), sigma, any_log_coordinate_bound(self.k())))
    }

    /// Footpoints within `radius` of `center` have log coordinates within radius of the centre's (the distance
    /// is the Euclidean one between them); half the radius more leaves room for the mean's and the logarithm's
    /// f64 error, and [`Rounding::clamp_footpoint`] makes the bound hold for every footpoint
    /// (`docs/proofs/float_safety.md` §3d, "The mean's error").
    fn rounding_in_ball(&self, sigma: f64, center: &DMatrix<f64>, radius: f64) -> Option<Rounding> {
        let bound = self.log_coordinates(center).amax() + 1.5 * radius;
        let rounding =
            Rounding::for_log_domain_by_shell(self.dimension(), sigma, bound.min(any_log_coordinate_bound(self.k())));
        // The truncated radius's acceptance test may run here (float_safety.md §3f, Lemma R).
        Some(rounding.with_acceptance_error(EuclideanLaplace::truncated_acceptance_error(self.dimension())))
    }

    /// The representative of the cell of y's log coordinates.
    fn snap_point(&self, rounding: &Rounding, y: &mut DMatrix<f64>) {
        let mut u = self.log_coordinates(y);
        rounding.snap_coordinates(u.as_mut_slice());
        *y = expm(&coords_to_sym(&u, self.k()));
    }

    /// Rounded in the log domain, where the law is a plain Laplace law: the footpoint's log coordinates (clamped
    /// to the rounding's public box) plus the noise, one addition per coordinate, clamped and rounded; the
    /// release is exp of the cell's point (`docs/proofs/float_safety.md` §3d).
    fn sample_rounded<R: Rng + ?Sized>(
        &self,
        noise: &EuclideanLaplace,
        eta: &DMatrix<f64>,
        rounding: &Rounding,
        rng: &mut R,
    ) -> DMatrix<f64> {
        let mut u = self.log_coordinates(eta);
        rounding.clamp_footpoint(u.as_mut_slice());
        u += noise.sample(rng);
        rounding.snap_coordinates(u.as_mut_slice());
        expm(&coords_to_sym(&u, self.k()))
    }

    fn laplace_noise(&self, sigma: f64, t_max: Option<f64>) -> Fallible<EuclideanLaplace> {
        EuclideanLaplace::new(self.dimension(), sigma, t_max)
    }

    fn sample_laplace<R: Rng + ?Sized>(
        &self,
        noise: &EuclideanLaplace,
        eta: &DMatrix<f64>,
        rng: &mut R,
    ) -> DMatrix<f64> {
        let z = coords_to_sym(&noise.sample(rng), self.k());
        expm(&(logm(eta) + z))
    }

    fn mean_distance(&self, noise: &EuclideanLaplace, within: Option<f64>) -> f64 {
        match within {
            None => noise.mean_radius(),
            Some(r) => EuclideanLaplace::new(noise.dim(), noise.sigma(), Some(r)).map_or(f64::NAN, |l| l.mean_radius()),
        }
    }

    fn check_representable(&self, y: &DMatrix<f64>) -> Fallible<()> {
        spd::check_representable(y)
    }

    /// ε = 1/σ per unit of ‖ĉ(P) − ĉ(P′)‖, ĉ = [`SpdLogEuclidean::log_coordinates`]: the exact law of
    /// ĉ(P) + noise is (1/σ)-DP in it with no input error, while ĉ's error against the exact log (up to
    /// ~c_E·u·√k·cond(P) under (E)) is not bounded over all inputs (`docs/proofs/float_safety.md` §3d).
    fn guarantee_metric(&self) -> Metric {
        Metric::SpdComputedLogCoordinates
    }
}
