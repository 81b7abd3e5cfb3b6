//! The library's error type. Every constructor and every parser of user data returns
//! [`Fallible`]; nothing in this crate panics on user-supplied values.

use crate::numerics::format::short;
use thiserror::Error;

/// The smallest ε (per unit of a mechanism's metric) the directional and SO(3) mechanisms accept: the lower end
/// of the range their samplers are proven exact and tested for (README, `tests/so3_samplers.rs`,
/// `tests/sphere_samplers.rs`).
pub const MIN_EPSILON: f64 = 1e-6;

/// The largest ε the directional and SO(3) mechanisms accept (the upper end of that range). Beyond it the
/// rejection samplers are untested, and far beyond it (Purkayastha at 1e100, Bingham at 1e160) they never
/// accept.
pub const MAX_EPSILON: f64 = 1e6;

// Declares [`Param`] and its spellings side by side, so that a variant cannot lose its name.
macro_rules! params {
    ($($(#[doc = $doc:literal])* $variant:ident => $text:literal,)*) => {
        /// Which parameter an [`Error::InvalidParameter`] rejects, as data, so that a caller picks its hint by
        /// variant instead of by matching text. [`Param::as_str`] (and `Display`) is the name the user knows, the
        /// one the error's message shows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Param {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Param {
            /// Every parameter, in declaration order.
            pub const ALL: &'static [Param] = &[$(Param::$variant,)*];

            /// The parameter's name as messages spell it (`epsilon`, `level`, `cell size (degrees)`, …).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Param::$variant => $text,)*
                }
            }
        }
    };
}

