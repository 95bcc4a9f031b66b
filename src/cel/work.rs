//! A bound on evaluator work that cel-go's cost does not count.
//!
//! cel-go charges `+` on lists 1 whatever their sizes (its concatenated list shares
//! both operands), and many calls on a string 1 whatever its length (`size()`,
//! `isURL`, conversions, a map lookup by it). crdlint's evaluator copies a list it
//! concatenates, so a rule such as `l.all(x, size(l + [x]) > 0)` does work that
//! grows with the square of the list while its cost grows with the list: 60,000 items
//! took 16 s, and the cost limits let one resource run such rules for hours; and
//! `l.all(x, isURL(s))` read a 1 MB string 20,000 times in 80 s.
//!
//! Such work is counted here for the object being checked (values copied, bytes of
//! string arguments and elements compared by equality beyond ten per unit of the
//! call's cost, digits read into big numbers) and past [`LIMIT`] its rules are no longer evaluated: `cel-not-evaluated`
//! warnings, never a verdict crdlint cannot stand by. Rules that do what cel-go does
//! in constant time (appending in a fold, looking a key up) are not charged.

use std::cell::Cell;

/// Units of work for one object: about a second.
pub const LIMIT: u64 = 1 << 28;

thread_local! {
    /// Work spent on the object being checked, and how many checks of it are under
    /// way (an embedded resource's rules run inside its parent's check).
    static METER: Cell<(u64, usize)> = const { Cell::new((0, 0)) };
    /// Elements CEL equality compared since the call under way started (read by it).
    static COMPARED: Cell<usize> = const { Cell::new(0) };
}

/// Counts `n` elements compared by CEL equality. cel-go charges `==` by the size of
/// its operands (a tenth per element of a list; an object's size is its number of
/// fields), but compares them to the bottom: `self == oldSelf` on an object holding a
/// list of 400,000 items costs 1. The call that compared them charges what its cost
/// did not cover ([`take_compared`]).
pub(crate) fn compared(n: usize) {
    COMPARED.with(|c| c.set(c.get().saturating_add(n)));
}

/// The elements compared since the last call, and a fresh count.
pub(crate) fn take_compared() -> usize {
    COMPARED.with(|c| c.replace(0))
}

/// Counts work for one object until dropped. Outside any object nothing is counted.
pub(crate) struct ObjectScope(());

/// Starts counting for an object (or goes on counting for the one it is part of).
pub(crate) fn start_object() -> ObjectScope {
    METER.with(|m| {
        let (spent, depth) = m.get();
        m.set((if depth == 0 { 0 } else { spent }, depth + 1));
    });
    ObjectScope(())
}

impl Drop for ObjectScope {
    fn drop(&mut self) {
        METER.with(|m| {
            let (spent, depth) = m.get();
            m.set((spent, depth.saturating_sub(1)));
        });
    }
}

pub(crate) fn charge(units: usize) {
    METER.with(|m| {
        let (spent, depth) = m.get();
        if depth > 0 {
            m.set((spent.saturating_add(units as u64), depth));
        }
    });
}

pub(crate) fn exceeded() -> bool {
    METER.with(|m| {
        let (spent, depth) = m.get();
        depth > 0 && spent > LIMIT
    })
}
