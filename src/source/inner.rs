//! Mapping a position inside a decoded string scalar back to the file's bytes.
//! (Being written: see the loader task.)