params! {
    /// `epsilon`: A privacy budget ε (per unit of a metric for metric DP).
    Epsilon => "epsilon",
    /// `delta`: A privacy parameter δ, or a δ to convert at.
    Delta => "delta",
    /// `standard delta`: The δ of a standard (ε, δ)-DP target.
    StandardDelta => "standard delta",
    /// `delta slack`: The slack δ′ an accounting step may add.
    DeltaSlack => "delta slack",
    /// `additive epsilon`: An additive ε₀ (the float-safe rounding's share of a budget).
    AdditiveEpsilon => "additive epsilon",
    /// `level`: A probability level (of an error bound, a confidence set, …).
    Level => "level",
    /// `event level`: The probability of an event a guarantee conditions on.
    EventLevel => "event level",
    /// `alpha`: A test's significance level α, or a Rényi order α.
    Alpha => "alpha",
    /// `sigma`: A Gaussian or Laplace noise scale σ.
    Sigma => "sigma",
    /// `mu`: A Gaussian-DP parameter μ.
    Mu => "mu",
    /// `scale`: A noise scale b.
    Scale => "scale",
    /// `sensitivity`: A query's sensitivity Δ.
    Sensitivity => "sensitivity",
    /// `concentration`: A sampler's concentration κ.
    Concentration => "concentration",
    /// `rate`: A rate λ.
    Rate => "rate",
    /// `order`: The order p of a generalised Gaussian, or a Rényi order.
    Order => "order",
    /// `theta`: An angle θ.
    Theta => "theta",
    /// `angle`: An angle.
    Angle => "angle",
    /// `radius`: The radius r of a public ball (or of an error bound).
    Radius => "radius",
    /// `protection radius`: The distance within which a release protects a point.
    ProtectionRadius => "protection radius",
    /// `truncation radius`: The radius a sampler truncates at.
    TruncationRadius => "truncation radius",
    /// `diameter`: The diameter of a data domain.
    Diameter => "diameter",
    /// `pair distance`: The distance between the two inputs of an audit pair.
    PairDistance => "pair distance",
    /// `dimension`: The dimension d of a sphere or space.
    Dimension => "dimension",
    /// `ambient dimension`: The dimension of the space a manifold is embedded in.
    AmbientDimension => "ambient dimension",
    /// `k`: The size k of k×k SPD matrices.
    K => "k",
    /// `n`: A number of data points n.
    N => "n",
    /// `number of points`: A number of data points.
    NumberOfPoints => "number of points",
    /// `number of guarantees`: How many guarantees are composed.
    NumberOfGuarantees => "number of guarantees",
    /// `samples`: A number of samples (an audit's).
    Samples => "samples",
    /// `pilot samples`: A number of pilot samples (an audit's).
    PilotSamples => "pilot samples",
    /// `goodness-of-fit samples`: A number of samples for a goodness-of-fit check.
    GoodnessOfFitSamples => "goodness-of-fit samples",
    /// `llr resolution`: The resolution of a log-likelihood-ratio grid.
    LlrResolution => "llr resolution",
    /// `bins`: A number of histogram bins.
    Bins => "bins",
    /// `cell size (degrees)`: A grid's cell size, in degrees.
    CellSizeDegrees => "cell size (degrees)",
    /// `grid`: The step of an output grid.
    Grid => "grid",
    /// `output step`: The step of the public output grid.
    OutputStep => "output step",
    /// `tail mass`: The probability mass left in a distribution's tail.
    TailMass => "tail mass",
    /// `pure epsilon`: A pure-DP ε bounding a release's Rényi divergences.
    PureEpsilon => "pure epsilon",
    /// `kappa`: A concentration κ (of a von Mises–Fisher or Bingham law).
    Kappa => "kappa",
    /// `rho`: A zCDP parameter ρ.
    Rho => "rho",
    /// `shift`: A shift between two neighbouring outputs.
    Shift => "shift",
    /// `tolerance`: A numerical tolerance.
    Tolerance => "tolerance",
    /// `period`: The period of a periodic quantity.
    Period => "period",
    /// `end`: The end of an interval.
    End => "end",
    /// `t_max`: The largest time of a grid.
    TMax => "t_max",
    /// `columns`: A number of value columns.
    Columns => "columns",
    /// `bounds`: The public bounds [lo, hi] of a bounded value.
    Bounds => "bounds",
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Result type used throughout the library.
pub type Fallible<T> = Result<T, Error>;

/// Everything that can go wrong when validating parameters or data.
///
/// Variants that concern one component of an input record carry its index (`component`), so the
/// caller, which knows the column names, can name the offending column.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum Error {
    /// A mechanism or analysis parameter is out of its domain (ε ≤ 0, NaN, ∞, p ∉ (0, 1), …).
    #[error("invalid {name} = {}: {reason}", short(*.value))]
    InvalidParameter {
        /// The parameter, whose [`Param::as_str`] is the name the user knows (`epsilon`, `level`, …).
        name: Param,
        /// The rejected value.
        value: f64,
        /// What the valid range is.
        reason: &'static str,
    },
    /// Two guarantees cannot be composed or compared (different notions, or metric DP in different metrics or
    /// units).
    #[error("cannot combine {left} with {right}: {why}")]
    Incompatible {
        /// The first guarantee, as text.
        left: String,
        /// The second guarantee, as text.
        right: String,
        /// Why, and what to do instead.
        why: &'static str,
    },
    /// A conversion between privacy notions that does not hold (or needs a parameter that was not given).
    #[error("cannot convert {from} to {to}: {why}")]
    Inconvertible {
        /// The guarantee to convert, as text.
        from: String,
        /// The notion asked for.
        to: &'static str,
        /// Why not, and what holds instead.
        why: &'static str,
    },
    /// A component of a data record is NaN or infinite.
    #[error("component {component} is not a finite number ({value})")]
    NonFinite {
        /// Zero-based index of the component within the record.
        component: usize,
        /// The offending value.
        value: f64,
    },
    /// A quaternion whose norm is further from 1 than the tolerance allows.
    #[error(
        "quaternion norm {} is not 1 within tolerance {} (it is renormalised only within the tolerance); \
         check the column order and that the values are a rotation",
        short(*.norm),
        short(*.tolerance)
    )]
    NotUnit {
        /// Euclidean norm of the input quaternion.
        norm: f64,
        /// The tolerance in force on |norm − 1|.
        tolerance: f64,
    },
    /// A vector meant to be a point of a sphere whose norm is further from 1 than the tolerance allows.
    #[error("vector norm {} is not 1 within tolerance {}; a direction must be a unit vector", short(*.norm), short(*.tolerance))]
    NotUnitVector {
        /// Euclidean norm of the input vector.
        norm: f64,
        /// The tolerance in force on |norm − 1|.
        tolerance: f64,
    },
    /// A latitude outside [−90°, 90°].
    #[error("latitude {}° is outside [−90°, 90°]; are latitude and longitude swapped?", short(*.0))]
    LatitudeOutOfRange(f64),
    /// A periodic value (time of day, day of week…) outside its period.
    #[error("{} is outside [0, {}]", short(*.value), short(*.period))]
    OutOfPeriod {
        /// The value.
        value: f64,
        /// The period (24 for hours of a day…).
        period: f64,
    },
    /// A 3×3 matrix that is not orthonormal within tolerance.
    #[error("matrix is not orthonormal: max |RᵀR − I| = {deviation:e} exceeds tolerance {tolerance:e}")]
    NotOrthonormal {
        /// Largest absolute entry of RᵀR − I.
        deviation: f64,
        /// The tolerance in force.
        tolerance: f64,
    },
    /// An orthonormal matrix with determinant −1 (a reflection, not a rotation).
    #[error("matrix has determinant {det} (a reflection); a rotation needs det = +1")]
    NotProperRotation {
        /// Its determinant.
        det: f64,
    },
    /// An Euler angle sequence that is not one of the 12 valid sequences.
    #[error(
        "invalid Euler sequence {0:?}: use three letters from x,y,z with no two consecutive equal, all lowercase \
         (extrinsic, e.g. xyz) or all uppercase (intrinsic, e.g. ZYX)"
    )]
    BadEulerSequence(String),
    /// A rotation representation spelling that is not known.
    #[error("unknown rotation format {0:?}: use quat-wxyz, quat-xyzw, matrix, rotvec or euler:SEQ[:deg|:rad]")]
    UnknownRepresentation(String),
    /// An Euler angle beyond any sane range (|angle| > 4π rad).
    #[error("Euler angle component {component} = {} rad is outside [−4π, 4π]; are the units right?", short(*.value))]
    AngleOutOfRange {
        /// Zero-based index of the angle.
        component: usize,
        /// The value in radians.
        value: f64,
    },
    /// A record has the wrong number of components for its representation.
    #[error("expected {expected} components, got {got}")]
    WrongLength {
        /// Components required.
        expected: usize,
        /// Components given.
        got: usize,
    },
    /// A matrix meant to be symmetric positive definite that is not symmetric within tolerance.
    #[error(
        "matrix is not symmetric: max |A − Aᵀ| = {deviation:e} exceeds tolerance {tolerance:e} (relative to the \
         largest entry); give all k·k entries row by row"
    )]
    NotSymmetric {
        /// Largest |a_ij − a_ji| divided by the largest |a_ij|.
        deviation: f64,
        /// The tolerance in force.
        tolerance: f64,
    },
    /// A symmetric matrix that is not positive definite (a covariance matrix must have positive eigenvalues).
    #[error(
        "matrix is not positive definite: smallest eigenvalue {min_eigenvalue:e}; a covariance matrix needs all > 0"
    )]
    NotPositiveDefinite {
        /// Its smallest eigenvalue.
        min_eigenvalue: f64,
    },
    /// A positive definite matrix whose eigenvalues span more than double precision can work with: beyond the
    /// supported condition number its logarithm, and so its distance to anything, is not accurate.
    #[error(
        "matrix is too ill-conditioned: eigenvalues from {} to {} (condition number {}), at most {} is supported; \
         rescale the units of the variables so that their variances are comparable",
        short(*.min_eigenvalue),
        short(*.max_eigenvalue),
        short(*.max_eigenvalue / *.min_eigenvalue),
        short(*.limit)
    )]
    IllConditioned {
        /// Its smallest eigenvalue (> 0).
        min_eigenvalue: f64,
        /// Its largest eigenvalue.
        max_eigenvalue: f64,
        /// The largest condition number accepted.
        limit: f64,
    },
    /// A data point outside the ball B_r(m0) that a Fréchet-mean release assumes all data lie in.
    #[error(
        "point {index} is at distance {} from the centre, outside the radius {}; every point must \
         lie within the public radius (choose a larger radius or a better centre, or drop the point)",
        short(*.distance),
        short(*.radius)
    )]
    OutsideBall {
        /// Zero-based index of the point in the data set.
        index: usize,
        /// Its distance from the centre.
        distance: f64,
        /// The radius r.
        radius: f64,
    },
    /// An iterative computation that did not reach its stated tolerance.
    #[error("no convergence after {iterations} iterations: gradient norm {gradient_norm:e} > tolerance {tolerance:e}")]
    NotConverged {
        /// Iterations run.
        iterations: usize,
        /// The last gradient norm.
        gradient_norm: f64,
        /// The tolerance asked for.
        tolerance: f64,
    },
    /// The operating system could not provide entropy to seed the release generator.
    #[error("could not seed the random generator from the operating system: {0}")]
    Entropy(String),
    /// A target that no parameter value meets: a radius at a level that every ε (or no ε in range) reaches, an
    /// output step outside what the float-safe grid allows.
    #[error("{0}")]
    Unattainable(String),
    /// A combination that does not exist: a mechanism of another space, an option of another mechanism, a
    /// mechanism that does not apply to a manifold or to an audit.
    #[error("{0}")]
    NotApplicable(String),
    /// A request that lacks something it needs: an audit without the claimed ε or without input pairs.
    #[error("{0}")]
    Incomplete(String),
    /// Data for which the statistic asked for does not exist: points on spheres of different dimensions, or
    /// points that balance out so that their mean direction is undefined.
    #[error("{0}")]
    Degenerate(String),
    /// A valid request beyond what the numerics can serve: no finite double ε, σ or scale certifies it (δ
    /// below the smallest double, a privacy profile that overflows), or an exact sampler that would accept too
    /// few of its proposals to finish.
    #[error("{0}")]
    NumericalLimit(String),
    /// A draw that double precision cannot represent as a valid point: an SPD release whose condition number
    /// exceeds ~2⁵³ (its rounded entries are not positive definite) or whose entries overflow. The exact law puts
    /// this mass there, so the draw is reported, never silently redrawn (that would change the distribution).
    #[error(
        "the noisy release is not representable in double precision ({0}); nothing was released. Use a smaller \
         noise scale (larger epsilon or n) or condition on the ball"
    )]
    Unrepresentable(String),
}

