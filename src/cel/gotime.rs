//! Go's `time.ParseDuration` and `time.Parse(time.RFC3339, …)` as CEL's `duration()` and
//! `timestamp()` use them, with CEL's range limits: strict where the `cel` crate and
//! chrono are lenient (`1h 30m`, lower-case `t`, second 60), and accepting `µs`.

/// CEL's duration range: ±10000 years in seconds (cel-go `maxUnixTime` bound).
const MAX_DURATION_SECONDS: i128 = 315_576_000_000;
/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
pub const MIN_UNIX_SECONDS: i64 = -62_135_596_800;
pub const MAX_UNIX_SECONDS: i64 = 253_402_300_799;

/// Nanoseconds of a Go duration string.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration \"{s}\"");
    let mut rest = s;
    let mut neg = false;
    if let Some(r) = rest.strip_prefix('-') {
        neg = true;
        rest = r;
    } else if let Some(r) = rest.strip_prefix('+') {
        rest = r;
    }
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let int_part = &rest[..int_len];
        rest = &rest[int_len..];
        let mut frac_part = "";
        if let Some(r) = rest.strip_prefix('.') {
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            frac_part = &r[..n];
            rest = &r[n..];
            if int_len == 0 && n == 0 {
                return Err(invalid());
            }
        } else if int_len == 0 {
            return Err(invalid());
        }
        let unit_len = rest
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let scale: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "" => return Err(format!("time: missing unit in duration \"{s}\"")),
            _ => return Err(format!("time: unknown unit \"{unit}\" in duration \"{s}\"")),
        };
        let int: u128 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().map_err(|_| invalid())?
        };
        let mut v = int.checked_mul(scale).ok_or_else(invalid)?;
        if !frac_part.is_empty() {
            let mut f: u128 = 0;
            let mut div: u128 = 1;
            for d in frac_part.bytes().take(30) {
                f = f * 10 + u128::from(d - b'0');
                div *= 10;
            }
            v += f * scale / div;
        }
        total = total.checked_add(v).ok_or_else(invalid)?;
        if total > (1u128 << 63) {
            return Err(invalid());
        }
    }
    let signed = if neg { -(total as i128) } else { total as i128 };
    if signed > i64::MAX as i128 || signed < i64::MIN as i128 {
        return Err(invalid());
    }
    Ok(signed as i64)
}

/// Whether a duration in nanoseconds is within CEL's range.
pub fn duration_in_range(nanos: i128) -> bool {
    nanos.abs() <= MAX_DURATION_SECONDS * 1_000_000_000
}

/// A parsed RFC 3339 timestamp: Unix seconds, nanoseconds, and the UTC offset in
/// seconds it was written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timestamp {
    pub seconds: i64,
    pub nanos: u32,
    /// The UTC offset it was written with (Go keeps it as the time's location).
    pub offset: i32,
}

pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// `time.Parse(time.RFC3339, s)` plus CEL's year range check.
pub fn parse_rfc3339(s: &str) -> Result<Timestamp, String> {
    let err = || {
        format!(
            "parsing time \"{s}\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"{s}\" as \"2006\""
        )
    };
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<u32> {
        let part = b.get(from..from + len)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let year = num(0, 4).ok_or_else(err)? as i64;
    if b.get(4) != Some(&b'-') {
        return Err(err());
    }
    let month = num(5, 2).ok_or_else(err)?;
    if b.get(7) != Some(&b'-') {
        return Err(err());
    }
    let day = num(8, 2).ok_or_else(err)?;
    if b.get(10) != Some(&b'T') {
        return Err(err());
    }
    let hour = num(11, 2).ok_or_else(err)?;
    if b.get(13) != Some(&b':') {
        return Err(err());
    }
    let minute = num(14, 2).ok_or_else(err)?;
    if b.get(16) != Some(&b':') {
        return Err(err());
    }
    let second = num(17, 2).ok_or_else(err)?;
    let mut i = 19;
    let mut nanos = 0u32;
    if matches!(b.get(i), Some(b'.') | Some(b',')) {
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == start {
            return Err(err());
        }
        let digits = &s[start..j];
        let mut n: u64 = 0;
        for (k, d) in digits.bytes().enumerate() {
            if k < 9 {
                n = n * 10 + u64::from(d - b'0');
            }
        }
        for _ in digits.len()..9 {
            n *= 10;
        }
        nanos = n as u32;
        i = j;
    }
    let offset: i64 = match b.get(i) {
        Some(b'Z') => {
            i += 1;
            0
        }
        Some(b'+') | Some(b'-') => {
            let sign = if b[i] == b'-' { -1 } else { 1 };
            let oh = num(i + 1, 2).ok_or_else(err)?;
            if b.get(i + 3) != Some(&b':') {
                return Err(err());
            }
            let om = num(i + 4, 2).ok_or_else(err)?;
            if oh > 23 || om > 59 {
                return Err(format!(
                    "parsing time \"{s}\": time zone offset hour out of range"
                ));
            }
            i += 6;
            sign * (i64::from(oh) * 3600 + i64::from(om) * 60)
        }
        _ => return Err(err()),
    };
    if i != b.len() {
        return Err(format!("parsing time \"{s}\": extra text"));
    }
    if !(1..=12).contains(&month) {
        return Err(format!("parsing time \"{s}\": month out of range"));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(format!("parsing time \"{s}\": day out of range"));
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!(
            "parsing time \"{s}\": hour, minute or second out of range"
        ));
    }
    let days = days_from_civil(year, month, day);
    let seconds =
        days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second)
            - offset;
    if !(MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&seconds) {
        return Err("timestamp out of range".into());
    }
    Ok(Timestamp {
        seconds,
        nanos,
        offset: offset as i32,
    })
}

