//! Fast decimal text for f64, identical to Rust's `{}` (`Display`): the shortest digits that read back as the
//! same number, written out in full, never in exponent notation (`1`, `-0`, `0.0000001`).
//!
//! `Display` costs ~100 ns per number and dominated the `sample` command. `zmij` (Schubfach, a few ns)
//! computes shortest round-trip digits too, but differs from `Display` in two ways: it prints `1.0` and `1e-7`
//! (layout), and when the two shortest candidates are exactly as close as each other it keeps the one with an
//! even last digit where `Display` rounds up (`2086845729129147.25` prints as `…147.2` against `…147.3`). Such a
//! tie needs a number whose exact decimal expansion has at most 18 significant digits; [`push_csv_row`] uses zmij
//! only where neither difference can occur and `Display` itself everywhere else (integers, numbers with few
//! significant bits, extreme magnitudes: rare among noisy releases). The tests below pin the equality.

use std::io::Write;

/// Room a number on zmij's path can take: at most a sign, `0.000` and 17 digits (23 bytes), rounded up so that
/// [`copy_short`] can copy in two fixed 16-byte moves.
const FAST_ROOM: usize = 32;

/// Appends one CSV line to `out`: `values` exactly as `format!("{x}")` writes each, comma-separated, then a
/// newline.
///
/// The row's room is zeroed once and the numbers are copied into it, instead of growing `out` number by number:
/// at four numbers a row, the growth checks and copies cost about as much as zmij's digits.
pub fn push_csv_row(out: &mut Vec<u8>, values: &[f64]) {
    let room = |left: usize| left * (FAST_ROOM + 1) + 1;
    let mut end = out.len();
    out.resize(end + room(values.len()), 0);
    for (i, &x) in values.iter().enumerate() {
        if i > 0 {
            out[end] = b',';
            end += 1;
        }
        if zmij_is_display(x) {
            end += copy_short(&mut out[end..], zmij::Buffer::new().format_finite(x).as_bytes());
        } else {
            out.truncate(end);
            write!(out, "{x}").expect("writing to a Vec cannot fail");
            end = out.len();
            out.resize(end + room(values.len() - i), 0);
        }
    }
    out[end] = b'\n';
    out.truncate(end + 1);
}

/// Copies `text` (at most [`FAST_ROOM`] bytes) to the start of `to`, which has room for [`FAST_ROOM`] bytes,
/// and returns its length. From 16 bytes on, two overlapping fixed-size moves instead of a call to memmove
/// (which cost more than the digits themselves).
#[inline]
fn copy_short(to: &mut [u8], text: &[u8]) -> usize {
    let n = text.len();
    if (16..=FAST_ROOM).contains(&n) {
        let head: [u8; 16] = text[..16].try_into().expect("16 bytes");
        let tail: [u8; 16] = text[n - 16..].try_into().expect("16 bytes");
        to[..16].copy_from_slice(&head);
        to[n - 16..n].copy_from_slice(&tail);
    } else {
        to[..n].copy_from_slice(text);
    }
    n
}

/// Whether zmij's text for `x` is `Display`'s. With x = k·2^e, k odd, e < 0, the exact decimal expansion of x
/// ends at the digit of 10^e (x·10^−e = k·5^−e is an integer ending in 5), so it has E − e + 1 significant
/// digits, E = ⌊log₁₀|x|⌋. A tie between two shortest candidates of n ≤ 17 digits puts x exactly halfway between
/// them, so x has n + 1 ≤ 18 significant digits. For 10^−4 ≤ |x| < 10^15, E ≥ −4, so e < −21 gives at least
/// 19 digits: no tie. In that range zmij also writes no exponent, and x (not an integer, as e < 0) gets a
/// fractional part, not `.0`.
#[inline]
fn zmij_is_display(x: f64) -> bool {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    // Normal numbers only (the range check below excludes the rest): significand 2^52 + fraction.
    let significand = (bits & ((1 << 52) - 1)) | (1 << 52);
    let e = biased - 1075 + i64::from(significand.trailing_zeros());
    (1e-4..1e15).contains(&x.abs()) && e < -21
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, RngExt, SeedableRng};

    fn text(x: f64) -> String {
        let mut out = Vec::new();
        push_csv_row(&mut out, &[x]);
        assert_eq!(out.pop(), Some(b'\n'));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn special_values_and_exponent_ranges_match_display() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1e-5,
            1e-7,
            9.999999999999999e-6,
            1e15,
            1e16,
            1e17,
            1e22,
            1e23,
            12345678901234567.0,
            f64::from_bits(0x431da7e6898b0aed), // 2086845729129147.25: a tie, printed …147.3
            // Few significant bits (ties possible) and full-precision neighbours of the fast path's bounds.
            131073.0 / 131072.0,
            1e-4,
            1e15,
            0.5,
            0.375,
            123456.0,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            std::f64::consts::PI,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        // Every power of ten and its neighbours, where the two layouts switch.
        for e in -324..=308 {
            let p: f64 = format!("1e{e}").parse().unwrap();
            values.extend([p, p.next_up(), p.next_down(), -p, 5.0 * p, 0.5 * p]);
        }
        for x in values {
            assert_eq!(text(x), format!("{x}"), "bits {:#x}", x.to_bits());
        }
    }

    #[test]
    fn random_values_match_display() {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300_000 {
            // Any bit pattern (every exponent), values like the sampler's (in [−1, 1], angles, degrees), and
            // short decimals (ties between shortest candidates are likeliest there).
            let any = f64::from_bits(rng.next_u64());
            let unit = 2.0 * rng.random::<f64>() - 1.0;
            let degrees = 360.0 * rng.random::<f64>() - 180.0;
            let short = (rng.random_range(0..1_000_000) as f64) / 1000.0;
            let tiny = unit * 1e-6;
            // Dyadic numbers with 1 to 53 significant bits at every scale: where ties between two shortest
            // candidates live.
            let bits = rng.random_range(1..=53);
            let dyadic = (rng.next_u64() >> (64 - bits)) as f64 * 2f64.powi(rng.random_range(-80..40));
            for x in [any, unit, degrees, short, tiny, dyadic, -dyadic] {
                assert_eq!(text(x), format!("{x}"), "bits {:#x}", x.to_bits());
            }
        }
    }
}