impl Error {
    /// Whether the caller's input or parameters caused the error (a front end's "bad input"), as opposed to
    /// a failure of the machine ([`Error::Entropy`]) or of a computation ([`Error::NotConverged`]). Refusals of
    /// a well-formed request ([`Error::Unattainable`], [`Error::NotApplicable`], [`Error::NumericalLimit`])
    /// count as bad input: the caller changes the request to get past them.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, Error::Entropy(_) | Error::NotConverged { .. })
    }
}

/// Checks that a mechanism budget is a finite, strictly positive number.
pub(crate) fn check_positive(name: Param, value: f64) -> Fallible<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(Error::InvalidParameter { name, value, reason: "must be a finite number > 0" })
    }
}

/// Checks that a mechanism's ε (per unit of its metric) lies in [`MIN_EPSILON`,
/// `MAX_EPSILON`], the range its sampler is proven exact and tested for.
pub(crate) fn check_epsilon_range(name: Param, value: f64) -> Fallible<f64> {
    let value = check_positive(name, value)?;
    if (MIN_EPSILON..=MAX_EPSILON).contains(&value) {
        Ok(value)
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            reason: "must lie in [1e-6, 1e6], the range the samplers are proven exact and tested for",
        })
    }
}

/// Checks that a sampler's concentration κ is at most `max` (where its exactness is tested; beyond it the
/// rejection loops lose their acceptance guarantee and may not terminate in practice).
pub(crate) fn check_concentration(value: f64, max: f64, reason: &'static str) -> Fallible<f64> {
    let value = check_positive(Param::Concentration, value)?;
    if value <= max { Ok(value) } else { Err(Error::InvalidParameter { name: Param::Concentration, value, reason }) }
}

