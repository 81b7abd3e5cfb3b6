//! The names of the audit targets, read once: the mechanisms as the command line names them, and the negative
//! controls (`control:…`), which the auditor must flag.

use super::AuditSpace;

/// A mechanism or negative control the auditor can run, as named by the user (`laplace`, `control:unsnapped`,
/// `control:vmf-x2`). Which names apply on which space is [`AuditName::on`]; the builders of each space say
/// why a name does not apply there.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum AuditName {
    /// `laplace`: the SO(3) Laplace, or the float-safe scalar Laplace on the real line.
    Laplace,
    /// `bingham` on SO(3).
    Bingham,
    /// `riemannian-laplace` on SO(3), spheres and spd:K.
    RiemannianLaplace,
    /// `vmf` on spheres.
    Vmf,
    /// `purkayastha` on spheres.
    Purkayastha,
    /// `planar-laplace` (the tangent-plane Laplace) on spheres.
    PlanarLaplace,
    /// `wrapped-laplace` on the circle.
    WrappedLaplace,
    /// `uniform` on spheres: a release that ignores its input.
    Uniform,
    /// `log-euclidean-laplace` on spd:K.
    LogEuclideanLaplace,
    /// `gaussian` (analytic calibration) on the real line.
    Gaussian,
    /// `generalized-gaussian` on the real line.
    GeneralizedGaussian,
    /// `riemannian-gaussian-mean`: the Gaussian Fréchet mean's noise on spheres.
    RiemannianGaussianMean,
    /// `log-euclidean-gaussian-mean` on spd:K.
    LogEuclideanGaussianMean,
    /// `affine-gaussian-mean` on spd:K, K ≤ 3.
    AffineGaussianMean,
    /// `control:bingham-4eps`: Bingham claimed at ε, sampled at 4ε.
    Bingham4Eps,
    /// `control:laplace-no-sin2`: the SO(3) Laplace without its Haar factor.
    LaplaceNoSin2,
    /// `control:truncated-tail`: the SO(3) Laplace with its tail cut off.
    TruncatedTail,
    /// `control:paper-naive`: the seed paper's sampler as written.
    PaperNaive,
    /// `control:unsnapped`: a release without its grid snap.
    Unsnapped,
    /// `control:vmf-2eps`: VMF claimed at ε, sampled at 2ε.
    Vmf2Eps,
    /// `control:gaussian-half-sigma`: the real Gaussian sampled at σ/2.
    GaussianHalfSigma,
    /// `control:gaussian-mean-half-sigma`: a Gaussian mean's noise (spheres, log-Euclidean spd:K) at σ/2.
    GaussianMeanHalfSigma,
    /// `control:affine-gaussian-mean-half-sigma`: the affine Gaussian mean's noise at σ/2.
    AffineGaussianMeanHalfSigma,
    /// `control:NAME-xC`: NAME claimed at ε and sampled at C·ε.
    Miscalibrated {
        /// The mechanism miscalibrated.
        base: Calibrated,
        /// C.
        factor: f64,
    },
}

/// The mechanisms that can be audited miscalibrated (`control:NAME-xC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calibrated {
    /// `laplace` on SO(3).
    Laplace,
    /// `bingham` on SO(3).
    Bingham,
    /// `vmf` on spheres.
    Vmf,
    /// `purkayastha` on spheres.
    Purkayastha,
}

/// Every name but the miscalibrated ones, with its spelling.
const SPELLINGS: [(AuditName, &str); 23] = [
    (AuditName::Laplace, "laplace"),
    (AuditName::Bingham, "bingham"),
    (AuditName::RiemannianLaplace, "riemannian-laplace"),
    (AuditName::Vmf, "vmf"),
    (AuditName::Purkayastha, "purkayastha"),
    (AuditName::PlanarLaplace, "planar-laplace"),
    (AuditName::WrappedLaplace, "wrapped-laplace"),
    (AuditName::Uniform, "uniform"),
    (AuditName::LogEuclideanLaplace, "log-euclidean-laplace"),
    (AuditName::Gaussian, "gaussian"),
    (AuditName::GeneralizedGaussian, "generalized-gaussian"),
    (AuditName::RiemannianGaussianMean, "riemannian-gaussian-mean"),
    (AuditName::LogEuclideanGaussianMean, "log-euclidean-gaussian-mean"),
    (AuditName::AffineGaussianMean, "affine-gaussian-mean"),
    (AuditName::Bingham4Eps, "control:bingham-4eps"),
    (AuditName::LaplaceNoSin2, "control:laplace-no-sin2"),
    (AuditName::TruncatedTail, "control:truncated-tail"),
    (AuditName::PaperNaive, "control:paper-naive"),
    (AuditName::Unsnapped, "control:unsnapped"),
    (AuditName::Vmf2Eps, "control:vmf-2eps"),
    (AuditName::GaussianHalfSigma, "control:gaussian-half-sigma"),
    (AuditName::GaussianMeanHalfSigma, "control:gaussian-mean-half-sigma"),
    (AuditName::AffineGaussianMeanHalfSigma, "control:affine-gaussian-mean-half-sigma"),
];

