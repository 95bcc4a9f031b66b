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

/// `time.Parse(time.RFC3339, s)` plus CEL's year range check: what cel-go's
/// `timestamp()` takes (Go's general layout parser, so a one-digit hour and a `+24:60`
/// offset too).
pub fn parse_rfc3339(s: &str) -> Result<Timestamp, String> {
    let t = parse_go_rfc3339(s)?;
    if !(MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&t.seconds) {
        return Err("timestamp out of range".into());
    }
    Ok(t)
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
    parse_go_layout(s, GoLayout::DateTime)
}

/// `time.Parse("2006-01-02", s)` (strfmt's `RFC3339FullDate`, CEL's `date` format
/// values): midnight UTC, or Go's error text.
pub fn parse_go_date(s: &str) -> Result<Timestamp, String> {
    parse_go_layout(s, GoLayout::Date)
}

/// `time.Parse(time.RFC3339, s)`, as `metav1.Time` decodes a timestamp: Go's general
/// layout parser, so also what its fast path refuses and the fallback accepts (a
/// one-digit hour, a comma before the fraction), with Go's error texts (the empty
/// string is an error too).
pub fn parse_go_rfc3339(s: &str) -> Result<Timestamp, String> {
    parse_go_layout(s, GoLayout::Rfc3339)
}

/// The layouts crdlint parses as Go does: each a prefix of the next.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum GoLayout {
    Date,
    DateTime,
    Rfc3339,
}

/// Go's `time.Parse` for the layout `2006-01-02`, `2006-01-02T15:04:05` or
/// `2006-01-02T15:04:05Z07:00`: the elements in order, each failure reported as Go's
/// `ParseError` reports it (the remaining value and the layout element, or a range
/// error).
fn parse_go_layout(s: &str, layout_kind: GoLayout) -> Result<Timestamp, String> {
    let layout = match layout_kind {
        GoLayout::Date => "2006-01-02",
        GoLayout::DateTime => "2006-01-02T15:04:05",
        GoLayout::Rfc3339 => "2006-01-02T15:04:05Z07:00",
    };
    let zone = layout_kind == GoLayout::Rfc3339;
    let b = s.as_bytes();
    let cannot = |rest: usize, elem: &str| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            time_quote(s),
            time_quote(layout),
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
    // The layout ends at `i`: nothing may follow, and then the day is checked against
    // its month (Go's last check).
    let finish = |i: usize, second_of_day: i64, nanos: u32, offset: i64| {
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
        Ok(Timestamp {
            seconds: days_from_civil(year, month, day) * 86_400 + second_of_day - offset,
            nanos,
            offset: offset as i32,
        })
    };
    if layout_kind == GoLayout::Date {
        return finish(i, 0, 0, 0);
    }
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
    // A fraction the layout does not name is taken after the seconds.
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
    let mut offset = 0i64;
    if zone {
        if b.get(i) == Some(&b'Z') {
            i += 1;
        } else {
            // `Z07:00` otherwise takes exactly `±hh:mm`. Go checks the offset's ranges
            // (with `>`; the minute's verdict last) before the sign and the digits.
            let Some(t) = b.get(i..i + 6).filter(|t| t[3] == b':') else {
                return Err(cannot(i, "Z07:00"));
            };
            let two = |k: usize| {
                (t[k].is_ascii_digit() && t[k + 1].is_ascii_digit())
                    .then(|| u32::from(t[k] - b'0') * 10 + u32::from(t[k + 1] - b'0'))
            };
            let oh = two(1);
            let om = oh.and(two(4));
            if om.is_some_and(|m| m > 60) {
                return Err(range("time zone offset minute"));
            }
            if oh.is_some_and(|h| h > 24) {
                return Err(range("time zone offset hour"));
            }
            let (Some(oh), Some(om)) = (oh, om) else {
                return Err(cannot(i, "Z07:00"));
            };
            let sign = t[0];
            let magnitude = i64::from(oh) * 3600 + i64::from(om) * 60;
            offset = match sign {
                b'+' => magnitude,
                b'-' => -magnitude,
                _ => return Err(cannot(i, "Z07:00")),
            };
            i += 6;
        }
    }
    finish(
        i,
        i64::from(hour) * 3600 + i64::from(minute) * 60 + i64::from(second),
        nanos,
        offset,
    )
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
    fn rfc3339_like_go_time_parse() {
        // Texts recorded from the v0.35 reference (metav1.Time in embedded metadata).
        let e = |s: &str| parse_go_rfc3339(s).unwrap_err();
        assert_eq!(
            e(""),
            r#"parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006""#
        );
        assert_eq!(
            e("2020"),
            r#"parsing time "2020" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "-""#
        );
        assert_eq!(
            e("2020-01-01T00:00:00"),
            r#"parsing time "2020-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00""#
        );
        assert_eq!(
            e("2020-01-01T00:00:00+25:xx"),
            r#"parsing time "2020-01-01T00:00:00+25:xx": time zone offset hour out of range"#
        );
        assert_eq!(
            e("2020-01-01T00:00:00+01:00:00"),
            r#"parsing time "2020-01-01T00:00:00+01:00:00": extra text: ":00""#
        );
        assert_eq!(
            e("2020-01-01T00:00:00é"),
            r#"parsing time "2020-01-01T00:00:00\xc3\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\xc3\xa9" as "Z07:00""#
        );
        // What Go's fast path refuses and its general parser takes.
        let one_digit_hour = parse_go_rfc3339("2020-01-01T9:00:00Z").unwrap();
        assert_eq!(one_digit_hour.seconds % 86_400, 9 * 3600);
        let wide_offset = parse_go_rfc3339("2020-01-01T00:00:00+24:60").unwrap();
        assert_eq!(wide_offset.offset, 25 * 3600);
        assert_eq!(
            parse_go_rfc3339("2020-01-01T00:00:00,5Z").unwrap().nanos,
            500_000_000
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
