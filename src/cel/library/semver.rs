//! Semantic versions as `github.com/blang/semver/v4` parses and compares them (the CEL
//! semver library), with the library's optional normalisation (`v` prefix, missing
//! minor/patch, leading zeros).

use std::cmp::Ordering;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Alpha(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pre: Vec<Pre>,
    build: Vec<String>,
}

const ALPHANUM: &str = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn only(s: &str, set: &str) -> bool {
    s.chars().all(|c| set.contains(c))
}

fn only_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// `strconv.ParseUint(s, 10, 64)` with its error text.
fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            crate::diag::gofmt::quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            crate::diag::gofmt::quote(s)
        )
    })
}

fn q(s: &str) -> String {
    crate::diag::gofmt::quote(s)
}

pub fn parse(s: &str) -> Result<Version, String> {
    if s.is_empty() {
        return Err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    if parts.len() != 3 {
        return Err("No Major.Minor.Patch elements found".into());
    }
    let number = |p: &str, what: &str| -> Result<u64, String> {
        if !only_digits(p) {
            return Err(format!(
                "Invalid character(s) found in {what} number {}",
                q(p)
            ));
        }
        if leading_zero(p) {
            let cap = format!("{}{}", what[..1].to_uppercase(), &what[1..]);
            return Err(format!(
                "{cap} number must not contain leading zeroes {}",
                q(p)
            ));
        }
        parse_uint(p)
    };
    let major = number(parts[0], "major")?;
    let minor = number(parts[1], "minor")?;
    let mut patch_str = parts[2];
    let mut build = Vec::new();
    let mut pre_strs: Vec<&str> = Vec::new();
    if let Some(i) = patch_str.find('+') {
        build = patch_str[i + 1..].split('.').map(str::to_string).collect();
        patch_str = &patch_str[..i];
    }
    if let Some(i) = patch_str.find('-') {
        pre_strs = patch_str[i + 1..].split('.').collect();
        patch_str = &patch_str[..i];
    }
    let patch = number(patch_str, "patch")?;
    let mut pre = Vec::new();
    for p in pre_strs {
        if p.is_empty() {
            return Err("Prerelease is empty".into());
        }
        if only_digits(p) {
            if leading_zero(p) {
                return Err(format!(
                    "Numeric PreRelease version must not contain leading zeroes {}",
                    q(p)
                ));
            }
            pre.push(Pre::Num(parse_uint(p)?));
        } else if only(p, ALPHANUM) {
            pre.push(Pre::Alpha(p.to_string()));
        } else {
            return Err(format!("Invalid character(s) found in prerelease {}", q(p)));
        }
    }
    for b in &build {
        if b.is_empty() {
            return Err("Build meta data is empty".into());
        }
        if !only(b, ALPHANUM) {
            return Err(format!(
                "Invalid character(s) found in build meta data {}",
                q(b)
            ));
        }
    }
    Ok(Version {
        major,
        minor,
        patch,
        pre,
        build,
    })
}

/// The library's `normalize` option.
pub fn normalize_and_parse(s: &str) -> Result<Version, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_string).collect();
    for p in parts.iter_mut() {
        if p.len() > 1 {
            let mut t = p.trim_start_matches('0').to_string();
            if t.is_empty() || !t.as_bytes()[0].is_ascii_digit() {
                t = format!("0{t}");
            }
            *p = t;
        }
    }
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".into());
        }
        while parts.len() < 3 {
            parts.push("0".into());
        }
    }
    parse(&parts.join("."))
}

impl Version {
    pub fn compare(&self, o: &Version) -> Ordering {
        let c = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if c != Ordering::Equal {
            return c;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(o.pre.iter()) {
            let c = match (a, b) {
                (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
                (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
                (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
                (Pre::Alpha(x), Pre::Alpha(y)) => x.cmp(y),
            };
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&o.pre.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_compares_like_blang_semver() {
        assert!(parse("1.2.3-alpha.1+build.5").is_ok());
        assert_eq!(
            parse("1.2").unwrap_err(),
            "No Major.Minor.Patch elements found"
        );
        assert_eq!(
            parse("01.2.3").unwrap_err(),
            "Major number must not contain leading zeroes \"01\""
        );
        assert_eq!(
            parse("1.x.3").unwrap_err(),
            "Invalid character(s) found in minor number \"x\""
        );
        assert_eq!(
            normalize_and_parse("v1.02").unwrap(),
            parse("1.2.0").unwrap()
        );
        assert_eq!(
            parse("1.0.0-alpha")
                .unwrap()
                .compare(&parse("1.0.0").unwrap()),
            Ordering::Less
        );
        assert_eq!(
            parse("1.0.0-2")
                .unwrap()
                .compare(&parse("1.0.0-10").unwrap()),
            Ordering::Less
        );
        assert_eq!(
            parse("1.0.0+a")
                .unwrap()
                .compare(&parse("1.0.0+b").unwrap()),
            Ordering::Equal
        );
    }
}
