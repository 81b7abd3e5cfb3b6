//! The angle θ = d∠(X, μ) of the rotationally symmetric laws on S^{n−1}: density ∝ sin^{n−2}θ · k(θ) on
//! [0, π] with kernel k(θ) = e^{κ(cos θ − 1)} (von Mises–Fisher) or e^{−κθ} (Purkayastha), evaluated in log
//! space (so that large n and κ neither overflow nor underflow) and integrated by adaptive Gauss–Legendre
//! quadrature on panels that resolve the peak (at its mode, on its width, and geometrically towards 0) and
//! the bulk (scale π/64).

use crate::analysis::angular::AngularLaw;
use crate::analysis::quadrature::integrate;
use crate::error::Param;
use crate::error::{Error, Fallible, check_positive};
use std::f64::consts::PI;

/// The largest ambient dimension n of a sphere S^{n−1}: the samplers are tested up to n = 10 000
/// (`tests/sphere_samplers.rs`), and a bound keeps a mistyped `sphere:N` from allocating terabytes.
pub const MAX_SPHERE_DIM: usize = 10_000;

/// Checks that a sphere S^{dim−1} ⊂ R^dim has 2 ≤ dim ≤ [`MAX_SPHERE_DIM`] (the circle is the smallest).
pub(crate) fn check_dim(dim: usize) -> Fallible<usize> {
    if dim < 2 {
        Err(Error::WrongLength { expected: 2, got: dim })
    } else if dim > MAX_SPHERE_DIM {
        Err(Error::InvalidParameter {
            name: Param::Dimension,
            value: dim as f64,
            reason: "a sphere's ambient dimension must be at most 10000, where the samplers are tested",
        })
    } else {
        Ok(dim)
    }
}

/// Relative accuracy asked of the quadrature. The log-space density carries a rounding error of about
/// 1e-16·|k ln sin θ| (up to ~1e-12 at n = 10 000), so tighter tolerances could not be met.
const REL_TOL: f64 = 1e-11;

/// The kernel of a rotationally symmetric law on a sphere, as a function of the angle to its centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SphereKernel {
    /// von Mises–Fisher: e^{κ cos θ}.
    VonMisesFisher,
    /// Purkayastha: e^{−κθ}.
    Purkayastha,
}

/// The law of the VMF angle on S^{n−1}.
pub type VmfAngle = SphereAngle;

/// The law of the angle to the centre of a VMF or Purkayastha distribution on S^{n−1}.
#[derive(Debug, Clone, PartialEq)]
pub struct SphereAngle {
    kernel: SphereKernel,
    dim: usize,
    kappa: f64,
    /// ln of the density's maximum, subtracted before exponentiating.
    log_peak: f64,
    edges: Vec<f64>,
    normaliser: f64,
}

impl SphereAngle {
    /// The VMF angle law on S^{dim−1} (dim ≥ 2) at concentration `kappa` (finite, > 0).
    pub fn new(dim: usize, kappa: f64) -> Fallible<Self> {
        Self::with_kernel(SphereKernel::VonMisesFisher, dim, kappa)
    }

    /// The Purkayastha angle law on S^{dim−1} (dim ≥ 2): density ∝ e^{−κθ} sin^{dim−2}θ.
    pub fn purkayastha(dim: usize, kappa: f64) -> Fallible<Self> {
        Self::with_kernel(SphereKernel::Purkayastha, dim, kappa)
    }

