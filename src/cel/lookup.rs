//! Finding a map's key, or a list's element, without reading them all.
//!
//! cel-go's maps are Go maps and the server's set and map lists index their elements:
//! `m[k]`, `k in m` and `has(m.k)` cost 1 whatever the map's size, and `==` on two
//! maps or sets costs a tenth of their size. Entries here are held in order, so each
//! such step used to read the whole map: `l.all(x, x in m)` over 100,000 keys took
//! 10 s, and the cost limits let a resource run that for hours.
//!
//! An [`Index`] groups positions by a hash that equal values share ([`bucket`]); a
//! search reads only the positions of its value's bucket and the values no bucket
//! holds, and confirms each with the caller's own comparison. So it finds exactly
//! what reading every entry in order finds, only sooner.
//!
//! Indexes of maps that one evaluation may search again (the object's maps, a map a
//! rule built) are kept until that evaluation ends ([`evaluating`]): each holds its map,
//! so no other map can take its address meanwhile.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;

use super::value::Val;

/// Below this many entries, reading them all is as quick as hashing.
const INDEXED_FROM: usize = 32;

/// Entries of all maps indexed by one evaluation (about 24 bytes each); past it,
/// maps are read in full.
const MAX_CACHED_ENTRIES: usize = 4 << 20;

const END: u32 = u32::MAX;

/// A hash shared by every pair of values that CEL's `==`, the server's native
/// comparison of set elements, or an object's key lookup can find equal: numbers by
/// their value as a double (an int equals the double it converts to), strings, bools.
/// None: any other value, which a search compares with everything.
pub(crate) fn bucket(v: &Val) -> Option<u64> {
    let mut h = DefaultHasher::new();
    match v {
        Val::String(s) => return Some(string_bucket(s)),
        Val::Bool(b) => (1u8, b).hash(&mut h),
        Val::Int(i) => (2u8, number_bits(*i as f64)).hash(&mut h),
        Val::Uint(u) => (2u8, number_bits(*u as f64)).hash(&mut h),
        Val::Double(d) => (2u8, number_bits(*d)).hash(&mut h),
        _ => return None,
    }
    Some(h.finish())
}

pub(crate) fn string_bucket(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    (0u8, s).hash(&mut h);
    h.finish()
}

/// One representation per value: -0 is 0 (NaN equals nothing, so any will do).
fn number_bits(d: f64) -> u64 {
    (d + 0.0).to_bits()
}

/// Positions of values grouped by [`bucket`].
pub(crate) struct Index {
    /// The first position of each bucket.
    head: HashMap<u64, u32>,
    /// The next position in the same bucket, ascending.
    next: Vec<u32>,
    /// Positions of values without a bucket, ascending.
    others: Vec<u32>,
}

impl Index {
    pub(crate) fn new(buckets: &[Option<u64>]) -> Index {
        let mut head = HashMap::with_capacity(buckets.len());
        let mut next = vec![END; buckets.len()];
        let mut others = Vec::new();
        // From the back, so that each bucket's chain is in ascending order.
        for (i, b) in buckets.iter().enumerate().rev() {
            match b {
                Some(b) => next[i] = head.insert(*b, i as u32).unwrap_or(END),
                None => others.push(i as u32),
            }
        }
        others.reverse();
        Index { head, next, others }
    }

    fn of_keys(entries: &[(Val, Val)]) -> Index {
        Index::new(&entries.iter().map(|(k, _)| bucket(k)).collect::<Vec<_>>())
    }

    /// The positions a value in bucket `b` may be equal to, ascending. None: `b` is
    /// no bucket, and every position may be.
    fn candidates(&self, b: Option<u64>) -> Option<impl Iterator<Item = usize> + '_> {
        let mut chain = self.head.get(&b?).copied().unwrap_or(END);
        let in_bucket = std::iter::from_fn(move || {
            (chain != END).then(|| {
                let i = chain;
                chain = self.next[i as usize];
                i as usize
            })
        });
        Some(merge_ascending(
            in_bucket,
            self.others.iter().map(|&i| i as usize),
        ))
    }

    /// The first position (of `len`) in `b`'s reach for which `eq` holds.
    pub(crate) fn first(
        &self,
        b: Option<u64>,
        len: usize,
        mut eq: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        match self.candidates(b) {
            Some(mut c) => c.find(|&i| eq(i)),
            None => (0..len).find(|&i| eq(i)),
        }
    }
}

fn merge_ascending(
    a: impl Iterator<Item = usize>,
    b: impl Iterator<Item = usize>,
) -> impl Iterator<Item = usize> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x <= y => a.next(),
        (Some(_), Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, _) => b.next(),
    })
}

/// Positions of a list's elements (or of keys read from them) grouped by [`bucket`],
/// for one operation that searches the list once per element of another (set
/// equality and union, map-list equality and merge, a fold's map). The list may grow
/// meanwhile.
#[derive(Default)]
pub(crate) struct Positions {
    /// Each position's bucket, while there are too few to index.
    small: Vec<Option<u64>>,
    /// Positions by bucket, once there are enough.
    buckets: HashMap<u64, Vec<u32>>,
    /// Positions without a bucket, once indexed.
    others: Vec<u32>,
    len: usize,
}

