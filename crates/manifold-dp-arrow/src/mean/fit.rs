//! The exact mean of the rows: decoding, placing each row in the public ball, the passes workers share and the
//! Karcher steps, on one machine ([`MeanPlan::fit`]) or in passes ([`MeanPlan::pass`], [`MeanPlan::step`]).

use super::*;
use crate::columns::{DECODE_CHUNK, Decoded, PointColumns, Problem};
use crate::{DirectionColumns, Error, RotationColumns, SpdColumns};
use arrow_array::RecordBatch;
use manifold_dp::manifold::ball::{Outside, Placed as PlacedRow, place};
use manifold_dp::manifold::float_error::{PairwiseSum, sum_log_pairwise};
use manifold_dp::manifold::{
    KarcherStep, KarcherStop, Manifold, So3, StepLengths, karcher_newton_step, karcher_step, karcher_step_of_length,
};
use nalgebra::{DMatrix, DVector};

impl MeanPlan {
    /// One pass over `batch` at the base point `base` (coordinates from [`MeanPlan::start`] or a
    /// [`MeanStep::Next`]). Rows are summed `DECODE_CHUNK` at a time in parallel and the chunk sums added in
    /// order, so the result does not depend on the number of threads.
    pub fn pass(&self, batch: &RecordBatch, base: &[f64]) -> Result<MeanPass, Error> {
        self.pass_with(batch, base, false)
    }

    /// [`MeanPlan::pass`] with the Hessian sum as well ([`MeanPass::hessian`]) on spheres and SO(3), so that
    /// [`MeanPlan::step`] takes Newton steps: two or three passes over the data instead of six or more, for a
    /// mean computed in passes (Spark). Elsewhere the same as [`MeanPlan::pass`].
    pub fn newton_pass(&self, batch: &RecordBatch, base: &[f64]) -> Result<MeanPass, Error> {
        self.pass_with(batch, base, true)
    }

    fn pass_with(&self, batch: &RecordBatch, base: &[f64], hessian: bool) -> Result<MeanPass, Error> {
        let columns = self.columns.as_deref();
        let schema = batch.schema();
        match &self.geometry {
            Geometry::So3 { repr, center } => {
                let cols = RotationColumns::locate(&schema, *repr, columns, *repr)?;
                self.sum_pass(&So3, center, cols.decode(batch)?, base, hessian)
            }
            Geometry::Sphere { m, center } => {
                let cols = DirectionColumns::locate(&schema, self.space, self.format.as_deref(), columns)?;
                self.sum_pass(m, center, cols.decode(batch)?, base, hessian)
            }
            Geometry::SpdAffine { m, center } => {
                self.sum_pass(m, center, SpdColumns::locate(&schema, m.k(), columns)?.decode(batch)?, base, hessian)
            }
            Geometry::SpdLogEuclidean { m, center } => {
                self.sum_pass(m, center, SpdColumns::locate(&schema, m.k(), columns)?.decode(batch)?, base, hessian)
            }
            Geometry::Real { bounds } => {
                let cols = crate::RealColumns::locate(&schema, columns)?;
                self.real_pass(bounds, cols.decode(batch)?, base, self.outside)
            }
        }
    }

    /// n′, the rows of `batches` in the ball (on `real`: whose values all lie in their bounds), which a mean
    /// with [`Outside::Drop`] is over: counted before the Karcher iteration so that [`MeanPlan::check_rows`]
    /// refuses or warns at the n′ the release will be over, before the iteration, as it does at the row count
    /// for `clip` and `error`. The placement is the fit's own (`place_rows`, or on `real` its pass's bounds
    /// test, each by [`Outside::Drop`]), without the logs: one decode and one distance per row. A row that is
    /// not a point is not counted: the fit refuses it, naming it. n′ adds nothing a `drop` release does not
    /// show already: its σ, Δ and n state it (`docs/proofs/mean_outside_ball.md` §2, "The count σ reveals").
    pub fn count_inside(&self, batches: &[RecordBatch]) -> Result<u64, Error> {
        let columns = self.columns.as_deref();
        let mut inside = 0;
        for batch in batches {
            let schema = batch.schema();
            let pass = match &self.geometry {
                Geometry::So3 { repr, center } => {
                    let decoded = RotationColumns::locate(&schema, *repr, columns, *repr)?.decode(batch)?;
                    self.place_rows(&So3, center, points_only(decoded), Outside::Drop).pass
                }
                Geometry::Sphere { m, center } => {
                    let cols = DirectionColumns::locate(&schema, self.space, self.format.as_deref(), columns)?;
                    self.place_rows(m, center, points_only(cols.decode(batch)?), Outside::Drop).pass
                }
                Geometry::SpdAffine { m, center } => {
                    let decoded = SpdColumns::locate(&schema, m.k(), columns)?.decode(batch)?;
                    self.place_rows(m, center, points_only(decoded), Outside::Drop).pass
                }
                Geometry::SpdLogEuclidean { m, center } => {
                    let decoded = SpdColumns::locate(&schema, m.k(), columns)?.decode(batch)?;
                    self.place_rows(m, center, points_only(decoded), Outside::Drop).pass
                }
                Geometry::Real { bounds } => {
                    let decoded = crate::RealColumns::locate(&schema, columns)?.decode(batch)?;
                    self.real_pass(bounds, points_only(decoded), &self.start(), Outside::Drop)?
                }
            };
            inside += pass.used;
        }
        Ok(inside)
    }

