//! Runtime cost (to do).
