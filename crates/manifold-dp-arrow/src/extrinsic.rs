//! The private extrinsic mean of the rows of Arrow batches (`manifold_dp::mechanism::ExtrinsicMean`): rows
//! anywhere on so3, sphere:N, latlon, circle or timeofday, no centre or radius. One pass: each batch's rows are
//! embedded and summed chunk by chunk in parallel, the chunk sums merged pairwise in order (so the result does
//! not depend on the thread count), and the noise is drawn once. The mean comes back in the table's own form,
//! as the Fréchet mean's does ([`crate::MeanPlan`]).

use crate::columns::{DECODE_CHUNK, PointColumns, Problem};
use crate::{DirectionColumns, Error, RotationColumns};
use arrow_array::RecordBatch;
use manifold_dp::Error as LibError;
use manifold_dp::mechanism::{Embedding, ExtrinsicMean, ExtrinsicSum};
use manifold_dp::privacy::{Grid, Guarantee, StatedGuarantee};
use manifold_dp::registry::Space;
use manifold_dp::space::representation::Representation;
use nalgebra::{Quaternion, UnitQuaternion};
use rand::CryptoRng;
use rayon::prelude::*;

/// A sum over some rows, or the first row that is not a point (its index in the rows given, and why).
#[derive(Debug, Clone, PartialEq)]
pub struct ExtrinsicPass {
    /// The sum of the embedded rows (`None` when there were none).
    pub sum: Option<ExtrinsicSum>,
    /// The first row that is not usable; a pass with a problem must not be released.
    pub problem: Option<(usize, Problem)>,
}

/// A released extrinsic mean and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtrinsicMeanRelease {
    /// The private mean in the table's form (rotation format, lat/lon degrees, angle, hours, unit vector);
    /// `None` where the projection is undefined (the noisy embedded mean is degenerate).
    pub mean: Option<Vec<f64>>,
    /// Pure ε-DP for data sets of n rows anywhere on the space that differ in one row.
    pub guarantee: Guarantee,
    /// The same, with its neighbouring relation, rows and domain (what front ends print).
    pub stated: StatedGuarantee,
    /// Δ₂ of the computed embedded mean (2√2/n on so3, 2/n on spheres, plus twice its float error).
    pub sensitivity: f64,
    /// The K-norm scale σ = Δ/ε′.
    pub sigma: f64,
    /// E‖noise‖ = Dσ, in the embedding (Frobenius on so3, chordal on spheres).
    pub expected_error: f64,
    /// n.
    pub n: u64,
    /// The public grid of the embedding's coordinates the noisy mean is rounded onto.
    pub grid: Grid,
    /// ε₀ of the rounding, inside ε.
    pub rounding_cost: f64,
    /// ε′, the noise's share.
    pub noise_epsilon: f64,
    /// The rounded noisy embedded mean (9 entries row by row, or the N coordinates).
    pub embedded: Vec<f64>,
    /// How far the noisy embedded mean is from degeneracy (its norm; on so3 a quarter of K's eigengap).
    pub degeneracy_distance: f64,
    /// P[‖noise‖ ≥ degeneracy_distance].
    pub degeneracy_probability: f64,
    /// The noise radius at [`Self::confidence`].
    pub noise_radius: f64,
    /// At [`Self::confidence`], the largest angle (radians) between the release and the projection of the
    /// exact embedded mean; `None` where the projection is unstable.
    pub error_bound: Option<f64>,
    /// The confidence of `noise_radius` and `error_bound` (0.95).
    pub confidence: f64,
    /// What to tell the user (unstable projection, rounding cost).
    pub warnings: Vec<String>,
}

/// Where the points are.
#[derive(Debug, Clone)]
enum Source {
    So3(Representation),
    Directions(Option<String>),
}

/// A private extrinsic mean of the rows of a table.
#[derive(Debug, Clone)]
pub struct ExtrinsicPlan {
    space: Space,
    embedding: Embedding,
    source: Source,
    columns: Option<Vec<String>>,
}