    fn sum_pass<M: Coordinates>(
        &self,
        m: &M,
        center: &M::Point,
        decoded: Decoded<M::Point>,
        base: &[f64],
        hessian: bool,
    ) -> Result<MeanPass, Error> {
        let placed = self.place_rows(m, center, decoded, self.outside);
        if placed.pass.problem.is_some() {
            return Ok(placed.pass);
        }
        let base = m.point_at(base)?;
        let (sum, depth) = sum_chunks(m, &base, &placed.chunks).unzip();
        let hessian = if hessian { hessian_chunks(m, &base, &placed.chunks) } else { None };
        Ok(MeanPass { sum, depth: depth.unwrap_or(0), hessian, ..placed.pass })
    }

    /// Places every row of `decoded` in the ball by `outside` (refused, dropped, clipped or used as it is),
    /// `DECODE_CHUNK` rows at a time in parallel: the rows used, chunk by chunk, and the counts (no sum yet). A
    /// chunk stops at its first problem; the first problem in row order is the one kept. The fit places by the
    /// plan's rule; [`MeanPlan::count_inside`] by [`Outside::Drop`], so that both count the same rows in the ball.
    fn place_rows<M: Coordinates>(
        &self,
        m: &M,
        center: &M::Point,
        decoded: Decoded<M::Point>,
        outside: Outside,
    ) -> Placed<M::Point> {
        if let Some(first) = decoded.problems.into_iter().next() {
            return Placed { chunks: Vec::new(), pass: MeanPass { problem: Some(first), ..MeanPass::default() } };
        }
        let place_chunk = |(c, chunk): (usize, Vec<M::Point>)| {
            let mut pass = MeanPass::default();
            let mut used = Vec::with_capacity(chunk.len());
            for (i, x) in chunk.into_iter().enumerate() {
                match place(m, center, self.radius, &x, outside) {
                    PlacedRow::Inside => used.push(x),
                    PlacedRow::Clipped(y) => {
                        pass.clipped += 1;
                        used.push(y);
                    }
                    PlacedRow::Dropped => pass.dropped += 1,
                    PlacedRow::Refused(distance) => {
                        let reason = format!(
                            "the point is at distance {} from the centre, outside the radius {}",
                            manifold_dp::privacy::guarantee::short(distance),
                            manifold_dp::privacy::guarantee::short(self.radius)
                        );
                        pass.problem = Some((c * DECODE_CHUNK + i, Problem { column: None, reason }));
                        pass.outside_distance = Some(distance);
                        return (Vec::new(), pass);
                    }
                }
            }
            pass.used = used.len() as u64;
            (used, pass)
        };
        let chunks = into_chunks(decoded.points);
        // One chunk is placed on this thread: waking rayon's pool costs more than a small batch takes.
        let placed: Vec<(Vec<M::Point>, MeanPass)> = if chunks.len() == 1 {
            chunks.into_iter().enumerate().map(place_chunk).collect()
        } else {
            chunks.into_par_iter().enumerate().map(place_chunk).collect()
        };
        let mut total = MeanPass::default();
        let mut chunks = Vec::with_capacity(placed.len());
        for (used, pass) in placed {
            total.merge(pass);
            chunks.push(used);
        }
        Placed { chunks, pass: total }
    }

