//! The mean of bounded numeric columns (`real`): its plans and its pass, each value clamped, dropped or refused
//! against its column's public bounds (`docs/proofs/scalar_mechanisms.md` §7).

use super::*;
use crate::Error;
use crate::columns::{Decoded, Problem};
use manifold_dp::manifold::KarcherOptions;
use manifold_dp::manifold::ball::Outside;
use manifold_dp::registry::Space;

impl MeanPlan {
    /// The mean of each of the numeric `columns` (default `value`) over rows whose values lie in the public
    /// bounds [`lo`, `hi`]; a value outside them is refused, its row dropped, or clamped (`Outside::Clip`).
    /// The release adds Laplace noise at ℓ₁ sensitivity k·(hi − lo)/n (docs/proofs/scalar_mechanisms.md §7).
    pub fn bounded(columns: Option<&[String]>, lo: f64, hi: f64, outside: Outside) -> Result<Self, Error> {
        Self::real(columns.map(<[String]>::to_vec), &[(lo, hi)], outside)
    }

    /// The mean of each of the numeric `columns`, each over its own public bounds (`bounds[k]` for
    /// `columns[k]`; one pair per column): the release adds Laplace noise at ℓ₁ sensitivity Σ_k (hi_k − lo_k)/n
    /// to every column (docs/proofs/scalar_mechanisms.md §7). One shared pair for columns of different ranges
    /// either clips the narrow ones' outliers to a range far too wide or noises them as if they were as wide
    /// as the widest.
    pub fn bounded_per_column(columns: &[String], bounds: &[(f64, f64)], outside: Outside) -> Result<Self, Error> {
        if columns.is_empty() || columns.len() != bounds.len() {
            return Err(not_applicable(&format!(
                "give one pair of bounds per column: {} columns, {} pairs of bounds",
                columns.len(),
                bounds.len()
            )));
        }
        Self::real(Some(columns.to_vec()), bounds, outside)
    }

    fn real(columns: Option<Vec<String>>, bounds: &[(f64, f64)], outside: Outside) -> Result<Self, Error> {
        let mut checked = Vec::with_capacity(bounds.len());
        for &(lo, hi) in bounds {
            let (lo, hi) = manifold_dp::mechanism::scalar::bounded::check_bounds(lo, hi)?;
            if !(hi - lo).is_finite() {
                return Err(not_applicable("the bounds are too far apart: hi − lo overflows"));
            }
            checked.push((lo, hi));
        }
        let radius = checked.iter().map(|(lo, hi)| hi - lo).fold(0.0, f64::max);
        Ok(MeanPlan {
            space: Space::Real,
            geometry: Geometry::Real { bounds: checked.into() },
            format: None,
            columns,
            radius,
            outside,
            options: KarcherOptions::default(),
        })
    }

    /// The bounds of column `k` of a real mean (its own pair, or the one pair every column shares).
    fn bounds_of(bounds: &[(f64, f64)], k: usize) -> (f64, f64) {
        bounds[if bounds.len() == 1 { 0 } else { k }]
    }

    /// A pass on `real`: Σ (x − base) over the rows used, each value refused, its row dropped, or clamped
    /// outside its column's bounds, by `outside` (the plan's rule in the fit; [`Outside::Drop`] to count the
    /// rows in the bounds, [`MeanPlan::count_inside`]).
    pub(super) fn real_pass(
        &self,
        bounds: &[(f64, f64)],
        decoded: Decoded<Vec<f64>>,
        base: &[f64],
        outside: Outside,
    ) -> Result<MeanPass, Error> {
        if bounds.len() > 1 && bounds.len() != base.len() {
            return Err(wrong_length(bounds.len(), base.len()));
        }
        if let Some(first) = decoded.problems.into_iter().next() {
            return Ok(MeanPass { problem: Some(first), ..MeanPass::default() });
        }
        let mut pass = MeanPass::default();
        let mut sum = vec![0.0; base.len()];
        for (row, x) in decoded.points.iter().enumerate() {
            if x.len() != base.len() {
                return Err(wrong_length(base.len(), x.len()));
            }
            // The value farthest outside its column's bounds, and those bounds.
            let (distance, (lo, hi)) = x
                .iter()
                .enumerate()
                .map(|(k, &v)| {
                    let (lo, hi) = Self::bounds_of(bounds, k);
                    ((lo - v).max(v - hi), (lo, hi))
                })
                .fold((f64::NEG_INFINITY, (0.0, 0.0)), |a, b| if b.0 > a.0 { b } else { a });
            if distance > 0.0 {
                match outside {
                    Outside::Error => {
                        let reason = format!(
                            "a value is {} outside the bounds [{lo}, {hi}]",
                            manifold_dp::privacy::guarantee::short(distance)
                        );
                        pass.problem = Some((row, Problem { column: None, reason }));
                        pass.outside_distance = Some(distance);
                        return Ok(pass);
                    }
                    Outside::Drop => {
                        pass.dropped += 1;
                        continue;
                    }
                    Outside::Clip => pass.clipped += 1,
                }
            }
            for (k, (s, (&v, &b))) in sum.iter_mut().zip(x.iter().zip(base)).enumerate() {
                let (lo, hi) = Self::bounds_of(bounds, k);
                *s += v.clamp(lo, hi) - b;
            }
            pass.used += 1;
        }
        if pass.used > 0 {
            pass.sum = Some(sum);
        }
        Ok(pass)
    }
}