/// Checks that a probability level is strictly inside (0, 1).
pub(crate) fn check_level(name: Param, value: f64) -> Fallible<f64> {
    if value > 0.0 && value < 1.0 {
        Ok(value)
    } else {
        Err(Error::InvalidParameter { name, value, reason: "must be strictly between 0 and 1" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parameter keeps the name the messages showed when the field was a string, and no two share one
    /// (a caller that tells them apart by variant must not see two spelled alike).
    #[test]
    fn each_param_keeps_its_spelling_and_no_two_share_one() {
        let spellings = [
            (Param::Epsilon, "epsilon"),
            (Param::Delta, "delta"),
            (Param::StandardDelta, "standard delta"),
            (Param::DeltaSlack, "delta slack"),
            (Param::AdditiveEpsilon, "additive epsilon"),
            (Param::Level, "level"),
            (Param::EventLevel, "event level"),
            (Param::Alpha, "alpha"),
            (Param::Sigma, "sigma"),
            (Param::Mu, "mu"),
            (Param::Scale, "scale"),
            (Param::Sensitivity, "sensitivity"),
            (Param::Concentration, "concentration"),
            (Param::Rate, "rate"),
            (Param::Order, "order"),
            (Param::Theta, "theta"),
            (Param::Angle, "angle"),
            (Param::Radius, "radius"),
            (Param::ProtectionRadius, "protection radius"),
            (Param::TruncationRadius, "truncation radius"),
            (Param::Diameter, "diameter"),
            (Param::PairDistance, "pair distance"),
            (Param::Dimension, "dimension"),
            (Param::AmbientDimension, "ambient dimension"),
            (Param::K, "k"),
            (Param::N, "n"),
            (Param::NumberOfPoints, "number of points"),
            (Param::NumberOfGuarantees, "number of guarantees"),
            (Param::Samples, "samples"),
            (Param::PilotSamples, "pilot samples"),
            (Param::GoodnessOfFitSamples, "goodness-of-fit samples"),
            (Param::LlrResolution, "llr resolution"),
            (Param::Bins, "bins"),
            (Param::CellSizeDegrees, "cell size (degrees)"),
            (Param::Grid, "grid"),
            (Param::OutputStep, "output step"),
            (Param::TailMass, "tail mass"),
            (Param::Tolerance, "tolerance"),
            (Param::Period, "period"),
            (Param::End, "end"),
            (Param::TMax, "t_max"),
            (Param::Columns, "columns"),
            (Param::Bounds, "bounds"),
            (Param::PureEpsilon, "pure epsilon"),
            (Param::Kappa, "kappa"),
            (Param::Rho, "rho"),
            (Param::Shift, "shift"),
        ];
        assert_eq!(spellings.len(), Param::ALL.len(), "a parameter without its old spelling in this table");
        for (param, text) in spellings {
            assert_eq!(param.as_str(), text);
            assert_eq!(param.to_string(), text);
        }
        let mut seen = std::collections::HashSet::new();
        for p in Param::ALL {
            assert!(seen.insert(p.as_str()), "{} is spelled twice", p.as_str());
        }
    }

    /// The message reads as it did with a string name.
    #[test]
    fn invalid_parameter_message_is_unchanged() {
        let e = Error::InvalidParameter {
            name: Param::CellSizeDegrees,
            value: -0.5,
            reason: "must be a finite number > 0",
        };
        assert_eq!(e.to_string(), "invalid cell size (degrees) = -0.5: must be a finite number > 0");
        assert_eq!(
            check_level(Param::Level, 1.0).unwrap_err().to_string(),
            "invalid level = 1: must be strictly between 0 and 1"
        );
    }
}