    /// The Karcher step at `base` from the merged pass over all rows, after `iterations` earlier steps.
    /// Errors: a pass with a problem, or no row used; [`LibError::NotConverged`] after the iteration limit.
    pub fn step(&self, base: &[f64], pass: &MeanPass, iterations: usize) -> Result<MeanStep, Error> {
        if let Some((row, p)) = &pass.problem {
            return Err(not_applicable(&format!("row {row} is not usable ({}): no step is taken", p.reason)));
        }
        let sum = pass.sum.as_ref().filter(|_| pass.used > 0).ok_or_else(no_rows)?;
        if let Geometry::Real { .. } = self.geometry {
            // The mean is exact after one step from zero: base + Σ(x − base)/n = Σx/n.
            if iterations > 0 {
                return Ok(MeanStep::Converged { gradient_norm: 0.0 });
            }
            return Ok(MeanStep::Next(base.iter().zip(sum).map(|(b, s)| b + s / pass.used as f64).collect()));
        }
        with_geometry!(&self.geometry, |m, c| {
            let base = m.point_at(base)?;
            let gradient = DVector::from_column_slice(sum) / pass.used as f64;
            let stop = self.stop(m, c, pass.used)?;
            let step = match &pass.hessian {
                Some(h) if h.len() == gradient.len() * gradient.len() => {
                    let h = DMatrix::from_column_slice(gradient.len(), gradient.len(), h) / pass.used as f64;
                    karcher_newton_step(m, &base, &gradient, &h, pass.depth, iterations, &stop)?
                }
                _ => karcher_step(m, &base, &gradient, pass.depth, iterations, &stop)?,
            };
            Ok(match step {
                KarcherStep::Converged { gradient_norm, .. } => MeanStep::Converged { gradient_norm },
                KarcherStep::Next(p) => MeanStep::Next(m.coordinates(&p)),
            })
        })
    }

    /// The Karcher stop test for `used` rows in this plan's ball: the one [`MeanPlan::release`]'s sensitivity
    /// accounts for.
    pub(super) fn stop<M: Manifold>(
        &self,
        m: &M,
        center: &M::Point,
        used: u64,
    ) -> Result<KarcherStop<M::Point>, Error> {
        let used = usize::try_from(used).map_err(|_| not_applicable("too many rows"))?;
        Ok(KarcherStop::in_ball(m, center, self.radius, used, self.options)?)
    }

    /// The exact mean of the rows of `batches` on one machine: passes and steps until converged. Stops at the
    /// first problem, returned in the fit's pass (its row counted from the first batch's first row).
    ///
    /// Each batch is decoded and placed in the ball once, not once per pass, and the iteration starts at the
    /// data's extrinsic mean ([`Manifold::extrinsic_mean`]) rather than the centre: the same mean as
    /// [`MeanPlan::pass`]/[`MeanPlan::step`] from [`MeanPlan::start`] up to the tolerance (both stop at a
    /// gradient norm ≤ 1e-12), in two to three fewer passes, each without decoding, and fewer again on SPD by
    /// Barzilai–Borwein step lengths ([`StepLengths`]). Sums are still taken `DECODE_CHUNK` rows at a time and
    /// added in order, so the result does not depend on the thread count.
    pub fn fit(&self, batches: &[RecordBatch]) -> Result<MeanFit, Error> {
        self.fit_with(batches, false)
    }

    /// A start for a mean computed in passes ([`MeanPlan::start_from`]), not a mean: the rows' extrinsic mean
    /// followed by one Newton step (spheres, SO(3); a unit step elsewhere), with no stop test, at about two
    /// sums over the rows where [`MeanPlan::fit`] takes five or more. Within ~10⁻¹⁰ of the exact mean of
    /// concentrated rows; only the path of the passes depends on it.
    pub fn rough_fit(&self, batches: &[RecordBatch]) -> Result<MeanFit, Error> {
        self.fit_with(batches, true)
    }

    fn fit_with(&self, batches: &[RecordBatch], rough: bool) -> Result<MeanFit, Error> {
        let columns = self.columns.as_deref();
        match &self.geometry {
            Geometry::So3 { repr, center } => self.fit_placed(&So3, center, batches, rough, |batch| {
                RotationColumns::locate(&batch.schema(), *repr, columns, *repr)?.decode(batch)
            }),
            Geometry::Sphere { m, center } => self.fit_placed(m, center, batches, rough, |batch| {
                DirectionColumns::locate(&batch.schema(), self.space, self.format.as_deref(), columns)?.decode(batch)
            }),
            Geometry::SpdAffine { m, center } => self.fit_placed(m, center, batches, rough, |batch| {
                SpdColumns::locate(&batch.schema(), m.k(), columns)?.decode(batch)
            }),
            Geometry::SpdLogEuclidean { m, center } => self.fit_placed(m, center, batches, rough, |batch| {
                SpdColumns::locate(&batch.schema(), m.k(), columns)?.decode(batch)
            }),
            Geometry::Real { .. } => self.fit_by_passes(batches),
        }
    }

