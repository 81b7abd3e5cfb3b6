//! Numbers for people: six significant digits, rounded in the direction a privacy statement needs.

/// How [`short_rounded`] rounds to its significant digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// To the nearest printed value (measurements, estimates).
    Nearest,
    /// Never below the value: privacy costs (ε, δ, ρ, μ, θ), so that a printed cost is never smaller than
    /// the one incurred.
    Up,
    /// Never above the value: lower bounds (an audit's "ε ≥ …"), so that a printed bound still holds.
    Down,
}

/// Significant digits printed by [`short`], [`short_up`] and [`short_down`].
pub const SHORT_DIGITS: usize = 6;

/// `x` with six significant digits, rounded to nearest, without trailing zeros: plain decimals for
/// 1e-4 ≤ |x| < 1e6 (`0.523599`, `3186.1`), scientific notation outside (`1e300`, `1.23457e-7`), so no value
/// prints as hundreds of digits and none small prints as 0. The exact value belongs in JSON output.
pub fn short(x: f64) -> String {
    short_rounded(x, Rounding::Nearest)
}

/// [`short`] rounded up in the last printed digit: what a privacy cost prints as (the printed number, read
/// back as an f64, is never below `x`).
pub fn short_up(x: f64) -> String {
    short_rounded(x, Rounding::Up)
}

/// [`short`] rounded down in the last printed digit: what a lower bound prints as.
pub fn short_down(x: f64) -> String {
    short_rounded(x, Rounding::Down)
}

/// [`short`] with the rounding direction given.
pub fn short_rounded(x: f64, rounding: Rounding) -> String {
    if x == 0.0 || !x.is_finite() {
        // "-0" would confuse more than inform; NaN and inf print as Rust writes them.
        return if x == 0.0 { "0".to_string() } else { format!("{x}") };
    }
    // Rust's `{:e}` rounds the exact binary value correctly to the digits asked for; the digits and the
    // exponent are then laid out by hand, so no second rounding happens.
    let sci = format!("{:.*e}", SHORT_DIGITS - 1, x.abs());
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` writes an exponent");
    let mut digits: u64 = mantissa.replace('.', "").parse().expect("`{:e}` writes digits");
    let mut exponent: i32 = exponent.parse().expect("`{:e}` writes an integer exponent");
    let lay_out = |digits: u64, exponent: i32| lay_out(x < 0.0, digits, exponent);
    // Round in the direction asked for, judged on the value the text reads back as.
    let read_back = |text: &str| text.parse::<f64>().expect("laid-out numbers parse");
    let away = match rounding {
        Rounding::Nearest => false,
        Rounding::Up => read_back(&lay_out(digits, exponent)) < x,
        Rounding::Down => read_back(&lay_out(digits, exponent)) > x,
    };
    // Moving away from zero in magnitude is "up" for positive x and "down" for negative x.
    let toward_zero = match rounding {
        Rounding::Up => x < 0.0,
        Rounding::Down => x > 0.0,
        Rounding::Nearest => false,
    };
    if away {
        if toward_zero {
            digits -= 1;
            if digits < 10u64.pow(SHORT_DIGITS as u32 - 1) {
                digits = 10u64.pow(SHORT_DIGITS as u32) - 1;
                exponent -= 1;
            }
        } else {
            digits += 1;
            if digits == 10u64.pow(SHORT_DIGITS as u32) {
                digits = 10u64.pow(SHORT_DIGITS as u32 - 1);
                exponent += 1;
            }
        }
    }
    lay_out(digits, exponent)
}

/// Lays out `SHORT_DIGITS` significant `digits` (d.ddddd × 10^exponent) as text, trailing zeros removed.
fn lay_out(negative: bool, digits: u64, exponent: i32) -> String {
    let text = format!("{digits:0width$}", width = SHORT_DIGITS);
    let sign = if negative { "-" } else { "" };
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if (-4..6).contains(&exponent) {
        let body = if exponent >= 0 {
            let split = exponent as usize + 1;
            format!("{}.{}", &text[..split], &text[split..])
        } else {
            format!("0.{}{text}", "0".repeat((-exponent - 1) as usize))
        };
        format!("{sign}{}", trim(body))
    } else {
        format!("{sign}{}e{exponent}", trim(format!("{}.{}", &text[..1], &text[1..])))
    }
}
