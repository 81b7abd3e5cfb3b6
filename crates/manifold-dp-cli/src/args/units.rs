//! Parsing of levels (`0.683`, `68.3%`) and rotations given on the command line (distances with units
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

/// A rotation `w,x,y,z` (scalar first).
pub fn parse_quat_wxyz(s: &str) -> Result<[f64; 4], BadInput> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let values: Result<Vec<f64>, _> = parts.iter().map(|p| p.parse::<f64>()).collect();
    match values {
        Ok(v) if v.len() == 4 => Ok([v[0], v[1], v[2], v[3]]),
        _ => Err(BadInput(format!("cannot read rotation {s:?}: write four numbers w,x,y,z (scalar first)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_quaternions() {
        assert!((parse_level("68.3%").unwrap() - 0.683).abs() < 1e-15);
        assert_eq!(parse_level("0.5").unwrap(), 0.5);
        assert!(parse_level("half").is_err());
        assert_eq!(parse_quat_wxyz("1, 0,0,0").unwrap(), [1.0, 0.0, 0.0, 0.0]);
        assert!(parse_quat_wxyz("1,0,0").is_err());
    }
}
