//! The wall-clock date a run's simulated time 0 stands for (`--start-time`), as recordings
//! stamp it: RFC 3339 UTC or seconds since 1970, to nanoseconds.

/// Nanoseconds since 1970 of `2026-01-01T00:00:00Z` (UTC, optional fraction) or of a number of
/// seconds.
pub fn parse_start_time(text: &str) -> Result<u64, String> {
    if let Ok(seconds) = text.parse::<f64>() {
        if !(seconds >= 0.0 && seconds.is_finite()) {
            return Err("negative or not finite".into());
        }
        return Ok((seconds * 1e9).round() as u64);
    }
    let t = text.trim();
    let t = t
        .strip_suffix('Z')
        .or_else(|| t.strip_suffix("+00:00"))
        .ok_or("expected a UTC time ending in Z, like 2026-01-01T00:00:00Z")?;
    let (date, time) = t.split_once(['T', ' ']).ok_or("expected DATE T TIME")?;
    let num = |s: &str| s.parse::<i64>().map_err(|_| "expected digits".to_owned());
    let d: Vec<&str> = date.split('-').collect();
    let tm: Vec<&str> = time.split(':').collect();
    if !(d.len() == 3 && tm.len() == 3) {
        return Err("expected YYYY-MM-DDTHH:MM:SS".into());
    }
    let (y, m, day) = (num(d[0])?, num(d[1])?, num(d[2])?);
    let (hh, mm) = (num(tm[0])?, num(tm[1])?);
    let ss: f64 = tm[2].parse().map_err(|_| "expected seconds".to_owned())?;
    let in_range = (1970..=9999).contains(&y)
        && (1..=12).contains(&m)
        && (1..=31).contains(&day)
        && (0..24).contains(&hh)
        && (0..60).contains(&mm)
        && (0.0..61.0).contains(&ss);
    if !in_range {
        return Err("date or time out of range".into());
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let (yy, mm_) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm_ + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hh * 3600 + mm * 60;
    Ok((seconds as f64 * 1e9 + ss * 1e9).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_start_time;

    #[test]
    fn start_times_parse_as_utc() {
        assert_eq!(parse_start_time("1970-01-01T00:00:00Z").unwrap(), 0);
        assert_eq!(
            parse_start_time("2026-11-22T05:00:00Z").unwrap(),
            1_795_323_600 * 1_000_000_000
        );
        assert_eq!(parse_start_time("12.5").unwrap(), 12_500_000_000);
        assert!(parse_start_time("yesterday").is_err());
        assert!(parse_start_time("2026-13-01T00:00:00Z").is_err());
    }
}