impl ExtrinsicPlan {
    /// The mean on `space` (so3, sphere:N, latlon, circle, timeofday) of the columns `columns` (else the
    /// space's defaults) written as `format` (so3: a rotation format, default quat-wxyz; circle: rad or deg).
    pub fn new(space: Space, format: Option<&str>, columns: Option<&[String]>) -> Result<Self, Error> {
        let embedding = Embedding::of_space(space)?;
        let source = match space {
            Space::So3 => Source::So3(format.unwrap_or("quat-wxyz").parse()?),
            _ => Source::Directions(format.map(str::to_string)),
        };
        Ok(ExtrinsicPlan { space, embedding, source, columns: columns.map(<[String]>::to_vec) })
    }

    /// The space.
    pub fn space(&self) -> Space {
        self.space
    }

    /// The embedding, for people.
    pub fn describe(&self) -> String {
        self.embedding.describe()
    }

    /// The sum over the rows of `batch`, `DECODE_CHUNK` rows at a time in parallel, merged pairwise in order;
    /// or its first problem row.
    pub fn pass(&self, batch: &RecordBatch) -> Result<ExtrinsicPass, Error> {
        let columns = self.columns.as_deref();
        let schema = batch.schema();
        match &self.source {
            Source::So3(repr) => {
                let decoded = RotationColumns::locate(&schema, *repr, columns, *repr)?.decode(batch)?;
                if let Some(first) = decoded.problems.into_iter().next() {
                    return Ok(ExtrinsicPass { sum: None, problem: Some(first) });
                }
                self.sum_chunks(&decoded.points, ExtrinsicSum::of_rotations)
            }
            Source::Directions(format) => {
                let cols = DirectionColumns::locate(&schema, self.space, format.as_deref(), columns)?;
                let decoded = cols.decode(batch)?;
                if let Some(first) = decoded.problems.into_iter().next() {
                    return Ok(ExtrinsicPass { sum: None, problem: Some(first) });
                }
                let dim = self.embedding.dim();
                let rows: Vec<&[f64]> = decoded.points.iter().map(|p| p.as_slice()).collect();
                self.sum_chunks(&rows, |chunk| ExtrinsicSum::of_directions(chunk, dim))
            }
        }
    }

    fn sum_chunks<P: Sync>(
        &self,
        rows: &[P],
        sum: impl Fn(&[P]) -> manifold_dp::Fallible<ExtrinsicSum> + Sync,
    ) -> Result<ExtrinsicPass, Error> {
        let parts: Vec<manifold_dp::Fallible<ExtrinsicSum>> = if rows.len() <= DECODE_CHUNK {
            rows.chunks(DECODE_CHUNK).map(&sum).collect()
        } else {
            rows.par_chunks(DECODE_CHUNK).map(&sum).collect()
        };
        let mut sums = Vec::with_capacity(parts.len());
        for (c, part) in parts.into_iter().enumerate() {
            match part {
                Ok(s) => sums.push(s),
                // A row the decoder accepted whose norm is still not 1 within the tolerance: name the chunk's
                // first row that fails.
                Err(e) => {
                    let start = c * DECODE_CHUNK;
                    let chunk = &rows[start..(start + DECODE_CHUNK).min(rows.len())];
                    let row = (0..chunk.len()).find(|&i| sum(&chunk[i..=i]).is_err()).unwrap_or(0);
                    return Ok(ExtrinsicPass {
                        sum: None,
                        problem: Some((start + row, Problem { column: None, reason: e.to_string() })),
                    });
                }
            }
        }
        Ok(ExtrinsicPass { sum: ExtrinsicSum::merge_all(sums), problem: None })
    }

    /// The passes of consecutive parts merged pairwise in order; the first problem (its row counted from the
    /// first part's first row, given each part's row count) is kept.
    pub fn merge(passes: Vec<(ExtrinsicPass, usize)>) -> ExtrinsicPass {
        let mut offset = 0;
        let mut sums = Vec::with_capacity(passes.len());
        for (pass, rows) in passes {
            if let Some((row, p)) = pass.problem {
                return ExtrinsicPass { sum: None, problem: Some((offset + row, p)) };
            }
            sums.extend(pass.sum);
            offset += rows;
        }
        ExtrinsicPass { sum: ExtrinsicSum::merge_all(sums), problem: None }
    }

