//! Parsing of levels (`0.683`, `68.3%`) given on the command line (distances with units
//! are parsed by `manifold_dp::registry::Space::parse_distance`).

use crate::BadInput;

/// A probability level from `0.683` or `68.3%`.
pub fn parse_level(s: &str) -> Result<f64, BadInput> {
    let t = s.trim();
    let (number, divisor) = match t.strip_suffix('%') {
        Some(n) => (n, 100.0),
        None => (t, 1.0),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| BadInput(format!("cannot read level {s:?}: write a probability like 0.683 or 68.3%")))?;
    Ok(value / divisor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert!((parse_level("68.3%").unwrap() - 0.683).abs() < 1e-15);
        assert_eq!(parse_level("0.5").unwrap(), 0.5);
        assert!(parse_level("half").is_err());
    }
}
