//! The release of a converged mean: the checks before any data is read, the guarantee a ledger is charged, and
//! the noise (the Riemannian Laplace, or the Gaussian through [`GaussianRelease`]) in the table's own form.

use super::*;
use crate::Error;
use manifold_dp::Error as LibError;
use manifold_dp::manifold::So3;
use manifold_dp::manifold::ball::Outside;
use manifold_dp::mechanism::{
    AffineGaussianMean, Conditioning, GaussianFrechetMean, GaussianManifold, LaplaceManifold, LogEuclideanGaussianMean,
    PrivateFrechetMean, check_affine_gaussian_mean_k,
};
use manifold_dp::privacy::{Grid, Guarantee, StatedGuarantee};
use manifold_dp::registry::{Shown, Spelling};
use rand::CryptoRng;

impl MeanPlan {
    /// Whether a release over `n` rows at pure `epsilon` can be planned, without any data: builds the release
    /// [`MeanPlan::release`] would (noise, grid, rounding cost) and returns its refusal, if any. Front ends call
    /// it once the row count is known and before the Karcher iteration, so that a release refused
    /// for its parameters is refused at once.
    #[allow(clippy::clone_on_copy)]
    pub fn check(&self, n: u64, epsilon: f64, conditioning: Conditioning) -> Result<(), Error> {
        self.planned_rounding_cost(n, epsilon, conditioning).map(|_| ())
    }

    /// [`MeanPlan::check`], returning the planned release's rounding cost ε₀ (taken inside ε; 0 on the real
    /// line, whose Laplace is float-safe at no cost, and without rows). It depends only on the rows, the radius
    /// and ε, so it is known before the Karcher iteration (`docs/proofs/float_safety.md` §3i).
    #[allow(clippy::clone_on_copy)]
    fn planned_rounding_cost(&self, n: u64, epsilon: f64, conditioning: Conditioning) -> Result<f64, Error> {
        if n == 0 || matches!(self.geometry, Geometry::Real { .. }) {
            return Ok(0.0);
        }
        let n_usize = usize::try_from(n).map_err(|_| not_applicable("too many rows"))?;
        with_geometry!(&self.geometry, |m, c| {
            let mech = PrivateFrechetMean::with_options(
                *m,
                c.clone(),
                self.radius,
                n_usize,
                epsilon,
                conditioning,
                self.options,
            )?;
            Ok(mech.rounding_cost())
        })
    }

