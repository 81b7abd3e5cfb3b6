//! Exact samplers. Each noise sampler draws a rotation at the identity (so proposals and acceptance
//! tests never depend on the private input) and is a `rand::distr::Distribution`.
//!
//! - [`laplace_so3`]: angle density ∝ sin²(θ/2)·e^{−εθ}, exact rejection with acceptance ≥ 0.948 at every ε.
//! - [`bingham_so3`]: density ∝ exp(−κ sin²(θ/2)) on S³, Kent–Ganeiber–Mardia with the optimal envelope.
//! - [`vmf`], [`purkayastha`]: the sphere laws, their radial parts by Jakob's inversion, a truncated
//!   exponential, Wood's sampler or the strip envelope of `log_concave` (exact rejection for log-concave
//!   densities on an interval, with a squeeze: about two random words per draw).
//! - [`rounded_laplace`]: the real-line Laplace release rounded onto a public grid, drawn exactly with the
//!   integer coins of [`exact_coins`] (float-safe with no cost in ε).
//! - [`rounded_gaussian`]: the real-line Gaussian release rounded onto a public grid, drawn exactly (Karney's
//!   normal sampler with lazily drawn uniform bits; float-safe with no cost in any guarantee).
//! - [`rounded_generalized_gaussian`]: the real-line generalized Gaussian release (density ∝ e^{−(|x|/s)^N})
//!   rounded onto a public grid, drawn exactly by rejection from a uniform body and an exponential tail with
//!   lazily drawn uniform bits (float-safe with no cost in any guarantee).
//! - [`normal`]: standard normal pairs (Box–Muller on full-precision uniforms: every coordinate within 16 ulps
//!   of its own size, far tails and tiny values included), and Gamma and symmetric Beta draws built on them.
//! - `paper_baseline`: the SO(3) paper's own samplers, which are *not* exact; for reproduction only (the
//!   `experiments` feature).
//! - [`rng`]: the randomness policy (OS-seeded CSPRNG, seeded generators for experiments, streams).

mod alias;
pub mod bingham_so3;
pub(crate) mod double_double;
mod exact_cell;
pub mod exact_coins;
pub mod generalized_gaussian;
pub mod k_norm;
mod laplace_blocks;
pub mod laplace_so3;
mod log_concave;
pub mod normal;
#[cfg(feature = "experiments")]
pub mod paper_baseline;
// Without the feature, only the auditor's negative control reaches the paper's naive sampler.
#[cfg(not(feature = "experiments"))]
#[allow(dead_code)]
pub(crate) mod paper_baseline;
pub mod purkayastha;
pub mod riemannian_gaussian;
pub mod rng;
pub mod rounded_gaussian;
pub mod rounded_generalized_gaussian;
pub mod rounded_laplace;
pub mod spd_laplace;
pub mod sphere;
pub use crate::numerics::trig;
pub mod uniform;
pub mod vmf;
pub mod wishart;

pub(crate) use crate::numerics::trig::small_sin_cos;
