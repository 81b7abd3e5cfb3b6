//! The summary of a `privatize` run: printed for people on standard error, written as JSON with `--report`.
//! It states what was released and under which guarantee; it never contains the seed or the key.

use manifold_dp::mechanism::scalar::BoundedLaplace;
use manifold_dp::mechanism::{Mechanism, So3Mechanism, SphereMechanism};
use manifold_dp::privacy::Guarantee;
use manifold_dp::privacy::guarantee::short;
use manifold_dp::registry::{DistanceUnit, Space};
use serde::Serialize;

/// Probability level of the radius reported beside every release (one standard deviation's worth).
pub const RADIUS_LEVEL: f64 = 0.683;

/// `reason` with the values it quotes elided: every quoted text (`"…"`) and every number (`…`), so that a report
/// people publish names rows and what was wrong with them but copies no raw value of the input. Numbers of the
/// message's own (a bound, a component's index) are elided too: the rejects file (mode 0600) holds the rows
/// themselves.
pub fn without_values(reason: &str) -> String {
    let chars: Vec<char> = reason.chars().collect();
    let mut out = String::with_capacity(reason.len());
    let mut i = 0;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            // A quoted text, as `{:?}` writes it (escaped quotes inside): elided up to its closing quote.
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"…\"");
            i = j + 1;
            continue;
        }
        let after_word = i > 0 && word(chars[i - 1]);
        let starts_number = c.is_ascii_digit()
            || ((c == '-' || c == '−' || c == '+' || c == '.')
                && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
                && !after_word);
        if starts_number && !after_word {
            let mut j = i + 1;
            while j < chars.len() {
                let d = chars[j];
                let exponent_sign = (d == '-' || d == '+') && matches!(chars[j - 1], 'e' | 'E');
                if d.is_ascii_digit() || d == '.' || d == 'e' || d == 'E' || exponent_sign {
                    j += 1;
                } else {
                    break;
                }
            }
            out.push('…');
            i = j;
            continue;
        }
        // Words that are numbers: NaN, inf.
        if !after_word && word(c) {
            let mut j = i;
            while j < chars.len() && word(chars[j]) {
                j += 1;
            }
            let w: String = chars[i..j].iter().collect();
            let w = w.trim_start_matches(['-', '+']);
            if matches!(w.to_ascii_lowercase().as_str(), "nan" | "inf" | "infinity") {
                out.push('…');
            } else {
                out.extend(&chars[i..j]);
            }
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

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
    /// Why, without the row's values ([`without_values`]).
    pub reason: String,
}

/// What a privatize run did.
#[derive(Debug, Clone, Serialize)]
pub struct PrivatizeReport {
    pub input: String,
    pub output: String,
    pub input_format: String,
    pub output_format: String,
    pub space: String,
    pub format: String,
    pub columns: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_rotation_format: Option<String>,
    pub output_columns: Vec<String>,
    pub rows: u64,
    pub rejected_rows: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejects_file: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_rejections: Vec<Rejection>,
    #[serde(flatten)]
    pub noise: NoiseSummary,
    /// `os` for releases; `seeded (experiments only)` when --seed was given. The seed itself is never recorded.
    pub randomness: &'static str,
    pub seconds: f64,
    pub rows_per_second: f64,
}

/// The mechanism's part of a report: what it guarantees and how far releases move, in radians, degrees and
/// the space's own unit (hours, km).
#[derive(Debug, Clone, Serialize)]
pub struct NoiseSummary {
    pub mechanism: &'static str,
    /// Space real: the public bounds every value was clamped into; the distances below are then per value,
    /// in the values' own unit (the angle fields are absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<(f64, f64)>,
    /// ε per radian.
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
    /// The space's own unit (`h`, `km`) where it has one besides degrees.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epsilon_per_unit: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radius_in_unit: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_error_in_unit: Option<f64>,
    /// The guarantee restated per unit (e.g. ε per km of great-circle distance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarantee_in_unit: Option<Guarantee>,
}

impl NoiseSummary {
    /// The summary of an SO(3) mechanism.
    pub fn so3(mech: &So3Mechanism) -> anyhow::Result<Self> {
        Ok(Self::build(
            mech.name(),
            mech.guarantee(),
            mech.concentration(),
            mech.radius(RADIUS_LEVEL)?,
            mech.mean_angle(),
            None,
        ))
    }

