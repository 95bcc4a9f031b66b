//! Time zones for the timestamp accessors (`getHours('Europe/Berlin')`): IANA names
//! are read from the system's zoneinfo database the way Go's `time.LoadLocation`
//! reads it (TZif files, with the POSIX rule in the footer for later instants); fixed
//! offsets (`+05:30`) are handled as cel-go does. No time zone data is bundled: on a
//! machine without a database (a minimal container) a name cannot be looked up, which
//! is [`ZoneError::NoDatabase`], not Go's `unknown time zone` (the API server has one:
//! its verdict on a valid name is not known here).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A loaded zone: transition instants with their offsets, and the footer rule.
#[derive(Debug)]
pub struct Zone {
    transitions: Vec<(i64, i32)>,
    /// Offset before the first transition.
    initial: i32,
    rule: Option<PosixRule>,
}

#[derive(Debug, Clone)]
struct PosixRule {
    std_offset: i32,
    dst: Option<(i32, RuleDate, i32, RuleDate, i32)>,
}

#[derive(Debug, Clone, Copy)]
enum RuleDate {
    /// Jn: day 1..365, never counting February 29.
    Julian(u32),
    /// n: day 0..365, counting February 29.
    Day(u32),
    /// Mm.w.d
    Month(u32, u32, u32),
}

const DIRS: &[&str] = &[
    "/usr/share/zoneinfo/",
    "/usr/share/lib/zoneinfo/",
    "/usr/lib/locale/TZ/",
    "/etc/zoneinfo/",
];

/// Why a zone name has no offset.
#[derive(Debug, PartialEq)]
pub enum ZoneError {
    /// Go's error text for the name.
    Go(String),
    /// No zoneinfo directory exists on this machine (nor `ZONEINFO`).
    NoDatabase,
}

/// The UTC offset in seconds at `unix` for `name`.
pub fn offset(name: &str, unix: i64) -> Result<i64, ZoneError> {
    if name.is_empty() || name == "UTC" {
        return Ok(0);
    }
    if name == "Local" {
        // The API server runs in UTC in practice; so does this answer.
        return Ok(0);
    }
    let zone = load(name)?;
    Ok(zone.offset_at(unix) as i64)
}

fn load(name: &str) -> Result<Arc<Zone>, ZoneError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<Arc<Zone>>>>> = OnceLock::new();
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err(ZoneError::Go("time: invalid location name".into()));
    }
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(guard) = cache.lock()
        && let Some(z) = guard.get(name)
    {
        return z.clone().ok_or_else(|| unknown(name));
    }
    let dirs = database_dirs();
    let zone = dirs.iter().find_map(|d| {
        let bytes = std::fs::read(format!("{d}{name}")).ok()?;
        parse_tzif(&bytes).map(Arc::new)
    });
    if let Ok(mut guard) = cache.lock() {
        guard.insert(name.to_string(), zone.clone());
    }
    zone.ok_or_else(|| unknown(name))
}

/// Where zone files are looked for: `ZONEINFO`, then Go's system directories.
fn database_dirs() -> Vec<String> {
    let mut dirs: Vec<String> = Vec::new();
    if let Ok(d) = std::env::var("ZONEINFO")
        && !d.is_empty()
    {
        dirs.push(format!("{d}/"));
    }
    dirs.extend(DIRS.iter().map(|d| d.to_string()));
    dirs
}

/// A name not found: Go's error where a database exists, else [`ZoneError::NoDatabase`].
fn unknown(name: &str) -> ZoneError {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    let present = *PRESENT.get_or_init(|| any_database(&database_dirs()));
    unknown_with(name, present)
}

/// Whether one of `dirs` holds a zone database: every one has `UTC` (an empty or
/// half-removed directory, as slimmed container images leave, does not count).
fn any_database(dirs: &[String]) -> bool {
    dirs.iter().any(|d| {
        ["UTC", "Etc/UTC"]
            .iter()
            .any(|f| std::path::Path::new(&format!("{d}{f}")).is_file())
    })
}

fn unknown_with(name: &str, database_present: bool) -> ZoneError {
    if database_present {
        ZoneError::Go(format!("unknown time zone {name}"))
    } else {
        ZoneError::NoDatabase
    }
}

fn be32(b: &[u8], i: usize) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?))
}

