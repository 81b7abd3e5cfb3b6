//! Times of day as people write them: decimal hours (`13.5`), clock times (`13:30`, `13:30:15.25`) and
//! timestamps (`2024-05-01T13:30:00Z`, `2024-05-01 13:30:00+02:00`). A noisy time is written back in the
//! form it was read in: same precision, same date and offset (only the time of day is privatized).

/// How a time of day was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// A bare number of hours.
    DecimalHours,
    /// `HH:MM`.
    Minutes,
    /// `HH:MM:SS` with this many decimals of seconds (0–9).
    Seconds(u8),
}

/// A parsed time of day with what surrounds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockText<'a> {
    /// Everything before the time (`2024-05-01T`), empty for a bare time.
    pub prefix: &'a str,
    /// Everything after it (`Z`, `+02:00`), empty for a bare time.
    pub suffix: &'a str,
    /// How precisely it was written (the noisy time is written back the same way).
    pub precision: Precision,
    /// Hours since midnight, in [0, 24].
    pub hours: f64,
}

const FORMS: &str = "write hours (13.5), a clock time (13:30 or 13:30:15) or a timestamp (2024-05-01T13:30:00Z)";

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// Reads a time of day in any of the forms above.
pub fn parse(text: &str) -> Result<ClockText<'_>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err(format!("empty field; {FORMS}"));
    }
    if !t.contains(':') {
        let hours: f64 = t.parse().map_err(|_| format!("{t:?} is not a time of day; {FORMS}"))?;
        if !hours.is_finite() {
            return Err(format!("{hours} is not a finite number"));
        }
        if !(0.0..=24.0).contains(&hours) {
            return Err(format!("{hours} h is outside [0, 24]; {FORMS}"));
        }
        return Ok(ClockText { prefix: "", suffix: "", precision: Precision::DecimalHours, hours });
    }
    // A date YYYY-MM-DD followed by T or a space starts a timestamp.
    let (prefix, rest) = match t.as_bytes().get(10) {
        // `get` rather than slicing: byte 4 may fall inside a multi-byte character (`abc€1234 12:00`).
        Some(b'T' | b't' | b' ') if t.get(..4).and_then(|y| digits(y, 4)).is_some() && t.as_bytes()[4] == b'-' => {
            t.split_at(11)
        }
        _ => ("", t),
    };
    // The time runs over digits, ':' and '.'; what follows is the offset.
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.')).unwrap_or(rest.len());
    let (time, suffix) = rest.split_at(end);
    let suffix_ok = suffix.is_empty()
        || suffix == "Z"
        || suffix == "z"
        || ((suffix.starts_with('+') || suffix.starts_with('-'))
            && suffix[1..].bytes().all(|b| b.is_ascii_digit() || b == b':'));
    if !suffix_ok {
        return Err(format!("{t:?}: cannot read {suffix:?} after the time; {FORMS}"));
    }
    let bad = || format!("{t:?} is not a time of day; {FORMS}");
    let parts: Vec<&str> = time.split(':').collect();
    let h = match parts[0].len() {
        1 | 2 => parts[0].parse::<u32>().map_err(|_| bad())?,
        _ => return Err(bad()),
    };
    let m = parts.get(1).and_then(|p| digits(p, 2)).ok_or_else(bad)?;
    let (seconds, precision) = match parts.len() {
        2 => (0.0, Precision::Minutes),
        3 => {
            let (whole, frac) = parts[2].split_once('.').unwrap_or((parts[2], ""));
            let s = digits(whole, 2).ok_or_else(bad)?;
            if frac.len() > 9
                || !frac.bytes().all(|b| b.is_ascii_digit())
                || (parts[2].contains('.') && frac.is_empty())
            {
                return Err(bad());
            }
            let value: f64 = parts[2].parse().map_err(|_| bad())?;
            if s >= 60 {
                return Err(format!("{t:?}: seconds must be below 60"));
            }
            (value, Precision::Seconds(frac.len() as u8))
        }
        _ => return Err(bad()),
    };
    if h >= 24 || m >= 60 {
        return Err(format!("{t:?}: hours must be below 24 and minutes below 60"));
    }
    let hours = h as f64 + m as f64 / 60.0 + seconds / 3600.0;
    Ok(ClockText { prefix, suffix, precision, hours })
}

impl ClockText<'_> {
    /// `hours` (any value in [0, 24)) written in this text's form, rounded to its precision and wrapped at
    /// midnight; rounding a noisy time is post-processing and costs no privacy.
    pub fn format(&self, hours: f64) -> String {
        let (ticks_per_hour, decimals) = match self.precision {
            Precision::DecimalHours => return format!("{}{}{}", self.prefix, hours, self.suffix),
            Precision::Minutes => (60u64, 0u8),
            Precision::Seconds(d) => (3600 * 10u64.pow(d as u32), d),
        };
        let per_day = 24 * ticks_per_hour;
        let ticks = ((hours * ticks_per_hour as f64).round() as u64) % per_day;
        let (h, rest) = (ticks / ticks_per_hour, ticks % ticks_per_hour);
        let time = match self.precision {
            Precision::Minutes => format!("{h:02}:{rest:02}"),
            _ => {
                let per_second = 10u64.pow(decimals as u32);
                let (m, sub) = (rest / (60 * per_second), rest % (60 * per_second));
                let (s, frac) = (sub / per_second, sub % per_second);
                if decimals == 0 {
                    format!("{h:02}:{m:02}:{s:02}")
                } else {
                    format!("{h:02}:{m:02}:{s:02}.{frac:0width$}", width = decimals as usize)
                }
            }
        };
        format!("{}{time}{}", self.prefix, self.suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_every_form() {
        let c = parse("13.5").unwrap();
        assert_eq!((c.hours, c.precision), (13.5, Precision::DecimalHours));
        let c = parse("7:05").unwrap();
        assert!((c.hours - (7.0 + 5.0 / 60.0)).abs() < 1e-15);
        assert_eq!(c.format(23.999), "00:00");
        assert_eq!(c.format(9.5), "09:30");
        let c = parse("2024-05-01T13:30:15.250Z").unwrap();
        assert_eq!((c.prefix, c.suffix, c.precision), ("2024-05-01T", "Z", Precision::Seconds(3)));
        assert!((c.hours - (13.5 + 15.25 / 3600.0)).abs() < 1e-12);
        assert_eq!(c.format(c.hours), "2024-05-01T13:30:15.250Z");
        let c = parse("2024-05-01 08:00:00+02:00").unwrap();
        assert_eq!(c.format(20.0 + 59.0 / 60.0 + 59.6 / 3600.0), "2024-05-01 21:00:00+02:00");
        // Multi-byte text where a date would be: an error, never a panic.
        for bad in ["abc€1234 12:00", "€€€€€€€€ 12:00", "2024-05-01€12:00", "12:00€", "１２:００"]
        {
            assert!(parse(bad).is_err(), "{bad}");
        }
        for bad in ["", "25:00", "12:60", "12:5", "12:30:61", "noon", "12:30pm", "2024-05-01T12", "-1", "24.5", "NaN"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