impl Calibrated {
    fn as_str(self) -> &'static str {
        match self {
            Calibrated::Laplace => "laplace",
            Calibrated::Bingham => "bingham",
            Calibrated::Vmf => "vmf",
            Calibrated::Purkayastha => "purkayastha",
        }
    }
}

impl AuditName {
    /// The names listed on `space`, in the order the command line lists them (the miscalibrated controls,
    /// `control:NAME-xC`, are not listed).
    pub fn on(space: AuditSpace) -> Vec<AuditName> {
        use AuditName::*;
        match space {
            AuditSpace::So3 => vec![
                Laplace,
                Bingham,
                RiemannianLaplace,
                Bingham4Eps,
                LaplaceNoSin2,
                TruncatedTail,
                PaperNaive,
                Unsnapped,
            ],
            AuditSpace::Sphere { dim } => {
                let mut v = vec![Vmf, Purkayastha, PlanarLaplace, Uniform, RiemannianLaplace, Vmf2Eps, Unsnapped];
                v.extend([RiemannianGaussianMean, GaussianMeanHalfSigma]);
                if dim == 2 {
                    v.insert(2, WrappedLaplace);
                }
                v
            }
            AuditSpace::Spd { .. } => vec![
                RiemannianLaplace,
                LogEuclideanLaplace,
                LogEuclideanGaussianMean,
                GaussianMeanHalfSigma,
                AffineGaussianMean,
                AffineGaussianMeanHalfSigma,
            ],
            AuditSpace::Real => vec![Laplace, Gaussian, GeneralizedGaussian, GaussianHalfSigma, Unsnapped],
        }
    }

    /// Whether the name takes a δ (an (ε, δ) claim) on `space`: the Gaussians of the real line, and the
    /// Gaussian means' noise of spheres and spd:K, with their controls.
    pub fn takes_delta(self, space: AuditSpace) -> bool {
        use AuditName::*;
        match space {
            AuditSpace::Real => matches!(self, Gaussian | GeneralizedGaussian | GaussianHalfSigma),
            AuditSpace::Sphere { .. } => matches!(self, RiemannianGaussianMean | GaussianMeanHalfSigma),
            AuditSpace::Spd { .. } => matches!(
                self,
                LogEuclideanGaussianMean | GaussianMeanHalfSigma | AffineGaussianMean | AffineGaussianMeanHalfSigma
            ),
            AuditSpace::So3 => false,
        }
    }

    /// The name as the command line spells it (`None` for a miscalibration, whose factor is the user's).
    pub fn spelling(self) -> Option<&'static str> {
        SPELLINGS.iter().find(|(n, _)| *n == self).map(|(_, s)| *s)
    }

    /// The names that take a δ on `space`, for messages.
    pub(super) fn with_delta(space: AuditSpace) -> Vec<String> {
        AuditName::on(space).into_iter().filter(|n| n.takes_delta(space)).map(|n| n.to_string()).collect()
    }
}

impl std::str::FromStr for AuditName {
    type Err = ();

    /// A name as the command line spells it, or `control:NAME-xC` with NAME one of laplace, bingham, vmf,
    /// purkayastha and C a finite factor > 0.
    fn from_str(s: &str) -> Result<Self, ()> {
        if let Some((name, _)) = SPELLINGS.iter().find(|(_, spelling)| *spelling == s) {
            return Ok(*name);
        }
        let (base, factor) = s.strip_prefix("control:").and_then(|rest| rest.rsplit_once("-x")).ok_or(())?;
        let factor: f64 = factor.parse().map_err(|_| ())?;
        let base = [Calibrated::Laplace, Calibrated::Bingham, Calibrated::Vmf, Calibrated::Purkayastha]
            .into_iter()
            .find(|b| b.as_str() == base)
            .ok_or(())?;
        (factor.is_finite() && factor > 0.0).then_some(AuditName::Miscalibrated { base, factor }).ok_or(())
    }
}

impl std::fmt::Display for AuditName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditName::Miscalibrated { base, factor } => write!(f, "control:{}-x{factor}", base.as_str()),
            name => f.write_str(name.spelling().unwrap_or("?")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_reads_back_and_miscalibrations_parse() {
        for (name, spelling) in SPELLINGS {
            assert_eq!(spelling.parse::<AuditName>(), Ok(name));
            assert_eq!(name.to_string(), spelling);
        }
        assert_eq!(
            "control:vmf-x2".parse::<AuditName>(),
            Ok(AuditName::Miscalibrated { base: Calibrated::Vmf, factor: 2.0 })
        );
        for bad in ["control:gaussian-x2", "control:vmf-x0", "control:vmf-xinf", "control:vmf-xNaN", "vmf-x2", "lapace"]
        {
            assert_eq!(bad.parse::<AuditName>(), Err(()), "{bad}");
        }
    }
}
