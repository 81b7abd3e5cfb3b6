//! Closed forms and quadrature for the noise laws: angular CDFs and their inverses, mean angles, the radius
//! of indistinguishability ρ(ε, p) (the angle within which a fraction p of releases fall) and its inverse
//! ε(ρ, p).

pub mod angular;
pub mod bingham_so3;
pub mod gaussian_dp;
pub mod laplace_so3;
pub mod quadrature;
pub mod renyi_local;
pub mod riemannian_gdp;
pub mod spd_radial;
pub mod special;
pub mod sphere_angle;
pub mod sphere_closed_forms;
pub mod wrapped_laplace;

pub use angular::{AngularLaw, epsilon_for_radius};
pub use bingham_so3::BinghamAngle;
pub use laplace_so3::LaplaceAngle;
pub use sphere_angle::{SphereAngle, SphereKernel, VmfAngle};
pub use wrapped_laplace::WrappedLaplaceAngle;