    /// The sum over every row of `batches` (one pass each, merged pairwise), or the first problem row.
    pub fn fit(&self, batches: &[RecordBatch]) -> Result<ExtrinsicPass, Error> {
        let passes: Vec<(ExtrinsicPass, usize)> =
            batches.iter().map(|b| Ok((self.pass(b)?, b.num_rows()))).collect::<Result<_, Error>>()?;
        Ok(Self::merge(passes))
    }

    /// The exact (non-private) extrinsic mean of `sum` in the table's form: for tests and experiments, never
    /// for release.
    pub fn exact_mean(&self, sum: &ExtrinsicSum) -> Result<Option<Vec<f64>>, Error> {
        let n = sum.n.max(1) as f64;
        let mean: Vec<f64> = sum.sum.iter().map(|s| s / n).collect();
        let point = match self.embedding {
            Embedding::So3 => manifold_dp::mechanism::extrinsic_mean::nearest_rotation(&mean).0,
            Embedding::Sphere(_) => {
                let norm = mean.iter().map(|x| x * x).sum::<f64>().sqrt();
                (norm > 0.0).then(|| mean.iter().map(|x| x / norm).collect())
            }
        };
        point.map(|p| self.table_form(&p)).transpose()
    }

    /// Releases the mean of the rows summed in `sum` with pure `epsilon`: the noise is drawn once, from `rng`.
    pub fn release<R: CryptoRng + ?Sized>(
        &self,
        sum: Option<&ExtrinsicSum>,
        epsilon: f64,
        rng: &mut R,
    ) -> Result<ExtrinsicMeanRelease, Error> {
        let sum = sum.filter(|s| s.n > 0).ok_or_else(|| {
            Error::Library(LibError::NotApplicable("the table has no rows: there is no mean to release".to_string()))
        })?;
        let mech = ExtrinsicMean::new(self.embedding, sum.n, sum.depth, epsilon)?;
        let out = mech.release(sum, rng)?;
        let warnings = mech.warnings(&out);
        let mean = out.point.as_deref().map(|p| self.table_form(p)).transpose()?;
        Ok(ExtrinsicMeanRelease {
            mean,
            guarantee: mech.guarantee(),
            stated: mech.stated_guarantee(),
            sensitivity: mech.sensitivity(),
            sigma: mech.sigma(),
            expected_error: mech.expected_error(),
            n: sum.n,
            grid: mech.rounding().grid(),
            rounding_cost: mech.rounding_cost(),
            noise_epsilon: mech.noise_epsilon(),
            embedded: out.embedded.clone(),
            degeneracy_distance: out.degeneracy_distance,
            degeneracy_probability: out.degeneracy_probability,
            noise_radius: out.noise_radius,
            error_bound: out.error_bound,
            confidence: manifold_dp::mechanism::extrinsic_mean::CONFIDENCE,
            warnings,
        })
    }