    /// Releases the mean at `mean` (the converged base point of a fit over `n` rows) with pure `epsilon`:
    /// the noise is drawn once, from `rng`.
    // The centre is Copy on SO(3) only; the macro clones it for every geometry.
    #[allow(clippy::clone_on_copy)]
    pub fn release<R: CryptoRng + ?Sized>(
        &self,
        mean: &[f64],
        n: u64,
        epsilon: f64,
        conditioning: Conditioning,
        rng: &mut R,
    ) -> Result<MeanRelease, Error> {
        if n == 0 {
            return Err(no_rows());
        }
        let n_usize = usize::try_from(n).map_err(|_| not_applicable("too many rows"))?;
        if let Geometry::Real { bounds } = &self.geometry {
            // Replacing one of n rows moves column k's mean by at most (hi_k − lo_k)/n: ℓ₁ Σ_k (hi_k − lo_k)/n
            // (k·(hi − lo)/n for one shared pair, as before).
            let widths: f64 = match &bounds[..] {
                [(lo, hi)] => mean.len() as f64 * (hi - lo),
                each => each.iter().map(|(lo, hi)| hi - lo).sum(),
            };
            let sensitivity = widths / n as f64;
            let laplace = manifold_dp::mechanism::scalar::ScalarLaplace::for_epsilon(sensitivity, epsilon)?;
            let guarantee = self.guarantee(laplace.epsilon());
            return Ok(MeanRelease {
                mean: laplace.release(mean, rng)?,
                stated: self.stated_if_dropped(guarantee, n, "values within the public bounds".into()),
                guarantee,
                sensitivity,
                sigma: laplace.scale(),
                expected_error: laplace.scale(),
                conditioned: false,
                n,
                grid: None,
                rounding_cost: 0.0,
                noise_epsilon: laplace.epsilon(),
                mu: None,
            });
        }
        with_geometry!(&self.geometry, |m, c| {
            let mech = PrivateFrechetMean::with_options(
                *m,
                c.clone(),
                self.radius,
                n_usize,
                epsilon,
                conditioning,
                self.options,
            )?;
            let private = mech.release_mean(&m.point_at(mean)?, rng)?;
            let domain =
                format!("rows within {} (the public radius, in the space's distance unit) of the centre", self.radius);
            // The mechanism's δ of its sampler's negligible events travels with the release.
            let guarantee =
                self.guarantee(mech.guarantee().epsilon().unwrap_or(epsilon)).with_delta(mech.guarantee().delta());
            Ok(MeanRelease {
                mean: self.table_form(&m.coordinates(&private))?,
                stated: self.stated_if_dropped(guarantee, n, domain),
                guarantee,
                sensitivity: mech.sensitivity(),
                sigma: mech.sigma(),
                expected_error: mech.expected_error(),
                conditioned: mech.conditioned(),
                n,
                grid: mech.rounding().map(|r| r.grid()),
                rounding_cost: mech.rounding_cost(),
                noise_epsilon: mech.noise_epsilon(),
                mu: None,
            })
        })
    }

    /// The guarantee a release with `noise` states, and what a ledger is charged before the release (the rows
    /// unknown): [`MeanPlan::guarantee`] for the Laplace with the δ of its sampler's negligible events,
    /// δ_B·(1 + e^ε) at the largest δ_B any row count gives (`LaplaceManifold::negligible_event_bound`: the
    /// release's own δ_B where the rows do not change the sampler, and above it, a weaker true charge, where
    /// they do: the circle and spheres past κ = 10⁶, the SPD chamber proposal); the Gaussian's
    /// `{"notion": "gdp", "mu": μ}` with its δ on spheres and SO(3) (`riemannian_gdp::RELEASE_DELTA`).
    pub fn guarantee_for(&self, noise: &MeanNoise) -> Guarantee {
        use manifold_dp::privacy::float_safety::negligible_delta;
        match *noise {
            MeanNoise::Laplace { epsilon, .. } => {
                let bound = match &self.geometry {
                    Geometry::Real { .. } => 0.0,
                    geometry => with_geometry!(geometry, |m, _c| m.negligible_event_bound()),
                };
                self.guarantee(epsilon).with_delta(negligible_delta(bound, epsilon))
            }
            MeanNoise::Gaussian { mu } => match self.geometry {
                Geometry::So3 { .. } | Geometry::Sphere { .. } => {
                    Guarantee::gdp_with_delta(mu, manifold_dp::analysis::riemannian_gdp::RELEASE_DELTA)
                }
                _ => Guarantee::gdp(mu),
            },
        }
    }

    /// [`MeanPlan::check`] for either noise: whether a release over `n` rows can be planned, without any data
    /// (for the Gaussian: the space is a sphere or SO(3), and a σ is certified for μ at n rows and the radius).
    pub fn check_noise(&self, n: u64, noise: &MeanNoise) -> Result<(), Error> {
        match *noise {
            MeanNoise::Laplace { epsilon, conditioning } => self.check(n, epsilon, conditioning),
            MeanNoise::Gaussian { mu } => {
                self.gaussian_geometry()?;
                if n > 0 {
                    self.gaussian(n, mu)?;
                }
                Ok(())
            }
        }
    }