impl Positions {
    pub(crate) fn new(buckets: impl Iterator<Item = Option<u64>>) -> Positions {
        let mut p = Positions::default();
        for b in buckets {
            p.push(b);
        }
        p
    }

    pub(crate) fn of_values(values: &[Val]) -> Positions {
        Positions::new(values.iter().map(bucket))
    }

    fn indexed(&self) -> bool {
        self.len > self.small.len()
    }

    /// Adds the next position.
    pub(crate) fn push(&mut self, b: Option<u64>) {
        if !self.indexed() && self.small.len() < INDEXED_FROM {
            self.small.push(b);
            self.len += 1;
            return;
        }
        if !self.indexed() {
            for (i, b) in std::mem::take(&mut self.small).into_iter().enumerate() {
                self.index(i, b);
            }
        }
        self.index(self.len, b);
        self.len += 1;
    }

    fn index(&mut self, i: usize, b: Option<u64>) {
        match b {
            Some(b) => self.buckets.entry(b).or_default().push(i as u32),
            None => self.others.push(i as u32),
        }
    }

    /// The positions a value in bucket `b` may be equal to, ascending.
    fn candidates(&self, b: Option<u64>) -> Vec<usize> {
        let Some(b) = b else {
            return (0..self.len).collect();
        };
        if !self.indexed() {
            return (0..self.len)
                .filter(|&i| self.small[i].is_none_or(|x| x == b))
                .collect();
        }
        let in_bucket = self.buckets.get(&b).map_or(&[][..], Vec::as_slice);
        merge_ascending(
            in_bucket.iter().map(|&i| i as usize),
            self.others.iter().map(|&i| i as usize),
        )
        .collect()
    }

    /// The first position in `b`'s reach for which `eq` holds.
    pub(crate) fn first(&self, b: Option<u64>, mut eq: impl FnMut(usize) -> bool) -> Option<usize> {
        self.candidates(b).into_iter().find(|&i| eq(i))
    }

    /// The last position in `b`'s reach for which `eq` holds.
    pub(crate) fn last(&self, b: Option<u64>, mut eq: impl FnMut(usize) -> bool) -> Option<usize> {
        self.candidates(b).into_iter().rev().find(|&i| eq(i))
    }
}

/// The bucket of a map list element's key (its key fields' values; None for one
/// that is absent): shared by keys whose fields compare equal.
pub(crate) fn key_bucket(key: &[Option<Val>]) -> Option<u64> {
    let mut h = DefaultHasher::new();
    for field in key {
        match field {
            Some(v) => (1u8, bucket(v)?).hash(&mut h),
            None => 0u8.hash(&mut h),
        }
    }
    Some(h.finish())
}

/// Finds entries of one map by key.
pub(crate) enum KeyFinder<'a> {
    Indexed(&'a [(Val, Val)], Rc<Index>),
    Reading(&'a [(Val, Val)]),
}

impl<'a> KeyFinder<'a> {
    /// The first entry whose key is `b`'s bucket and satisfies `eq`.
    pub(crate) fn find(
        &self,
        b: Option<u64>,
        mut eq: impl FnMut(&Val) -> bool,
    ) -> Option<&'a (Val, Val)> {
        match self {
            KeyFinder::Reading(entries) => entries.iter().find(|(k, _)| eq(k)),
            KeyFinder::Indexed(entries, index) => index
                .first(b, entries.len(), |i| eq(&entries[i].0))
                .map(|i| &entries[i]),
        }
    }

    /// The entry whose key is `key` by CEL equality.
    pub(crate) fn find_equal(&self, key: &Val) -> Option<&'a (Val, Val)> {
        self.find(bucket(key), |k| k.equals(key))
    }

    /// The entry whose key is the string `key`.
    pub(crate) fn find_string(&self, key: &str) -> Option<&'a (Val, Val)> {
        self.find(
            Some(string_bucket(key)),
            |k| matches!(k, Val::String(s) if **s == *key),
        )
    }
}

/// A finder for `entries`: an index kept for the evaluation under way, or made for
/// this search when no evaluation keeps it, or none for a small map.
pub(crate) fn keys_of(entries: &Arc<Vec<(Val, Val)>>) -> KeyFinder<'_> {
    if entries.len() < INDEXED_FROM {
        return KeyFinder::Reading(entries);
    }
    let kept = CACHE.with(|c| c.borrow_mut().index_of(entries));
    match kept {
        Some(index) => KeyFinder::Indexed(entries, index),
        None => KeyFinder::Reading(entries),
    }
}

