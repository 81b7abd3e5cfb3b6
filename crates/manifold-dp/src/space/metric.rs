//! The distances metric-DP guarantees are stated in.

use serde::{Deserialize, Serialize};

/// The distance a metric-DP guarantee is stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Geodesic distance on SO(3): the rotation angle θ(x, x′) ∈ [0, π] between two rotations
    /// (Huynh's φ6 = ‖log(R1 R2ᵀ)‖), in radians. Also read from the space's name, `so3`.
    #[serde(alias = "so3")]
    So3Geodesic,
    /// Great-circle (surface) distance on a sphere S^{n−1}: d∠(x, y) = arccos(x·y) ∈ [0, π], in radians (or
    /// in a user's unit after [`crate::privacy::Guarantee::in_unit`]: hours on a 24 h circle, km on the Earth). Also read from
    /// the names of the spaces it is the distance of: `latlon`, `circle`, `timeofday`, `sphere`.
    #[serde(alias = "latlon", alias = "circle", alias = "timeofday", alias = "sphere")]
    SphereSurface,
    /// Chordal (Euclidean) distance d₂(x, y) = ‖x − y‖ ∈ [0, 2] between unit vectors. d₂ ≤ d∠, so ε per unit
    /// of d₂ implies ε per radian of d∠.
    SphereChordal,
    /// Euclidean distance between the inputs' images under the log map (azimuthal equidistant projection)
    /// at a fixed reference point of the sphere: the metric of the planar Laplace baseline. It equals d∠
    /// along geodesics through the reference point and exceeds it elsewhere. The images are the tangent
    /// coordinates the mechanism computes in f64 (`TangentPlanarLaplace::coordinates`), which agree with the
    /// exact log map to a few ulps except next to the antipode, where the log map itself is discontinuous
    /// (`docs/proofs/float_safety.md` §3c).
    TangentPlane,
    /// Affine-invariant distance between SPD matrices, ρ(P, Q) = ‖log(P^{-1/2} Q P^{-1/2})‖_F (dimensionless:
    /// √(Σ ln² λ_i) over the eigenvalues λ_i of P⁻¹Q).
    SpdAffineInvariant,
    /// Log-Euclidean distance between SPD matrices, ‖log P − log Q‖_F.
    SpdLogEuclidean,
    /// Log-Euclidean distance between the log coordinates computed in f64, ‖ĉ(P) − ĉ(Q)‖ with
    /// ĉ = `SpdLogEuclidean::log_coordinates` (nalgebra's symmetric eigendecomposition): the metric the
    /// log-Euclidean Laplace's guarantee is proven in (`docs/proofs/float_safety.md` §3d). ĉ(P) is within
    /// e(P) ≲ c_E·u·√k·cond(P) of the exact log coordinates under assumption (E), so ε per unit of it gives
    /// ε·(‖log P − log Q‖_F + e(P) + e(Q)) + ε₀ in the exact metric: ~1e-2·ε extra at condition number 1e12.
    SpdComputedLogCoordinates,
}

impl Metric {
    /// Unit the metric is measured in.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::So3Geodesic | Metric::SphereSurface | Metric::TangentPlane => "rad",
            Metric::SphereChordal
            | Metric::SpdAffineInvariant
            | Metric::SpdLogEuclidean
            | Metric::SpdComputedLogCoordinates => "unit",
        }
    }

    /// Human description.
    pub fn describe(self) -> &'static str {
        match self {
            Metric::So3Geodesic => "geodesic rotation angle on SO(3) (phi6)",
            Metric::SphereSurface => "great-circle distance",
            Metric::SphereChordal => "chordal distance |x - y| (hence also per rad of great-circle distance)",
            Metric::TangentPlane => "distance between log-map images at the reference point",
            Metric::SpdAffineInvariant => "affine-invariant distance between SPD matrices",
            Metric::SpdLogEuclidean => "log-Euclidean distance between SPD matrices",
            Metric::SpdComputedLogCoordinates => {
                "log-Euclidean distance between the computed log coordinates of SPD matrices"
            }
        }
    }
}