    /// [`MeanPlan::check_noise`] at the `rows` the release will be over (every row; with [`Outside::Drop`] the
    /// rows in the ball, [`MeanPlan::count_inside`]), before the Karcher iteration, with a refusal that says
    /// what to change in the user's terms: the rows, the radius as the user gave it (`radius`) and the budget,
    /// options written as `spell` writes them. One text for every front end. `Ok` carries the warnings the
    /// plan deserves, in the same terms, for the front end to show before the Karcher iteration: a Laplace
    /// mean whose rounding costs more than [`manifold_dp::notes::ROUNDING_SHARE_WARNING`] of ε (the cost
    /// depends only on the rows, the radius and ε; the Gaussian's is inside its certified μ).
    pub fn check_rows(
        &self,
        rows: u64,
        noise: &MeanNoise,
        radius: &str,
        spell: &dyn Spelling,
    ) -> Result<Vec<String>, Error> {
        let opt = |name: &str, value: Shown<'_>| spell.option(name, value);
        let checked = match *noise {
            MeanNoise::Laplace { epsilon, conditioning } => self.planned_rounding_cost(rows, epsilon, conditioning),
            MeanNoise::Gaussian { .. } => self.check_noise(rows, noise).map(|()| 0.0),
        };
        let e = match checked {
            Ok(cost) => {
                let MeanNoise::Laplace { epsilon, .. } = *noise else { return Ok(Vec::new()) };
                if cost <= manifold_dp::notes::ROUNDING_SHARE_WARNING * epsilon {
                    return Ok(Vec::new());
                }
                let short = manifold_dp::privacy::guarantee::short;
                // On SPD the cost grows with the condition numbers of a wide ball; on spheres and SO(3) with the
                // noise's concentration ∝ n·ε/r, a smaller share of a larger ε (`docs/proofs/float_safety.md` §4).
                let advice = match self.space {
                    Space::Spd(_) => {
                        format!("a centre closer to the data and a smaller {} cost less", opt("radius", Shown::Bare))
                    }
                    _ => format!(
                        "the share shrinks as {} grows; a random subsample of the rows costs less",
                        opt("epsilon", Shown::Bare)
                    ),
                };
                return Ok(vec![format!(
                    "rounding the mean of {rows} rows within {} at {} float-safely costs {} of that epsilon \
                     ({:.2} %, more than {} %; taken inside it: the noise is calibrated at the rest): {advice}",
                    opt("radius", Shown::Text(radius)),
                    opt("epsilon", Shown::Number(&short(epsilon))),
                    short(cost),
                    100.0 * cost / epsilon,
                    100.0 * manifold_dp::notes::ROUNDING_SHARE_WARNING,
                )]);
            }
            Err(e) => e,
        };
        let Error::Library(LibError::NumericalLimit(why)) = e else { return Err(e) };
        let radius = opt("radius", Shown::Text(radius));
        let advice = match *noise {
            MeanNoise::Laplace { epsilon, .. } => format!(
                "{rows} rows, {radius}, {}; the cost grows with the rows and shrinks as {} or {} grows",
                opt("epsilon", Shown::Number(&manifold_dp::privacy::guarantee::short(epsilon))),
                opt("epsilon", Shown::Bare),
                opt("radius", Shown::Bare)
            ),
            MeanNoise::Gaussian { mu } => format!(
                "no noise scale is certified for {} at {rows} rows and {radius}: the certificate reaches μ of about \
                 6, and σ = Δ/μ down to about 1e-5 rad (below it the rounding's cost grows past what μ allows); a \
                 smaller {}, a larger {} or a random subsample of the rows certifies",
                opt("mu", Shown::Number(&manifold_dp::privacy::guarantee::short(mu))),
                opt("mu", Shown::Bare),
                opt("radius", Shown::Bare)
            ),
        };
        Err(Error::Library(LibError::NumericalLimit(format!(
            "{why}\nNothing was released (checked before computing the mean): {advice}"
        ))))
    }

