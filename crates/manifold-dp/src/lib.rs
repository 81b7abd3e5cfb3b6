//! # manifold-dp
//!
//! Exact metric differential privacy for data on curved spaces: rotations SO(3), spheres S^{n−1} (circles,
//! times of day, the Earth, unit vectors) and SPD matrices, with one registry of names ([`registry`]). For
//! SO(3): rotation geometry and conversions ([`space::so3`], [`space::euler`]), the metrics of Huynh (2009)
//! ([`space::so3_metric`]), the Laplace and Bingham mechanisms ([`mechanism`]) with exact samplers
//! ([`sample`]), their calibration and guarantees ([`privacy`]) and closed-form or quadrature analysis of
//! their noise ([`analysis`]).
//!
//! Every ε in the SO(3) API is **per radian of the geodesic angle φ6** (the rotation angle between two
//! rotations): a mechanism `M` is εφ6-private when `P[M(x) ∈ Z] ≤ exp(ε·θ(x, x′))·P[M(x′) ∈ Z]`.
//!
//! ```
//! use manifold_dp::mechanism::{LaplaceSo3, Mechanism};
//! use manifold_dp::sample::rng::seeded_rng_for_experiments;
//! use nalgebra::UnitQuaternion;
//!
//! let mech = LaplaceSo3::new(8.0).unwrap();          // ε = 8 per radian
//! let mut rng = seeded_rng_for_experiments(7);        // use `os_rng()` for real releases
//! let x = UnitQuaternion::identity();
//! let noisy = mech.privatize(&x, &mut rng).unwrap();
//! let moved = manifold_dp::space::so3_metric::geodesic(&x, &noisy);
//! println!("{} moved by {moved:.3} rad", mech.guarantee());
//! ```
//!
//! The library does no file I/O; the `manifold-dp` binary does.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod audit;
pub mod error;
pub mod manifold;
pub mod mechanism;
pub mod notes;
pub mod numerics;
pub mod privacy;
pub mod registry;
pub mod sample;
pub mod space;
pub mod stats;

pub use error::{Error, Fallible};