/// RFC 3339 in the timestamp's own offset (`Z` for UTC) with Go's `time.RFC3339Nano`
/// trimming, as CEL prints timestamps.
pub fn format_rfc3339(ts: Timestamp) -> String {
    let local = ts.seconds + i64::from(ts.offset);
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    if ts.nanos > 0 {
        let frac = format!("{:09}", ts.nanos);
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    if ts.offset == 0 {
        s.push('Z');
    } else {
        let sign = if ts.offset < 0 { '-' } else { '+' };
        let minutes = ts.offset.unsigned_abs() / 60;
        s.push_str(&format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60));
    }
    s
}

/// A duration as cel-go prints it (`1.5s`, `3600s`): seconds with trimmed fraction.
pub fn format_duration(nanos: i64) -> String {
    let neg = nanos < 0;
    let n = (nanos as i128).unsigned_abs();
    let secs = n / 1_000_000_000;
    let frac = n % 1_000_000_000;
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    s.push_str(&secs.to_string());
    if frac > 0 {
        let f = format!("{frac:09}");
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    s.push('s');
    s
}

/// Go's `time` package quoting of values in parse errors: ASCII printable characters
/// as is (with `"` and `\` escaped), every byte of anything else as `\xNN`.
pub fn time_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out.push('"');
    out
}