    /// The angle law of `kernel` on S^{dim−1} (dim ≥ 2) at concentration `kappa` (finite, > 0).
    pub fn with_kernel(kernel: SphereKernel, dim: usize, kappa: f64) -> Fallible<Self> {
        let kappa = check_positive(Param::Concentration, kappa)?;
        let dim = crate::analysis::sphere_angle::check_dim(dim)?;
        let k = (dim - 2) as f64;
        // Mode of k ln sin θ − 2κ sin²(θ/2): k cos θ = κ sin²θ, i.e. cos θ = 2κ/(k + √(k² + 4κ²)) and
        // sin θ = √(k cos θ / κ) (the sine keeps accuracy when θ is small).
        let (mode, width) = match kernel {
            SphereKernel::VonMisesFisher => {
                let cos_mode = 2.0 * kappa / (k + (k * k + 4.0 * kappa * kappa).sqrt());
                // Width of the peak: 1/√(−h'') ~ 1/√(κ + k).
                ((k * cos_mode / kappa).sqrt().min(1.0).asin(), 1.0 / (kappa + k).sqrt())
            }
            // k cot θ = κ; −h'' = k/sin²θ.
            SphereKernel::Purkayastha => {
                let mode = k.atan2(kappa);
                (mode, if k > 0.0 { mode.sin() / k.sqrt() } else { 1.0 / kappa })
            }
        };
        let scale = match kernel {
            SphereKernel::VonMisesFisher => (1.0 / kappa.sqrt()).min(1.0),
            SphereKernel::Purkayastha => (1.0 / kappa).min(1.0),
        };
        let mut law = SphereAngle { kernel, dim, kappa, log_peak: 0.0, edges: Vec::new(), normaliser: 1.0 };
        law.log_peak = law.log_density(mode.max(1e-300));
        let mut edges: Vec<f64> = (0..=64).map(|i| PI * i as f64 / 64.0).collect();
        let mut e = scale;
        while e > 1e-9 * scale && edges.len() < 400 {
            edges.push(e);
            e /= 2.0;
        }
        // And geometrically up from the scale to the bulk's first panel: at κ ≥ 10⁶ the whole mass lies in
        // [0, π/64], where a single panel from the peak's last edge on lost 2 % of the mean.
        let mut e = 2.0 * scale;
        while e < PI / 64.0 {
            edges.push(e);
            e *= 2.0;
        }
        for j in -12..=12 {
            edges.push(mode + 0.5 * j as f64 * width);
        }
        edges.retain(|x| (0.0..=PI).contains(x));
        edges.sort_by(f64::total_cmp);
        edges.dedup();
        law.edges = edges;
        law.normaliser = law.integral(PI);
        Ok(law)
    }

    fn log_density(&self, theta: f64) -> f64 {
        let k = (self.dim - 2) as f64;
        let s = (0.5 * theta).sin();
        let sin_part = if k == 0.0 { 0.0 } else { k * theta.sin().ln() };
        match self.kernel {
            SphereKernel::VonMisesFisher => sin_part - 2.0 * self.kappa * s * s,
            SphereKernel::Purkayastha => sin_part - self.kappa * theta,
        }
    }

    fn log_density_kernel_only(&self, theta: f64) -> f64 {
        match self.kernel {
            SphereKernel::VonMisesFisher => -2.0 * self.kappa * (0.5 * theta).sin().powi(2),
            SphereKernel::Purkayastha => -self.kappa * theta,
        }
    }

    fn density(&self, theta: f64) -> f64 {
        if theta <= 0.0 || theta >= PI {
            // Only on the circle (no sine factor) is the density non-zero at the ends.
            return if self.dim == 2 {
                (self.log_density_kernel_only(theta.clamp(0.0, PI)) - self.log_peak).exp()
            } else {
                0.0
            };
        }
        (self.log_density(theta) - self.log_peak).exp()
    }

    fn integral(&self, rho: f64) -> f64 {
        let f = |t: f64| self.density(t);
        // One Gauss–Legendre rule per panel (an infinite tolerance stops after the first level).
        let rough: f64 = self.edges.windows(2).map(|w| integrate(&f, w[0], w[1], f64::INFINITY).abs()).sum();
        let tol = (REL_TOL * rough.abs()).max(f64::MIN_POSITIVE);
        let mut total = 0.0;
        for w in self.edges.windows(2) {
            if w[0] >= rho {
                break;
            }
            total += integrate(&f, w[0], w[1].min(rho), tol);
        }
        total
    }
}

impl AngularLaw for SphereAngle {
    fn pdf(&self, theta: f64) -> f64 {
        if (0.0..=PI).contains(&theta) { self.density(theta) / self.normaliser } else { 0.0 }
    }