    /// [`MeanPlan::release`] for either noise: the Gaussian draws once from the Riemannian Gaussian at the
    /// σ certified for μ ([`GaussianFrechetMean::release_mean`]), rounded onto its public grid.
    pub fn release_with<R: CryptoRng>(
        &self,
        mean: &[f64],
        n: u64,
        noise: &MeanNoise,
        rng: &mut R,
    ) -> Result<MeanRelease, Error> {
        let mu = match *noise {
            MeanNoise::Laplace { epsilon, conditioning } => return self.release(mean, n, epsilon, conditioning, rng),
            MeanNoise::Gaussian { mu } => mu,
        };
        self.gaussian_geometry()?;
        if n == 0 {
            return Err(no_rows());
        }
        let domain =
            format!("rows within {} (the public radius, in the space's distance unit) of the centre", self.radius);
        let m = self.gaussian(n, mu)?;
        let guarantee = m.guarantee();
        Ok(MeanRelease {
            mean: self.table_form(&m.release_at(mean, rng)?)?,
            stated: self.stated_if_dropped(guarantee, n, domain),
            guarantee,
            sensitivity: m.sensitivity(),
            sigma: m.sigma(),
            expected_error: m.expected_error(),
            conditioned: false,
            n,
            grid: Some(m.grid()),
            rounding_cost: m.rounding_cost(),
            noise_epsilon: f64::NAN,
            mu: Some(mu),
        })
    }

    /// Refuses a Gaussian mean on a space without a Gaussian sampler (SPD(k) under the affine-invariant metric for
    /// k > 3, the real line).
    fn gaussian_geometry(&self) -> Result<(), Error> {
        match self.geometry {
            Geometry::So3 { .. } | Geometry::Sphere { .. } | Geometry::SpdLogEuclidean { .. } => Ok(()),
            Geometry::SpdAffine { m, .. } => match check_affine_gaussian_mean_k(m.k()) {
                Ok(_) => Ok(()),
                Err(_) => Err(not_applicable(&format!(
                    "the Gaussian mean on {} under the affine-invariant metric is offered for k ≤ 3 (its chart's \
                     float-error bounds are certified there): choose the log-Euclidean metric (k ≤ 8), or use the \
                     Laplace mean (pure ε-DP)",
                    self.space
                ))),
            },
            Geometry::Real { .. } => Err(not_applicable(&format!(
                "the Gaussian mean is on spheres (sphere:N, latlon, circle, timeofday), so3 and spd:K, not {}: use \
                 the Laplace mean (pure ε-DP) there",
                self.space
            ))),
        }
    }

    /// The Gaussian release over `n` rows at `mu` on this plan's ball (σ certified for μ at Δ).
    fn gaussian(&self, n: u64, mu: f64) -> Result<Box<dyn GaussianRelease>, Error> {
        let n = usize::try_from(n).map_err(|_| not_applicable("too many rows"))?;
        Ok(match &self.geometry {
            Geometry::So3 { center, .. } => {
                Box::new(GaussianFrechetMean::with_options(So3, *center, self.radius, n, mu, self.options)?)
            }
            Geometry::Sphere { m, center } => {
                Box::new(GaussianFrechetMean::with_options(*m, center.clone(), self.radius, n, mu, self.options)?)
            }
            Geometry::SpdLogEuclidean { m, center } => Box::new(LogEuclideanGaussianMean::with_options(
                m.k(),
                center.clone(),
                self.radius,
                n,
                mu,
                self.options,
            )?),
            Geometry::SpdAffine { m, center } => {
                Box::new(AffineGaussianMean::with_options(m.k(), center.clone(), self.radius, n, mu, self.options)?)
            }
            Geometry::Real { .. } => return Err(not_applicable("the Gaussian mean is on spheres, so3 and spd:K only")),
        })
    }