/// `time.Parse("2006-01-02T15:04:05", s)` (strfmt's `ISO8601LocalTime`, the last layout
/// `strfmt.ParseDateTime` tries, whose error it reports): the time in UTC, or Go's
/// error text.
pub fn parse_iso8601_local(s: &str) -> Result<Timestamp, String> {
    const LAYOUT: &str = "2006-01-02T15:04:05";
    let b = s.as_bytes();
    let cannot = |rest: usize, elem: &str| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            time_quote(s),
            time_quote(LAYOUT),
            time_quote(&s[rest..]),
            time_quote(elem)
        )
    };
    let range = |what: &str| format!("parsing time {}: {what} out of range", time_quote(s));
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    // A one- or two-digit number at `i` (exactly two when `fixed`).
    let getnum = |i: usize, fixed: bool| -> Option<(u32, usize)> {
        if !digit(i) {
            return None;
        }
        if !digit(i + 1) {
            if fixed {
                return None;
            }
            return Some((u32::from(b[i] - b'0'), i + 1));
        }
        Some((
            u32::from(b[i] - b'0') * 10 + u32::from(b[i + 1] - b'0'),
            i + 2,
        ))
    };
    let lit = |i: usize, c: u8, elem: &str| -> Result<usize, String> {
        if b.get(i) == Some(&c) {
            Ok(i + 1)
        } else {
            Err(cannot(i, elem))
        }
    };
    if b.len() < 4 || !b[..4].iter().all(u8::is_ascii_digit) {
        return Err(cannot(0, "2006"));
    }
    let year = i64::from(
        b[..4]
            .iter()
            .fold(0u32, |n, d| n * 10 + u32::from(d - b'0')),
    );
    let i = lit(4, b'-', "-")?;
    let (month, i) = getnum(i, true).ok_or_else(|| cannot(i, "01"))?;
    if !(1..=12).contains(&month) {
        return Err(range("month"));
    }
    let i = lit(i, b'-', "-")?;
    let (day, i) = getnum(i, true).ok_or_else(|| cannot(i, "02"))?;
    let i = lit(i, b'T', "T")?;
    let (hour, i) = getnum(i, false).ok_or_else(|| cannot(i, "15"))?;
    if hour >= 24 {
        return Err(range("hour"));
    }
    let i = lit(i, b':', ":")?;
    let (minute, i) = getnum(i, true).ok_or_else(|| cannot(i, "04"))?;
    if minute >= 60 {
        return Err(range("minute"));
    }
    let i = lit(i, b':', ":")?;
    let (second, mut i) = getnum(i, true).ok_or_else(|| cannot(i, "05"))?;
    if second >= 60 {
        return Err(range("second"));
    }
    let mut nanos = 0u32;
    if matches!(b.get(i), Some(b'.') | Some(b',')) && digit(i + 1) {
        let mut j = i + 1;
        while digit(j) {
            j += 1;
        }
        let mut n = 0u32;
        for k in 0..9 {
            let d = if i + 1 + k < j {
                b[i + 1 + k] - b'0'
            } else {
                0
            };
            n = n * 10 + u32::from(d);
        }
        nanos = n;
        i = j;
    }
    if i < b.len() {
        return Err(format!(
            "parsing time {}: extra text: {}",
            time_quote(s),
            time_quote(&s[i..])
        ));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(range("day"));
    }
    let seconds = days_from_civil(year, month, day) * 86_400
        + i64::from(hour) * 3600
        + i64::from(minute) * 60
        + i64::from(second);
    Ok(Timestamp {
        seconds,
        nanos,
        offset: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_print_in_their_offset() {
        let t = parse_rfc3339("2024-01-01T10:00:00.5-05:30").unwrap();
        assert_eq!(t.offset, -19_800);
        assert_eq!(format_rfc3339(t), "2024-01-01T10:00:00.5-05:30");
        let t = parse_rfc3339("2024-01-01T00:30:00+02:00").unwrap();
        assert_eq!(format_rfc3339(t), "2024-01-01T00:30:00+02:00");
        let t = parse_rfc3339("2024-01-01T00:30:00-00:00").unwrap();
        assert_eq!(format_rfc3339(t), "2024-01-01T00:30:00Z");
    }

    #[test]
    fn iso8601_local_errors_like_go() {
        let e = |s: &str| parse_iso8601_local(s).unwrap_err();
        assert_eq!(
            e("nope"),
            r#"parsing time "nope" as "2006-01-02T15:04:05": cannot parse "nope" as "2006""#
        );
        assert_eq!(
            e("2024-01-01t10:00:00z"),
            r#"parsing time "2024-01-01t10:00:00z" as "2006-01-02T15:04:05": cannot parse "t10:00:00z" as "T""#
        );
        assert_eq!(
            e("2024-1-01T10:00:00"),
            r#"parsing time "2024-1-01T10:00:00" as "2006-01-02T15:04:05": cannot parse "1-01T10:00:00" as "01""#
        );
        assert_eq!(
            e("2024-01-01T10:00:00.5z"),
            r#"parsing time "2024-01-01T10:00:00.5z": extra text: "z""#
        );
        assert_eq!(
            e("2024-01-01T10:00:00Zn\u{f6}\"\u{1}"),
            r#"parsing time "2024-01-01T10:00:00Zn\xc3\xb6\"\x01": extra text: "Zn\xc3\xb6\"\x01""#
        );
        assert_eq!(
            e("2024-13-01T10:00:00"),
            r#"parsing time "2024-13-01T10:00:00": month out of range"#
        );
        assert_eq!(
            e("2024-02-30T10:00:00"),
            r#"parsing time "2024-02-30T10:00:00": day out of range"#
        );
        assert_eq!(
            e("2024-02-01T24:00:00"),
            r#"parsing time "2024-02-01T24:00:00": hour out of range"#
        );
        assert_eq!(
            parse_iso8601_local("2024-02-29T9:00:00,25"),
            Ok(Timestamp {
                seconds: 1_709_197_200,
                nanos: 250_000_000,
                offset: 0
            })
        );
    }

    #[test]
    fn durations_like_go() {
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration("1µs"), Ok(1_000));
        assert_eq!(parse_duration("-2m"), Ok(-120_000_000_000));
        assert!(parse_duration("1h 30m").is_err());
        assert!(parse_duration("1x").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("10").is_err());
    }

    #[test]
    fn timestamps_like_go() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z").unwrap().seconds, 0);
        assert_eq!(
            parse_rfc3339("2020-01-01T01:00:00+01:00").unwrap().seconds,
            1_577_836_800
        );
        assert!(parse_rfc3339("2020-01-01t00:00:00Z").is_err());
        assert!(parse_rfc3339("2020-01-01 00:00:00Z").is_err());
        assert!(parse_rfc3339("2020-01-01T00:00:60Z").is_err());
        assert!(parse_rfc3339("2021-02-29T00:00:00Z").is_err());
        let ts = parse_rfc3339("2020-01-01T00:00:00.120Z").unwrap();
        assert_eq!(format_rfc3339(ts), "2020-01-01T00:00:00.12Z");
    }
}
