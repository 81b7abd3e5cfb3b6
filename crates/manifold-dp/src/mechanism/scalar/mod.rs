//! Scalar and vector mechanisms for the central model: noise added independently to each coordinate of a
//! real-valued query. Proofs: `docs/proofs/scalar_mechanisms.md`.
//!
//! - [`ScalarLaplace`]: Laplace noise of scale b on a query of ℓ₁ sensitivity Δ: pure (Δ/b)-DP.
//! - [`BoundedLaplace`]: per-row release of plain numbers clamped to public bounds (the `real` space).
//! - [`Gaussian`]: N(0, σ²) noise on a query of ℓ₂ sensitivity Δ: (Δ/σ)-GDP, with the classical and the
//!   analytic (ε, δ) calibrations.
//! - [`GeneralizedGaussian`]: noise ∝ exp(−(|x|/s)^N) of degree 1 ≤ N ≤ 256, calibrated by the Rao distance
//!   (corrected parametrisation, docs/math.md §4) and always reported with a standard guarantee beside it.
//!
//! Each mechanism lists every guarantee it satisfies ([`ScalarLaplace::guarantees`] …), never only Rao's
//! number. Guarantee values are rounded up: single quotients and products by an exact fma residual test
//! ([`crate::numerics::rounding`]: ε = Δ/b is the smallest double ≥ the real quotient), numerical values
//! (special functions, root finding, quadrature) by the margins stated where they are computed.
//!
//! **Floating point.** [`ScalarLaplace`], [`Gaussian`] and [`GeneralizedGaussian`] releases are float-safe at
//! no cost: the exact cell of x + L (`docs/proofs/float_safety.md` §8), x + σZ (§8b, Karney's exact normal
//! sampler), respectively x + X (§8c, rejection from a uniform body and an exponential tail), on a public grid
//! of spacing 2^(⌊log₂ scale⌋ − 20), drawn with integer arithmetic on uniform bits, so every guarantee holds
//! exactly.

pub mod bounded;
pub mod gaussian;
pub mod generalized_gaussian;
pub mod laplace;

pub use bounded::BoundedLaplace;
pub use gaussian::Gaussian;
pub use generalized_gaussian::{GeneralizedGaussian, generalized_gaussian_delta, generalized_gaussian_epsilon};
pub use laplace::ScalarLaplace;

/// The δ at which mechanisms without a natural δ report their (ε, δ) guarantee unless told otherwise.
pub const DEFAULT_STANDARD_DELTA: f64 = 1e-6;