/// Runs `f` as one evaluation: indexes of the maps it searches are kept until it
/// returns.
pub(crate) fn evaluating<R>(f: impl FnOnce() -> R) -> R {
    struct Scope;
    impl Drop for Scope {
        fn drop(&mut self) {
            CACHE.with(|c| {
                let mut c = c.borrow_mut();
                c.depth -= 1;
                if c.depth == 0 {
                    c.maps.clear();
                    c.entries = 0;
                }
            });
        }
    }
    CACHE.with(|c| c.borrow_mut().depth += 1);
    let _scope = Scope;
    f()
}

/// A map and the index of its keys.
type KeptIndex = (Arc<Vec<(Val, Val)>>, Rc<Index>);

#[derive(Default)]
struct Cache {
    /// Evaluations under way on this thread (nested ones share the cache).
    depth: usize,
    /// By the address of the map's entries: the map itself (kept alive, so the
    /// address stays its own) and its index.
    maps: HashMap<usize, KeptIndex>,
    entries: usize,
}

impl Cache {
    fn index_of(&mut self, entries: &Arc<Vec<(Val, Val)>>) -> Option<Rc<Index>> {
        let address = Arc::as_ptr(entries) as usize;
        if let Some((_, index)) = self.maps.get(&address) {
            return Some(index.clone());
        }
        let index = Rc::new(Index::of_keys(entries));
        if self.depth > 0 && self.entries + entries.len() <= MAX_CACHED_ENTRIES {
            self.entries += entries.len();
            self.maps.insert(address, (entries.clone(), index.clone()));
        }
        Some(index)
    }
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_a_bucket() {
        let same = [
            (Val::Int(1), Val::Uint(1)),
            (Val::Int(1), Val::Double(1.0)),
            (Val::Double(0.0), Val::Double(-0.0)),
            // Buckets are coarse: an int shares one with the double it rounds to.
            (Val::Int((1 << 53) + 1), Val::Double((1u64 << 53) as f64)),
            (Val::str("a"), Val::str("a")),
        ];
        for (a, b) in same {
            assert_eq!(bucket(&a), bucket(&b), "{a:?} {b:?}");
        }
        assert_ne!(bucket(&Val::str("1")), bucket(&Val::Int(1)));
        assert_ne!(bucket(&Val::Bool(true)), bucket(&Val::Int(1)));
        assert_eq!(bucket(&Val::Null), None);
        assert_eq!(bucket(&Val::str("k")), Some(string_bucket("k")));
    }

    #[test]
    fn searches_find_what_reading_in_order_finds() {
        let values = vec![
            Val::Int(1),
            Val::Null,
            Val::str("a"),
            Val::Double(1.0),
            Val::list(vec![]),
            Val::str("a"),
            Val::Uint(1),
        ];
        let n = values.len();
        let index = Index::new(&values.iter().map(bucket).collect::<Vec<_>>());
        let positions = Positions::of_values(&values);
        for needle in &values {
            let eq = |i: usize| values[i].equals(needle);
            let first = (0..n).find(|&i| eq(i));
            assert_eq!(index.first(bucket(needle), n, eq), first, "{needle:?}");
            assert_eq!(positions.first(bucket(needle), eq), first, "{needle:?}");
            let last = (0..n).rev().find(|&i| eq(i));
            assert_eq!(positions.last(bucket(needle), eq), last, "{needle:?}");
        }
        let mut grown = Positions::of_values(&values);
        let many: Vec<Val> = (0..100).map(|i| Val::Int(i % 50)).collect();
        for v in &many {
            grown.push(bucket(v));
        }
        let all: Vec<&Val> = values.iter().chain(&many).collect();
        for needle in [Val::Int(7), Val::Double(1.0), Val::str("a"), Val::Null] {
            let eq = |i: usize| all[i].equals(&needle);
            let first = (0..all.len()).find(|&i| eq(i));
            assert_eq!(grown.first(bucket(&needle), eq), first, "{needle:?}");
            let last = (0..all.len()).rev().find(|&i| eq(i));
            assert_eq!(grown.last(bucket(&needle), eq), last, "{needle:?}");
        }
        // Values without a bucket are candidates for every search.
        assert_eq!(
            index.first(Some(string_bucket("zz")), n, |i| i == 4),
            Some(4)
        );
        assert_eq!(
            positions.first(Some(string_bucket("zz")), |i| i == 4),
            Some(4)
        );
    }

    #[test]
    fn an_evaluation_keeps_indexes_and_drops_them_when_it_ends() {
        let map: Arc<Vec<(Val, Val)>> = Arc::new(
            (0..100)
                .map(|i| (Val::str(&format!("k{i}")), Val::Int(i)))
                .collect(),
        );
        evaluating(|| {
            let found = keys_of(&map).find_string("k42").map(|(_, v)| v.clone());
            assert!(matches!(found, Some(Val::Int(42))));
            assert_eq!(Arc::strong_count(&map), 2);
        });
        assert_eq!(Arc::strong_count(&map), 1);
        // Outside an evaluation nothing is kept.
        assert!(keys_of(&map).find_equal(&Val::str("k7")).is_some());
        assert!(keys_of(&map).find_equal(&Val::str("k100")).is_none());
        assert_eq!(Arc::strong_count(&map), 1);
    }
}