fn be64(b: &[u8], i: usize) -> Option<i64> {
    Some(i64::from_be_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

fn parse_tzif(b: &[u8]) -> Option<Zone> {
    if b.get(0..4)? != b"TZif" {
        return None;
    }
    let version = *b.get(4)?;
    let counts = |at: usize| -> Option<[usize; 6]> {
        let mut c = [0usize; 6];
        for (k, slot) in c.iter_mut().enumerate() {
            *slot = usize::try_from(be32(b, at + 20 + 4 * k)?).ok()?;
        }
        Some(c)
    };
    // [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt]
    let c1 = counts(0)?;
    let v1_len = c1[3] * 5 + c1[4] * 6 + c1[5] + c1[2] * 8 + c1[1] + c1[0];
    let (start, c, wide) = if version >= b'2' {
        let at = 44 + v1_len;
        (at + 44, counts(at)?, true)
    } else {
        (44, c1, false)
    };
    let tsize = if wide { 8 } else { 4 };
    let mut p = start;
    let mut times = Vec::with_capacity(c[3]);
    for _ in 0..c[3] {
        times.push(if wide {
            be64(b, p)?
        } else {
            be32(b, p)? as i64
        });
        p += tsize;
    }
    let idx = b.get(p..p + c[3])?.to_vec();
    p += c[3];
    let mut types = Vec::with_capacity(c[4]);
    for _ in 0..c[4] {
        types.push((be32(b, p)?, *b.get(p + 4)?));
        p += 6;
    }
    p += c[5] + c[2] * (tsize + 4) + c[1] + c[0];
    let mut transitions = Vec::with_capacity(times.len());
    for (t, i) in times.iter().zip(idx.iter()) {
        transitions.push((*t, types.get(*i as usize)?.0));
    }
    // The first standard-time type applies before the first transition.
    let initial = types
        .iter()
        .find(|t| t.1 == 0)
        .or(types.first())
        .map(|t| t.0)
        .unwrap_or(0);
    let rule = if wide {
        let footer = b.get(p..)?;
        let text = std::str::from_utf8(footer).ok()?.trim_matches('\n');
        parse_posix(text)
    } else {
        None
    };
    Some(Zone {
        transitions,
        initial,
        rule,
    })
}

impl Zone {
    fn offset_at(&self, unix: i64) -> i32 {
        match self.transitions.last() {
            Some(&(last, off)) if unix >= last => match &self.rule {
                Some(r) => r.offset_at(unix),
                None => off,
            },
            None => match &self.rule {
                Some(r) => r.offset_at(unix),
                None => self.initial,
            },
            _ => {
                let i = self.transitions.partition_point(|&(t, _)| t <= unix);
                if i == 0 {
                    self.initial
                } else {
                    self.transitions[i - 1].1
                }
            }
        }
    }
}

// ---- POSIX TZ strings ----

fn parse_name(s: &str) -> Option<&str> {
    if let Some(rest) = s.strip_prefix('<') {
        let end = rest.find('>')?;
        return Some(&rest[end + 1..]);
    }
    let n = s.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    if n < 3 {
        return None;
    }
    Some(&s[n..])
}

/// `[+-]hh[:mm[:ss]]` → seconds, and the rest.
fn parse_hms(s: &str) -> Option<(i32, &str)> {
    let (sign, s) = match s.as_bytes().first() {
        Some(b'-') => (-1, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let mut total = 0i32;
    let mut rest = s;
    for (k, mult) in [3600, 60, 1].into_iter().enumerate() {
        if k > 0 {
            match rest.strip_prefix(':') {
                Some(r) => rest = r,
                None => break,
            }
        }
        let n = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        total += rest[..n].parse::<i32>().ok()? * mult;
        rest = &rest[n..];
    }
    Some((sign * total, rest))
}

fn parse_date(s: &str) -> Option<(RuleDate, &str)> {
    let num = |s: &str| -> Option<(u32, usize)> {
        let n = s.bytes().take_while(|b| b.is_ascii_digit()).count();
        Some((s.get(..n)?.parse().ok()?, n))
    };
    if let Some(r) = s.strip_prefix('J') {
        let (d, n) = num(r)?;
        return Some((RuleDate::Julian(d), &r[n..]));
    }
    if let Some(r) = s.strip_prefix('M') {
        let (m, n1) = num(r)?;
        let r = r[n1..].strip_prefix('.')?;
        let (w, n2) = num(r)?;
        let r = r[n2..].strip_prefix('.')?;
        let (d, n3) = num(r)?;
        return Some((RuleDate::Month(m, w, d), &r[n3..]));
    }
    let (d, n) = num(s)?;
    Some((RuleDate::Day(d), &s[n..]))
}

fn parse_posix(s: &str) -> Option<PosixRule> {
    let rest = parse_name(s)?;
    let (std, rest) = parse_hms(rest)?;
    let std_offset = -std;
    if rest.is_empty() {
        return Some(PosixRule {
            std_offset,
            dst: None,
        });
    }
    let rest = parse_name(rest)?;
    let (dst_offset, rest) = if rest.starts_with(',') || rest.is_empty() {
        (std_offset + 3600, rest)
    } else {
        let (d, r) = parse_hms(rest)?;
        (-d, r)
    };
    let rest = rest.strip_prefix(',')?;
    let (start, rest) = parse_date(rest)?;
    let (start_time, rest) = match rest.strip_prefix('/') {
        Some(r) => parse_hms(r)?,
        None => (7200, rest),
    };
    let rest = rest.strip_prefix(',')?;
    let (end, rest) = parse_date(rest)?;
    let (end_time, _) = match rest.strip_prefix('/') {
        Some(r) => parse_hms(r)?,
        None => (7200, rest),
    };
    Some(PosixRule {
        std_offset,
        dst: Some((dst_offset, start, start_time, end, end_time)),
    })
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Seconds from the start of the year to the rule's day.
fn rule_day_seconds(year: i64, d: RuleDate) -> i64 {
    let day = match d {
        RuleDate::Julian(n) => {
            let mut n = n as i64 - 1;
            if is_leap(year) && n >= 59 {
                n += 1;
            }
            n
        }
        RuleDate::Day(n) => n as i64,
        RuleDate::Month(m, w, dow) => {
            let days_before = super::super::gotime::days_from_civil(year, m.clamp(1, 12), 1)
                - super::super::gotime::days_from_civil(year, 1, 1);
            let first = super::super::gotime::days_from_civil(year, m.clamp(1, 12), 1);
            let first_dow = (first + 4).rem_euclid(7);
            let mut d = (dow as i64 - first_dow).rem_euclid(7);
            d += 7 * (w.clamp(1, 5) as i64 - 1);
            let month_len = {
                let next = if m >= 12 {
                    super::super::gotime::days_from_civil(year + 1, 1, 1)
                } else {
                    super::super::gotime::days_from_civil(year, m + 1, 1)
                };
                next - first
            };
            while d >= month_len {
                d -= 7;
            }
            days_before + d
        }
    };
    day * 86_400
}

impl PosixRule {
    fn offset_at(&self, unix: i64) -> i32 {
        let Some((dst_off, start, start_t, end, end_t)) = self.dst else {
            return self.std_offset;
        };
        let days = unix.div_euclid(86_400);
        let (year, _, _) = super::super::gotime::civil_from_days(days);
        let year_start = super::super::gotime::days_from_civil(year, 1, 1) * 86_400;
        // Transition instants in UTC: start is given in standard time, end in DST.
        let s =
            year_start + rule_day_seconds(year, start) + start_t as i64 - self.std_offset as i64;
        let e = year_start + rule_day_seconds(year, end) + end_t as i64 - dst_off as i64;
        let in_dst = if s < e {
            unix >= s && unix < e
        } else {
            !(unix >= e && unix < s)
        };
        if in_dst { dst_off } else { self.std_offset }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_system_database() {
        if !std::path::Path::new("/usr/share/zoneinfo/Europe/Berlin").exists() {
            eprintln!("skipping: no system zoneinfo");
            return;
        }
        // 2024-07-01T00:00:00Z: CEST (+2h); 2024-01-01: CET (+1h); 2040 uses the rule.
        assert_eq!(offset("Europe/Berlin", 1_719_792_000), Ok(7200));
        assert_eq!(offset("Europe/Berlin", 1_704_067_200), Ok(3600));
        assert_eq!(offset("Europe/Berlin", 2_224_886_400), Ok(7200));
        assert_eq!(offset("America/New_York", 1_719_792_000), Ok(-14400));
        assert_eq!(offset("Asia/Kolkata", 1_719_792_000), Ok(19800));
        assert_eq!(
            offset("Nowhere/City", 0),
            Err(ZoneError::Go("unknown time zone Nowhere/City".into()))
        );
    }

    #[test]
    fn a_machine_without_a_database_cannot_say_a_name_is_unknown() {
        let missing = ["/nonexistent/zoneinfo/".to_string()];
        assert!(!any_database(&missing));
        assert_eq!(unknown_with("Europe/Berlin", false), ZoneError::NoDatabase);
        let dir = std::env::temp_dir().join(format!("crdlint-tz-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("Etc")).unwrap();
        let dirs = [missing[0].clone(), format!("{}/", dir.display())];
        assert!(!any_database(&dirs), "an empty directory is no database");
        std::fs::write(dir.join("Etc/UTC"), b"TZif").unwrap();
        assert!(any_database(&dirs));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            unknown_with("Nowhere/City", true),
            ZoneError::Go("unknown time zone Nowhere/City".into())
        );
        // A name Go refuses is refused without looking for a database.
        assert_eq!(
            offset("../etc/passwd", 0),
            Err(ZoneError::Go("time: invalid location name".into()))
        );
    }
}