    /// The summary of a directional mechanism on `space`.
    pub fn sphere(mech: &SphereMechanism, space: Space) -> anyhow::Result<Self> {
        let unit = space.natural_unit();
        let unit = (unit.name != "deg").then_some(unit);
        Ok(Self::build(
            mech.name(),
            mech.guarantee(),
            mech.concentration(),
            mech.radius(RADIUS_LEVEL)?,
            mech.mean_angle(),
            unit,
        ))
    }

    /// The summary of the per-row Laplace on plain numbers: distances per value, in its own unit.
    pub fn real(mech: &BoundedLaplace) -> anyhow::Result<Self> {
        let unit = DistanceUnit { name: "unit", radians: 1.0 };
        let mut s =
            Self::build(mech.name(), mech.guarantee(), None, mech.radius(RADIUS_LEVEL)?, mech.mean_error(), Some(unit));
        s.bounds = Some(mech.bounds());
        s.guarantee_in_unit = None;
        s.epsilon_per_unit = None;
        Ok(s)
    }

    fn build(
        mechanism: &'static str,
        guarantee: Guarantee,
        concentration: Option<f64>,
        rho: f64,
        mean: f64,
        unit: Option<DistanceUnit>,
    ) -> Self {
        let epsilon = guarantee.epsilon().expect("a per-record mechanism has a metric-DP epsilon");
        NoiseSummary {
            mechanism,
            bounds: None,
            epsilon,
            epsilon_per_deg: epsilon.to_radians(),
            concentration,
            guarantee,
            radius_level: RADIUS_LEVEL,
            radius_rad: rho,
            radius_deg: rho.to_degrees(),
            mean_angle_rad: mean,
            mean_angle_deg: mean.to_degrees(),
            unit: unit.map(|u| u.name),
            epsilon_per_unit: unit.map(|u| epsilon * u.radians),
            radius_in_unit: unit.map(|u| rho / u.radians),
            mean_error_in_unit: unit.map(|u| mean / u.radians),
            guarantee_in_unit: unit.map(|u| guarantee.in_unit(u.name, u.radians)),
        }
    }

    /// Lines for people: mechanism, guarantee, radius and mean error.
    pub fn human(&self) -> String {
        if let Some((lo, hi)) = self.bounds {
            return format!(
                "mechanism: {} on values clamped to [{lo}, {hi}]\nguarantee: {} per row\nradius at {:.1}%: {} per \
                 value; mean error {} per value (from the clamped value)",
                self.mechanism,
                self.guarantee,
                100.0 * self.radius_level,
                short(self.radius_rad),
                short(self.mean_angle_rad)
            );
        }
        let mut s = format!("mechanism: {}", self.mechanism);
        if let Some(k) = self.concentration {
            s += &format!(" (concentration κ = {})", short(k));
        }
        s += &format!("\nguarantee: {}", self.guarantee);
        if let Some(g) = &self.guarantee_in_unit {
            s += &format!("\n           i.e. {g}");
        }
        let in_unit = |v: Option<f64>| match (v, self.unit) {
            (Some(v), Some(u)) => format!("{} {u}, ", short(v)),
            _ => String::new(),
        };
        s += &format!(
            "\nradius of indistinguishability at {:.1}%: {}{} rad ({}°); mean error {}{}°",
            100.0 * self.radius_level,
            in_unit(self.radius_in_unit),
            short(self.radius_rad),
            short(self.radius_deg),
            in_unit(self.mean_error_in_unit),
            short(self.mean_angle_deg)
        );
        s
    }
}

impl PrivatizeReport {
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
        s += "\n";
        s += &self.noise.human();
        if self.randomness != "os" {
            s += "\nrandomness: seeded; for experiments only, NOT a private release";
        }
        s += &format!("\ntime: {:.2} s ({:.2} M rows/s)", self.seconds, self.rows_per_second / 1e6);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::without_values;

    #[test]
    fn reasons_in_reports_quote_no_values() {
        let cases = [
            ("\"abc,\\\"x\" is not a number", "\"…\" is not a number"),
            ("-1.5e-3 is not a finite number", "… is not a finite number"),
            ("NaN is not a finite number", "… is not a finite number"),
            (
                "latitude 123.4° is outside [−90°, 90°]; are latitude and longitude swapped?",
                "latitude …° is outside […°, …°]; are latitude and longitude swapped?",
            ),
            ("component c2 is not a finite number (inf)", "component c2 is not a finite number (…)"),
            ("empty field; a number is needed", "empty field; a number is needed"),
        ];
        for (reason, redacted) in cases {
            assert_eq!(without_values(reason), redacted, "{reason}");
        }
    }
}
