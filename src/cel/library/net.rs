//! IP addresses and prefixes as Go's `net/netip` parses and prints them (the CEL IP
//! and CIDR libraries are thin wrappers over it): `ParseAddr`/`ParsePrefix` with
//! their error texts, the canonical `String()` form, and the address classes.

use crate::diag::gofmt::quote;

/// An address: 4 or 16 bytes, with an optional IPv6 zone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    pub bytes: Vec<u8>,
    pub zone: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prefix {
    pub addr: Addr,
    pub bits: u8,
}

fn addr_err(input: &str, msg: &str, at: Option<&str>) -> String {
    match at {
        Some(at) if !at.is_empty() => {
            format!("ParseAddr({}): {msg} (at {})", quote(input), quote(at))
        }
        _ => format!("ParseAddr({}): {msg}", quote(input)),
    }
}

pub fn parse_addr(s: &str) -> Result<Addr, String> {
    for b in s.bytes() {
        match b {
            b'.' => return parse_v4(s),
            b':' => return parse_v6(s),
            b'%' => return Err(addr_err(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_err(s, "unable to parse IP", None))
}

fn parse_v4_fields(input: &str, off: usize, end: usize, out: &mut [u8]) -> Result<(), String> {
    let s = &input.as_bytes()[off..end];
    let (mut val, mut pos, mut dig) = (0u32, 0usize, 0);
    for i in 0..s.len() {
        let c = s[i];
        if c.is_ascii_digit() {
            if dig == 1 && val == 0 {
                return Err(addr_err(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + (c - b'0') as u32;
            dig += 1;
            if val > 255 {
                return Err(addr_err(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return Err(addr_err(
                    input,
                    "IPv4 field must have at least one digit",
                    Some(&input[off + i..end]),
                ));
            }
            if pos == 3 {
                return Err(addr_err(input, "IPv4 address too long", None));
            }
            out[pos] = val as u8;
            pos += 1;
            val = 0;
            dig = 0;
        } else {
            return Err(addr_err(
                input,
                "unexpected character",
                Some(&input[off + i..end]),
            ));
        }
    }
    if pos < 3 {
        return Err(addr_err(input, "IPv4 address too short", None));
    }
    out[3] = val as u8;
    Ok(())
}

fn parse_v4(s: &str) -> Result<Addr, String> {
    let mut f = [0u8; 4];
    parse_v4_fields(s, 0, s.len(), &mut f)?;
    Ok(Addr {
        bytes: f.to_vec(),
        zone: String::new(),
    })
}

fn parse_v6(input: &str) -> Result<Addr, String> {
    let mut s = input;
    let mut zone = "";
    if let Some(i) = s.find('%') {
        zone = &s[i + 1..];
        s = &s[..i];
        if zone.is_empty() {
            return Err(addr_err(input, "zone must be a non-empty string", None));
        }
    }
    let mut ip = [0u8; 16];
    let mut ellipsis: i32 = -1;
    if s.len() >= 2 && s.as_bytes()[0] == b':' && s.as_bytes()[1] == b':' {
        ellipsis = 0;
        s = &s[2..];
        if s.is_empty() {
            return Ok(Addr {
                bytes: ip.to_vec(),
                zone: zone.to_string(),
            });
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < b.len() {
            let c = b[off];
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + d as u32;
            if off > 3 {
                return Err(addr_err(
                    input,
                    "each group must have 4 or less digits",
                    Some(s),
                ));
            }
            if acc > 0xffff {
                return Err(addr_err(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_err(
                input,
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis < 0 && i != 12 {
                return Err(addr_err(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(addr_err(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            let mut end = input.len();
            if !zone.is_empty() {
                end -= zone.len() + 1;
            }
            parse_v4_fields(input, end - s.len(), end, &mut ip[i..i + 4])?;
            s = "";
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if s.as_bytes()[0] != b':' {
            return Err(addr_err(input, "unexpected character, want colon", Some(s)));
        } else if s.len() == 1 {
            return Err(addr_err(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = &s[1..];
        if s.as_bytes()[0] == b':' {
            if ellipsis >= 0 {
                return Err(addr_err(input, "multiple :: in address", Some(s)));
            }
            ellipsis = i as i32;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_err(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        if ellipsis < 0 {
            return Err(addr_err(input, "address string too short", None));
        }
        let e = ellipsis as usize;
        let n = 16 - i;
        for j in (e..i).rev() {
            ip[j + n] = ip[j];
        }
        for b in ip.iter_mut().skip(e).take(n) {
            *b = 0;
        }
    } else if ellipsis >= 0 {
        return Err(addr_err(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        ));
    }
    Ok(Addr {
        bytes: ip.to_vec(),
        zone: zone.to_string(),
    })
}

impl Addr {
    pub fn is4(&self) -> bool {
        self.bytes.len() == 4
    }

    pub fn is6(&self) -> bool {
        self.bytes.len() == 16
    }

    pub fn is4in6(&self) -> bool {
        self.is6()
            && self.bytes[..10].iter().all(|&b| b == 0)
            && self.bytes[10] == 0xff
            && self.bytes[11] == 0xff
    }

    fn unmapped(&self) -> Addr {
        if self.is4in6() {
            Addr {
                bytes: self.bytes[12..].to_vec(),
                zone: String::new(),
            }
        } else {
            self.clone()
        }
    }

    fn u16_at(&self, i: usize) -> u16 {
        ((self.bytes[2 * i] as u16) << 8) | self.bytes[2 * i + 1] as u16
    }

    pub fn bit_len(&self) -> u8 {
        if self.is4() { 32 } else { 128 }
    }

    pub fn is_unspecified(&self) -> bool {
        self.zone.is_empty() && self.bytes.iter().all(|&b| b == 0)
    }

    pub fn is_loopback(&self) -> bool {
        let ip = self.unmapped();
        if ip.is4() {
            ip.bytes[0] == 127
        } else {
            ip.bytes[..15].iter().all(|&b| b == 0) && ip.bytes[15] == 1
        }
    }

    pub fn is_multicast(&self) -> bool {
        let ip = self.unmapped();
        if ip.is4() {
            ip.bytes[0] & 0xf0 == 0xe0
        } else {
            ip.bytes[0] == 0xff
        }
    }

    pub fn is_link_local_multicast(&self) -> bool {
        let ip = self.unmapped();
        if ip.is4() {
            ip.bytes[0] == 224 && ip.bytes[1] == 0 && ip.bytes[2] == 0
        } else {
            ip.u16_at(0) & 0xff0f == 0xff02
        }
    }

    pub fn is_link_local_unicast(&self) -> bool {
        let ip = self.unmapped();
        if ip.is4() {
            ip.bytes[0] == 169 && ip.bytes[1] == 254
        } else {
            ip.u16_at(0) & 0xffc0 == 0xfe80
        }
    }

    pub fn is_global_unicast(&self) -> bool {
        let ip = self.unmapped();
        if ip.is4() && (ip.bytes.iter().all(|&b| b == 0) || ip.bytes.iter().all(|&b| b == 255)) {
            return false;
        }
        let v6_unspecified = ip.is6() && ip.zone.is_empty() && ip.bytes.iter().all(|&b| b == 0);
        !v6_unspecified && !ip.is_loopback() && !ip.is_multicast() && !ip.is_link_local_unicast()
    }

    fn masked(&self, bits: u8) -> Addr {
        let mut bytes = self.bytes.clone();
        for (i, b) in bytes.iter_mut().enumerate() {
            let start = (i * 8) as u32;
            let keep = (bits as u32).saturating_sub(start).min(8);
            let mask: u8 = if keep == 0 { 0 } else { 0xffu8 << (8 - keep) };
            *b &= mask;
        }
        Addr {
            bytes,
            zone: self.zone.clone(),
        }
    }
}

impl std::fmt::Display for Addr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is4() {
            let b = &self.bytes;
            return write!(f, "{}.{}.{}.{}", b[0], b[1], b[2], b[3]);
        }
        if self.is4in6() {
            let b = &self.bytes;
            write!(f, "::ffff:{}.{}.{}.{}", b[12], b[13], b[14], b[15])?;
        } else {
            // The longest run (≥ 2) of zero groups becomes `::`.
            let (mut zs, mut ze) = (255usize, 255usize);
            let mut i = 0;
            while i < 8 {
                let mut j = i;
                while j < 8 && self.u16_at(j) == 0 {
                    j += 1;
                }
                let l = j - i;
                if l >= 2 && (zs == 255 || l > ze - zs) {
                    zs = i;
                    ze = j;
                }
                i += 1;
            }
            let mut i = 0;
            while i < 8 {
                if i == zs {
                    f.write_str("::")?;
                    i = ze;
                    if i >= 8 {
                        break;
                    }
                } else if i > 0 {
                    f.write_str(":")?;
                }
                write!(f, "{:x}", self.u16_at(i))?;
                i += 1;
            }
        }
        if !self.zone.is_empty() {
            write!(f, "%{}", self.zone)?;
        }
        Ok(())
    }
}

pub fn parse_prefix(s: &str) -> Result<Prefix, String> {
    let err = |msg: &str| format!("netip.ParsePrefix({}): {msg}", quote(s));
    let Some(i) = s.rfind('/') else {
        return Err(err("no '/'"));
    };
    let addr = parse_addr(&s[..i]).map_err(|e| err(&e))?;
    if addr.is6() && !addr.zone.is_empty() {
        return Err(err("IPv6 zones cannot be present in a prefix"));
    }
    let bits_str = &s[i + 1..];
    let bad = || err(&format!("bad bits after slash: {}", quote(bits_str)));
    let first = bits_str.as_bytes().first().copied();
    if bits_str.len() > 1 && !matches!(first, Some(b'1'..=b'9')) {
        return Err(bad());
    }
    // strconv.Atoi: optional sign, decimal digits.
    let digits = bits_str.strip_prefix(['+', '-']).unwrap_or(bits_str);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let bits: i64 = match bits_str.parse::<i64>() {
        Ok(b) => b,
        Err(_) => return Err(bad()),
    };
    let max = if addr.is6() { 128 } else { 32 };
    if !(0..=max).contains(&bits) {
        return Err(err("prefix length out of range"));
    }
    Ok(Prefix {
        addr,
        bits: bits as u8,
    })
}

impl Prefix {
    pub fn masked(&self) -> Prefix {
        Prefix {
            addr: self.addr.masked(self.bits),
            bits: self.bits,
        }
    }

    pub fn contains(&self, ip: &Addr) -> bool {
        if !ip.zone.is_empty() || self.addr.bit_len() != ip.bit_len() {
            return false;
        }
        ip.masked(self.bits).bytes == self.addr.masked(self.bits).bytes
    }

    pub fn overlaps(&self, o: &Prefix) -> bool {
        if self == o {
            return true;
        }
        if self.addr.is4() != o.addr.is4() {
            return false;
        }
        let min = self.bits.min(o.bits);
        if min == 0 {
            return true;
        }
        self.addr.masked(min).bytes == o.addr.masked(min).bytes
    }
}

impl std::fmt::Display for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_like_netip() {
        assert_eq!(
            parse_addr("2001:db8:0:0:1:0:0:1").unwrap().to_string(),
            "2001:db8::1:0:0:1"
        );
        assert_eq!(parse_addr("::1").unwrap().to_string(), "::1");
        assert_eq!(parse_addr("::").unwrap().to_string(), "::");
        assert_eq!(parse_addr("1:0:0:0:0:0:0:0").unwrap().to_string(), "1::");
        assert_eq!(
            parse_addr("fe80::1%eth0").unwrap().to_string(),
            "fe80::1%eth0"
        );
        assert_eq!(
            parse_addr("127.0.0.01").unwrap_err(),
            "ParseAddr(\"127.0.0.01\"): IPv4 field has octet with leading zero"
        );
        assert_eq!(
            parse_addr("1.2.3").unwrap_err(),
            "ParseAddr(\"1.2.3\"): IPv4 address too short"
        );
        assert_eq!(
            parse_addr("1200:0000:::AB00").unwrap_err(),
            "ParseAddr(\"1200:0000:::AB00\"): each colon-separated field must have at least one digit (at \":AB00\")"
        );
        assert_eq!(
            parse_addr("foo").unwrap_err(),
            "ParseAddr(\"foo\"): unable to parse IP"
        );
        assert_eq!(
            parse_prefix("10.0.0.0/33").unwrap_err(),
            "netip.ParsePrefix(\"10.0.0.0/33\"): prefix length out of range"
        );
        assert_eq!(
            parse_prefix("10.0.0.0/08").unwrap_err(),
            "netip.ParsePrefix(\"10.0.0.0/08\"): bad bits after slash: \"08\""
        );
        let p = parse_prefix("10.1.2.3/8").unwrap();
        assert_eq!(p.masked().to_string(), "10.0.0.0/8");
        assert!(p.contains(&parse_addr("10.200.0.1").unwrap()));
        assert!(!p.contains(&parse_addr("11.0.0.1").unwrap()));
        assert!(parse_addr("169.254.1.1").unwrap().is_link_local_unicast());
        assert!(parse_addr("8.8.8.8").unwrap().is_global_unicast());
        assert!(!parse_addr("::1").unwrap().is_global_unicast());
        assert!(parse_addr("ff02::1").unwrap().is_link_local_multicast());
    }
}