    /// A point (a quaternion w, x, y, z, or a unit vector) in the table's form.
    fn table_form(&self, p: &[f64]) -> Result<Vec<f64>, Error> {
        match &self.source {
            Source::So3(repr) => {
                Ok(repr.encode(&UnitQuaternion::new_normalize(Quaternion::new(p[0], p[1], p[2], p[3]))))
            }
            Source::Directions(format) => crate::mean::direction_values(self.space, format.as_deref(), p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Float64Array};
    use manifold_dp::sample::rng::seeded_rng_for_experiments;
    use std::sync::Arc;

    fn batch(columns: &[(&str, Vec<f64>)]) -> RecordBatch {
        RecordBatch::try_from_iter(
            columns.iter().map(|(n, v)| (n.to_string(), Arc::new(Float64Array::from(v.clone())) as ArrayRef)),
        )
        .unwrap()
    }

    #[test]
    fn every_space_releases_in_its_own_form_without_a_centre() {
        let mut rng = seeded_rng_for_experiments(1);
        let eps = 1e4;
        // Times of day across midnight: 23:00 and 01:00 average to midnight.
        let b = batch(&[("time", vec![23.0, 1.0, 23.5, 0.5])]);
        let p = ExtrinsicPlan::new(Space::TimeOfDay, None, None).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let out = p.release(fit.sum.as_ref(), eps, &mut rng).unwrap();
        let h = out.mean.unwrap()[0];
        assert!(!(0.01..=23.99).contains(&h), "{h}");
        // Pure ε, up to the K-norm sampler's negligible δ (`docs/proofs/float_safety.md` §6), which at this
        // ε = 10⁴ is vacuous: δ_B·(1 + e^ε) overflows to its cap of 1.
        assert_eq!(out.guarantee.epsilon(), Some(eps));
        assert!(out.guarantee.delta() <= 1.0, "{:?}", out.guarantee);
        assert_eq!(out.sensitivity, out.sensitivity.max(2.0 / 4.0));
        // Latitude/longitude in degrees.
        let b = batch(&[("lat", vec![44.5, 45.0, 45.5, 45.0]), ("lon", vec![10.0, 9.5, 10.0, 10.5])]);
        let p = ExtrinsicPlan::new(Space::LatLon, None, None).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let m = p.release(fit.sum.as_ref(), eps, &mut rng).unwrap().mean.unwrap();
        assert!((m[0] - 45.0).abs() < 0.05 && (m[1] - 10.0).abs() < 0.05, "{m:?}");
        // Rotations in quat-xyzw, spread over more than a hemisphere of angles.
        let b = batch(&[("x", vec![0.0, 0.1]), ("y", vec![0.0; 2]), ("z", vec![0.0; 2]), ("w", vec![1.0, 0.995])]);
        let p = ExtrinsicPlan::new(Space::So3, Some("quat-xyzw"), None).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let out = p.release(fit.sum.as_ref(), eps, &mut rng).unwrap();
        let q = out.mean.unwrap();
        assert!(q[0] > 0.04 && q[0] < 0.06 && q[3] > 0.99, "{q:?}");
        assert!(out.error_bound.is_some() && out.warnings.is_empty());
        assert!((out.sensitivity - 2.0 * 2f64.sqrt() / 2.0).abs() < 1e-9);
        // Degrees on the circle.
        let b = batch(&[("angle", vec![350.0, 10.0, 0.0])]);
        let p = ExtrinsicPlan::new(Space::Circle, Some("deg"), None).unwrap();
        let fit = p.fit(std::slice::from_ref(&b)).unwrap();
        let a = p.release(fit.sum.as_ref(), eps, &mut rng).unwrap().mean.unwrap()[0];
        assert!(!(0.05..=359.95).contains(&a), "{a}");
    }

    #[test]
    fn batching_and_threads_change_nothing_and_problems_are_named() {
        let n = 9000;
        let t: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.37).sin() * 3.0).collect();
        let b = batch(&[("angle", t)]);
        let p = ExtrinsicPlan::new(Space::Circle, None, None).unwrap();
        let whole = p.fit(std::slice::from_ref(&b)).unwrap();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(one.install(|| p.fit(std::slice::from_ref(&b))).unwrap(), whole);
        let parts = [b.slice(0, 1234), b.slice(1234, 7766)];
        let split = p.fit(&parts).unwrap().sum.unwrap();
        assert_eq!(split.n, n as u64);
        assert!(split.sum.iter().zip(&whole.sum.unwrap().sum).all(|(a, b)| (a - b).abs() < 1e-9));
        // A bad row in the second batch is named from the first batch's first row.
        let bad = batch(&[("angle", vec![0.0, f64::NAN])]);
        let fit = p.fit(&[b.slice(0, 10), bad]).unwrap();
        assert_eq!(fit.problem.unwrap().0, 11);
        // No rows; spaces without an embedding.
        let mut rng = seeded_rng_for_experiments(2);
        assert!(p.release(None, 1.0, &mut rng).unwrap_err().to_string().contains("no rows"));
        assert!(ExtrinsicPlan::new(Space::Spd(2), None, None).is_err());
        assert!(ExtrinsicPlan::new(Space::Real, None, None).is_err());
    }
}