    /// [`MeanPlan::fit`] on a manifold: place every batch once, start at the extrinsic mean, then sum and step.
    fn fit_placed<M: Coordinates>(
        &self,
        m: &M,
        center: &M::Point,
        batches: &[RecordBatch],
        rough: bool,
        decode: impl Fn(&RecordBatch) -> Result<Decoded<M::Point>, Error>,
    ) -> Result<MeanFit, Error> {
        let mut pass = MeanPass::default();
        let mut chunks = Vec::new();
        let mut offset = 0;
        for batch in batches {
            let mut placed = self.place_rows(m, center, decode(batch)?, self.outside);
            if let Some((row, p)) = placed.pass.problem.take() {
                pass.problem = Some((offset + row, p));
                pass.outside_distance = placed.pass.outside_distance;
                return Ok(MeanFit { mean: self.start(), iterations: 0, pass });
            }
            pass.merge(placed.pass);
            chunks.extend(placed.chunks);
            offset += batch.num_rows();
        }
        let used = usize::try_from(pass.used).map_err(|_| not_applicable("too many rows"))?;
        // Through coordinates, as every later base point is, so that a step sums and steps at the same point.
        let start = self.extrinsic_start(m, center, &chunks, used).unwrap_or_else(|| center.clone());
        let mut base = m.point_at(&m.coordinates(&start))?;
        if rough {
            let (sum, _) = sum_chunks(m, &base, &chunks).unzip();
            let sum = sum.filter(|_| pass.used > 0).ok_or_else(no_rows)?;
            let gradient = DVector::from_column_slice(&sum) / pass.used as f64;
            let step = hessian_chunks(m, &base, &chunks)
                .and_then(|h| {
                    let d = gradient.len();
                    let h = DMatrix::from_column_slice(d, d, &h) / pass.used as f64;
                    m.newton_direction(&base, &gradient, &h)
                })
                .filter(|d| d.norm() <= self.radius)
                .unwrap_or(gradient);
            let mean = m.coordinates(&m.exp(&base, &step));
            return Ok(MeanFit { mean, iterations: 1, pass });
        }
        let mut iterations = 0;
        // On one machine the iteration may choose its step lengths (fewer passes on SPD); the mean is still
        // the first point whose gradient norm is within the tolerance.
        let mut lengths = StepLengths::for_curvature(m.curvature_bound());
        let stop = self.stop(m, center, pass.used)?;
        loop {
            let (sum, depth) = sum_chunks(m, &base, &chunks).unzip();
            (pass.sum, pass.depth) = (sum, depth.unwrap_or(0));
            let sum = pass.sum.as_ref().filter(|_| pass.used > 0).ok_or_else(no_rows)?;
            let gradient = DVector::from_column_slice(sum) / pass.used as f64;
            // An undone step returns to the previous point, whose sum had the same depth (same chunks).
            let (at, gradient, length) = lengths.next(base, gradient, stop.tolerance());
            match karcher_step_of_length(m, &at, &gradient, pass.depth, length, iterations, &stop)? {
                // Only ever at the point just summed (a step is undone only while above the tolerance), so the
                // pass returned is that point's.
                KarcherStep::Converged { .. } => {
                    return Ok(MeanFit { mean: m.coordinates(&at), iterations, pass });
                }
                KarcherStep::Next(next) => base = m.point_at(&m.coordinates(&next))?,
            }
            iterations += 1;
        }
    }

    /// The extrinsic mean of the used rows ([`Manifold::extrinsic_mean`]), summed chunk by chunk in order.
    fn extrinsic_start<M: Coordinates>(
        &self,
        m: &M,
        center: &M::Point,
        chunks: &[Vec<M::Point>],
        used: usize,
    ) -> Option<M::Point> {
        let sum = |chunk: &Vec<M::Point>| m.extrinsic_sum(chunk, center);
        let sums: Vec<Option<DVector<f64>>> = if chunks.len() == 1 {
            chunks.iter().filter(|chunk| !chunk.is_empty()).map(sum).collect()
        } else {
            chunks.par_iter().filter(|chunk| !chunk.is_empty()).map(sum).collect()
        };
        let mut total: Option<DVector<f64>> = None;
        for sum in sums {
            total = Some(match total {
                Some(t) => t + sum?,
                None => sum?,
            });
        }
        m.extrinsic_mean(&total?, used)
    }

