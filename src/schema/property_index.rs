//! Name lookups in long property lists.
//!
//! Schemas keep their properties in source order (findings follow it), and a lookup
//! scanned the list: once per key of every object, so an object with 20,000 keys under a
//! schema with 20,000 properties took 5 s. Lists longer than [`PropertyIndex::MIN_LEN`]
//! get a hash index; short ones (nearly all) stay a scan, which is faster for them and
//! costs no memory.

use std::collections::HashMap;

/// Position by name in a `[(name, value)]` list (the first of equal names).
// Boxed on purpose: one pointer in every schema node instead of a 48-byte map that
// nearly all of them would leave empty.
#[allow(clippy::box_collection)]
#[derive(Clone, Debug, Default)]
pub struct PropertyIndex(Option<Box<HashMap<String, usize>>>);

impl PropertyIndex {
    /// Lists at most this long are scanned. (A SipHash of the name costs about as much
    /// as comparing 40–60 lengths; at 16, the 10 CRDs × 10k scale set spent 1.4 % more
    /// instructions, and 64 gained nothing over 32.)
    pub const MIN_LEN: usize = 32;

    pub fn new<T>(properties: &[(String, T)]) -> Self {
        if properties.len() <= Self::MIN_LEN {
            return PropertyIndex(None);
        }
        let mut index = HashMap::with_capacity(properties.len());
        for (i, (name, _)) in properties.iter().enumerate() {
            index.entry(name.clone()).or_insert(i);
        }
        PropertyIndex(Some(Box::new(index)))
    }

    /// The entry of `properties` (the list this index was built from) named `name`.
    pub fn find<'p, T>(
        &self,
        properties: &'p [(String, T)],
        name: &str,
    ) -> Option<&'p (String, T)> {
        // Not through `position`: this runs for every field of every resource, and the
        // scan returning the entry itself compiles to a tighter loop (the scale set spent
        // 1 % more instructions the other way).
        match &self.0 {
            Some(index) => index.get(name).and_then(|&i| properties.get(i)),
            None => properties.iter().find(|(k, _)| k == name),
        }
    }

    /// [`PropertyIndex::find`], with the entry at the same place in `parallel`, a list
    /// kept beside `properties`.
    pub fn find_with<'p, T, U>(
        &self,
        properties: &'p [(String, T)],
        parallel: &'p [U],
        name: &str,
    ) -> Option<(&'p (String, T), &'p U)> {
        match &self.0 {
            Some(index) => {
                let &i = index.get(name)?;
                Some((properties.get(i)?, parallel.get(i)?))
            }
            None => properties
                .iter()
                .zip(parallel)
                .find(|((k, _), _)| k == name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_entry_of_a_name_in_short_and_long_lists() {
        for len in [
            0,
            3,
            PropertyIndex::MIN_LEN,
            PropertyIndex::MIN_LEN + 1,
            500,
        ] {
            let mut list: Vec<(String, usize)> = (0..len).map(|i| (format!("p{i}"), i)).collect();
            list.push(("p0".to_string(), 9999));
            let index = PropertyIndex::new(&list);
            assert_eq!(
                index.0.is_some(),
                list.len() > PropertyIndex::MIN_LEN,
                "{len}"
            );
            for i in 0..len {
                assert_eq!(index.find(&list, &format!("p{i}")).map(|e| e.1), Some(i));
            }
            assert_eq!(
                index.find(&list, "p0").map(|e| e.1),
                Some(if len == 0 { 9999 } else { 0 })
            );
            assert_eq!(index.find(&list, "missing"), None);
        }
    }
}