    /// With `outside = drop`, the guarantee stated with what it does not protect
    /// ([`StatedGuarantee::dropped_outside`]); `None` otherwise (every row is protected).
    fn stated_if_dropped(&self, guarantee: Guarantee, kept: u64, domain: String) -> Option<StatedGuarantee> {
        (self.outside == Outside::Drop).then(|| StatedGuarantee::dropped_outside(guarantee, kept, domain))
    }

    /// Coordinates in the table's form.
    fn table_form(&self, coordinates: &[f64]) -> Result<Vec<f64>, Error> {
        Ok(match &self.geometry {
            Geometry::So3 { repr, .. } => repr.encode(&So3.point_at(coordinates)?),
            Geometry::Sphere { .. } => direction_values(self.space, self.format.as_deref(), coordinates)?,
            Geometry::SpdAffine { .. } | Geometry::SpdLogEuclidean { .. } | Geometry::Real { .. } => {
                coordinates.to_vec()
            }
        })
    }
}

/// A Gaussian mean's release seen through coordinates, so one body serves SO(3) and the spheres.
trait GaussianRelease {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error>;
    fn guarantee(&self) -> Guarantee;
    fn sensitivity(&self) -> f64;
    fn sigma(&self) -> f64;
    fn expected_error(&self) -> f64;
    fn grid(&self) -> Grid;
    /// The rounding's ε₀, inside the certified μ.
    fn rounding_cost(&self) -> f64;
}

impl<M: GaussianManifold + Coordinates> GaussianRelease for GaussianFrechetMean<M> {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error> {
        let m = self.manifold();
        Ok(m.coordinates(&self.release_mean(&m.point_at(mean)?, rng)))
    }
    fn guarantee(&self) -> Guarantee {
        GaussianFrechetMean::guarantee(self)
    }
    fn sensitivity(&self) -> f64 {
        GaussianFrechetMean::sensitivity(self)
    }
    fn sigma(&self) -> f64 {
        GaussianFrechetMean::sigma(self)
    }
    fn expected_error(&self) -> f64 {
        GaussianFrechetMean::expected_error(self)
    }
    fn grid(&self) -> Grid {
        self.rounding().grid()
    }
    fn rounding_cost(&self) -> f64 {
        self.certificate().additive_epsilon
    }
}

impl GaussianRelease for LogEuclideanGaussianMean {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error> {
        let m = self.manifold();
        Ok(m.coordinates(&self.release_mean(&m.point_at(mean)?, rng)))
    }
    fn guarantee(&self) -> Guarantee {
        LogEuclideanGaussianMean::guarantee(self)
    }
    fn sensitivity(&self) -> f64 {
        LogEuclideanGaussianMean::sensitivity(self)
    }
    fn sigma(&self) -> f64 {
        LogEuclideanGaussianMean::sigma(self)
    }
    fn expected_error(&self) -> f64 {
        LogEuclideanGaussianMean::expected_error(self)
    }
    fn grid(&self) -> Grid {
        LogEuclideanGaussianMean::grid(self)
    }
    fn rounding_cost(&self) -> f64 {
        LogEuclideanGaussianMean::rounding_cost(self)
    }
}

impl GaussianRelease for AffineGaussianMean {
    fn release_at(&self, mean: &[f64], rng: &mut dyn rand::CryptoRng) -> Result<Vec<f64>, Error> {
        let m = self.manifold();
        Ok(m.coordinates(&self.release_mean(&m.point_at(mean)?, rng)))
    }
    fn guarantee(&self) -> Guarantee {
        AffineGaussianMean::guarantee(self)
    }
    fn sensitivity(&self) -> f64 {
        AffineGaussianMean::sensitivity(self)
    }
    fn sigma(&self) -> f64 {
        AffineGaussianMean::sigma(self)
    }
    fn expected_error(&self) -> f64 {
        AffineGaussianMean::expected_error(self)
    }
    fn grid(&self) -> Grid {
        AffineGaussianMean::grid(self)
    }
    fn rounding_cost(&self) -> f64 {
        AffineGaussianMean::rounding_cost(self)
    }
}