    /// [`MeanPlan::fit`] by whole passes from [`MeanPlan::start`] (the real line, whose mean is one step).
    fn fit_by_passes(&self, batches: &[RecordBatch]) -> Result<MeanFit, Error> {
        let mut base = self.start();
        let mut iterations = 0;
        loop {
            let mut pass = MeanPass::default();
            let mut offset = 0;
            for batch in batches {
                let mut part = self.pass(batch, &base)?;
                if let Some((row, p)) = part.problem.take() {
                    pass.problem = Some((offset + row, p));
                    pass.outside_distance = part.outside_distance;
                    return Ok(MeanFit { mean: base, iterations, pass });
                }
                pass.merge(part);
                offset += batch.num_rows();
            }
            match self.step(&base, &pass, iterations)? {
                MeanStep::Converged { .. } => return Ok(MeanFit { mean: base, iterations, pass }),
                MeanStep::Next(next) => base = next,
            }
            iterations += 1;
        }
    }
}

/// The rows of one batch placed in the ball: the points used, `DECODE_CHUNK` rows of the batch per chunk,
/// and the pass's counts and first problem (its `sum` still `None`).
struct Placed<P> {
    chunks: Vec<Vec<P>>,
    pass: MeanPass,
}

/// The points of `decoded` without its unusable rows (their placeholders removed; `problems` is ascending).
fn points_only<P>(decoded: Decoded<P>) -> Decoded<P> {
    if decoded.problems.is_empty() {
        return decoded;
    }
    let mut bad = decoded.problems.iter().map(|(row, _)| *row).peekable();
    let points = decoded
        .points
        .into_iter()
        .enumerate()
        .filter(|(i, _)| {
            while bad.next_if(|row| row < i).is_some() {}
            bad.peek() != Some(i)
        })
        .map(|(_, p)| p)
        .collect();
    Decoded { points, problems: Vec::new() }
}

/// `points` cut into `DECODE_CHUNK`-long chunks without copying a point twice (cut from the back, so each
/// `split_off` moves only the chunk it returns).
fn into_chunks<P>(mut points: Vec<P>) -> Vec<Vec<P>> {
    let mut chunks = Vec::with_capacity(points.len().div_ceil(DECODE_CHUNK));
    while !points.is_empty() {
        let last = (points.len() - 1) / DECODE_CHUNK * DECODE_CHUNK;
        chunks.push(points.split_off(last));
    }
    chunks.reverse();
    chunks
}

/// Σ log_base(x_i) over the used rows of `chunks` and its summation depth: each chunk summed in parallel by
/// [`sum_log_pairwise`], the chunk sums then added pairwise in chunk order ([`PairwiseSum`]), so the result
/// depends on neither the number of threads nor how rayon splits the work, and its depth grows like log n.
/// `None` when no row is used.
/// Σ of the Hessians of ½ρ²(·, x) at `base` over the chunks ([`Manifold::hessian_sum`]), column by column;
/// `None` where the manifold has none or no row was used. Only the path of the iteration depends on it, not
/// what its stop certifies, so a plain sum will do.
fn hessian_chunks<M: Manifold>(m: &M, base: &M::Point, chunks: &[Vec<M::Point>]) -> Option<Vec<f64>> {
    let sum = |chunk: &Vec<M::Point>| if chunk.is_empty() { None } else { m.hessian_sum(base, chunk) };
    let sums: Vec<Option<DMatrix<f64>>> =
        if chunks.len() == 1 { chunks.iter().map(sum).collect() } else { chunks.par_iter().map(sum).collect() };
    sums.into_iter().flatten().reduce(|a, b| a + b).map(|h| h.as_slice().to_vec())
}

fn sum_chunks<M: Manifold>(m: &M, base: &M::Point, chunks: &[Vec<M::Point>]) -> Option<(Vec<f64>, u32)> {
    let sum = |chunk: &Vec<M::Point>| (!chunk.is_empty()).then(|| sum_log_pairwise(m, base, chunk));
    // One chunk is summed on this thread (the same sum; no pool to wake).
    let sums: Vec<Option<(DVector<f64>, u32)>> =
        if chunks.len() == 1 { chunks.iter().map(sum).collect() } else { chunks.par_iter().map(sum).collect() };
    let mut total = PairwiseSum::new();
    for (s, depth) in sums.into_iter().flatten() {
        total.push(s, depth);
    }
    total.finish().map(|(s, depth)| (s.as_slice().to_vec(), depth))
}