    fn cdf(&self, rho: f64) -> f64 {
        if rho <= 0.0 {
            0.0
        } else if rho >= PI {
            1.0
        } else {
            (self.integral(rho) / self.normaliser).min(1.0)
        }
    }

    fn mean(&self) -> f64 {
        let f = |t: f64| t * self.density(t);
        let tol = REL_TOL * self.normaliser;
        self.edges.windows(2).map(|w| integrate(&f, w[0], w[1], tol)).sum::<f64>() / self.normaliser
    }

    fn cdf_sorted(&self, sorted: &[f64]) -> Vec<f64> {
        // Integrate piece by piece between consecutive points and panel edges.
        let f = |t: f64| self.density(t);
        // Each piece to REL_TOL of the whole: the accumulated error stays below n·REL_TOL, far under any KS
        // critical value.
        let tol = REL_TOL * self.normaliser;
        let mut out = Vec::with_capacity(sorted.len());
        let (mut acc, mut last, mut edge) = (0.0, 0.0, 0usize);
        for &x in sorted {
            let x = x.clamp(0.0, PI);
            while edge < self.edges.len() && self.edges[edge] < x {
                if self.edges[edge] > last {
                    acc += integrate(&f, last, self.edges[edge], tol);
                    last = self.edges[edge];
                }
                edge += 1;
            }
            if x > last {
                acc += integrate(&f, last, x, tol);
                last = x;
            }
            out.push((acc / self.normaliser).min(1.0));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_closed_forms_on_the_circle_and_the_sphere() {
        // S²: θ has density ∝ sin θ e^{κ cos θ}: F(ρ) = (1 − e^{−κ(1 − cos ρ)})/(1 − e^{−2κ}).
        for kappa in [1e-3, 0.5, 3.0, 100.0, 1e6] {
            let law = VmfAngle::new(3, kappa).unwrap();
            for rho in [1e-4, 0.01, 0.3, 1.0, 2.5f64] {
                let exact = -(-2.0 * kappa * (0.5 * rho).sin().powi(2)).exp_m1() / -(-2.0 * kappa).exp_m1();
                assert!((law.cdf(rho) - exact).abs() < 1e-11, "kappa {kappa} rho {rho}: {} vs {exact}", law.cdf(rho));
                let sorted = law.cdf_sorted(&[rho]);
                assert!((sorted[0] - exact).abs() < 1e-11);
            }
        }
        // S¹: θ = |von Mises angle|, P[θ ≤ π/2] = ∫₀^{π/2} e^{κ cos t} dt / ∫₀^π e^{κ cos t} dt; at κ → 0 this is ½.
        let law = VmfAngle::new(2, 1e-9).unwrap();
        assert!((law.cdf(PI / 2.0) - 0.5).abs() < 1e-8);
        // By symmetry of e^{κ cos t} about π/2 under κ → −κ: F_κ(π/2) + F_{−κ}(π/2) = 1; check against
        // I₀-free series at κ = 1: ∫₀^{π/2} e^{cos t} dt = 3.104379017855555, ∫₀^π e^{cos t} dt = π·I₀(1) = 3.977463260506422.
        let law = VmfAngle::new(2, 1.0).unwrap();
        assert!((law.cdf(PI / 2.0) - 3.104379017855555 / 3.977463260506422).abs() < 1e-12);
    }

    /// At κ ≥ 10⁶ the Purkayastha angle is Gamma(n − 1, κ) up to O(n³/κ²): the quadrature keeps its mean
    /// (a single panel past the peak lost 2 % of it at κ = 10⁶ until the geometric edges reached up to π/64).
    #[test]
    fn concentrated_purkayastha_means_match_the_planar_limit() {
        for dim in [2usize, 3, 4, 10] {
            for kappa in [1e6, 1e9, 1e14, 1e16] {
                let law = SphereAngle::purkayastha(dim, kappa).unwrap();
                let planar = (dim - 1) as f64 / kappa;
                assert!((law.mean() / planar - 1.0).abs() < 1e-8, "n {dim}, κ {kappa}: {} vs {planar}", law.mean());
            }
        }
    }
}
