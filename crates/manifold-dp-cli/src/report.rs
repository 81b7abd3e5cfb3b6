//! The summary of a `privatize` run: printed for people on standard error, written as JSON with `--report`.
//! It states what was released and under which guarantee; it never contains the seed or the key.

use manifold_dp::mechanism::{Mechanism, So3Mechanism};
use manifold_dp::privacy::Guarantee;
use serde::Serialize;

/// Probability level of the radius reported beside every release (one standard deviation's worth).
pub const RADIUS_LEVEL: f64 = 0.683;

/// One row set aside, for the report (the first few only).
#[derive(Debug, Clone, Serialize)]
pub struct Rejection {
    /// 1-based data row number.
    pub row: u64,
    /// Line in the file (CSV).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The column at fault, if one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// Why.
    pub reason: String,
}

/// What a privatize run did.
#[derive(Debug, Clone, Serialize)]
pub struct PrivatizeReport {
    pub input: String,
    pub output: String,
    pub input_format: String,
    pub output_format: String,
    pub space: &'static str,
    pub format: String,
    pub columns: Vec<String>,
    pub output_rotation_format: String,
    pub output_columns: Vec<String>,
    pub rows: u64,
    pub rejected_rows: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejects_file: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_rejections: Vec<Rejection>,
    pub mechanism: &'static str,
    pub epsilon: f64,
    pub epsilon_per_deg: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concentration: Option<f64>,
    pub guarantee: Guarantee,
    pub radius_level: f64,
    pub radius_rad: f64,
    pub radius_deg: f64,
    pub mean_angle_rad: f64,
    pub mean_angle_deg: f64,
    /// `os` for releases; `seeded (experiments only)` when --seed was given. The seed itself is never recorded.
    pub randomness: &'static str,
    pub seconds: f64,
    pub rows_per_second: f64,
}

impl PrivatizeReport {
    /// The mechanism's part of the report.
    pub fn mechanism_fields(mech: &So3Mechanism) -> anyhow::Result<(f64, f64, f64)> {
        let rho = mech.radius(RADIUS_LEVEL)?;
        Ok((mech.guarantee().epsilon(), rho, mech.mean_angle()))
    }

    /// The summary for people.
    pub fn human(&self) -> String {
        let mut s = format!(
            "privatized {} rows of {} -> {} ({} columns {})",
            self.rows,
            self.input,
            self.output,
            self.format,
            self.columns.join(",")
        );
        if self.rejected_rows > 0 {
            s += &format!(
                "\nset aside {} invalid rows in {}",
                self.rejected_rows,
                self.rejects_file.as_deref().unwrap_or("?")
            );
            for r in &self.first_rejections {
                let line = r.line.map(|l| format!(" (line {l})")).unwrap_or_default();
                let col = r.column.as_ref().map(|c| format!(", column {c:?}")).unwrap_or_default();
                s += &format!("\n  row {}{line}{col}: {}", r.row, r.reason);
            }
            if self.rejected_rows > self.first_rejections.len() as u64 {
                s += "\n  …";
            }
        }
        s += &format!("\nmechanism: {}", self.mechanism);
        if let Some(k) = self.concentration {
            s += &format!(" (concentration κ = {k})");
        }
        s += &format!("\nguarantee: {}", self.guarantee);
        s += &format!(
            "\nradius of indistinguishability at {:.1}%: {:.4} rad ({:.3}°); mean angular error {:.3}°",
            100.0 * self.radius_level,
            self.radius_rad,
            self.radius_deg,
            self.mean_angle_deg
        );
        if self.randomness != "os" {
            s += "\nrandomness: seeded; for experiments only, NOT a private release";
        }
        s += &format!("\ntime: {:.2} s ({:.2} M rows/s)", self.seconds, self.rows_per_second / 1e6);
        s
    }
}
