//! A bound on evaluator work that cel-go's cost does not count.
//!
//! cel-go charges `+` on lists 1 whatever their sizes (its concatenated list shares
//! both operands), and `size()` of a string 1 (it counts the runes, as crdlint
//! does). crdlint's evaluator copies a list it concatenates, so a rule such as
//! `l.all(x, size(l + [x]) > 0)` does work that grows with the square of the list
//! while its cost grows with the list: 60,000 items took 16 s, and the cost limits
//! let one resource run such rules for hours.
//!
//! Such work is counted here for the object being checked (values copied, bytes
//! read) and past [`LIMIT`] its rules are no longer evaluated: `cel-not-evaluated`
//! warnings, never a verdict crdlint cannot stand by. Rules that do what cel-go does
//! in constant time (appending in a fold, looking a key up) are not charged.

use std::cell::Cell;

/// Values copied and bytes read, for one object: about a second of work.
pub const LIMIT: u64 = 1 << 28;

thread_local! {
    static SPENT: Cell<u64> = const { Cell::new(0) };
}

/// Starts counting for a new object.
pub(crate) fn start_object() {
    SPENT.with(|s| s.set(0));
}

pub(crate) fn charge(units: usize) {
    SPENT.with(|s| s.set(s.get().saturating_add(units as u64)));
}

pub(crate) fn exceeded() -> bool {
    SPENT.with(|s| s.get() > LIMIT)
}
