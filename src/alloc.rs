//! The global allocator of the `crdlint` binary and its benchmark: mimalloc, through
//! its plain entry points where the alignment allows. (The `mimalloc` crate's
//! `MiMalloc` always calls the aligned ones, `mi_malloc_aligned` and friends, which
//! cost more per call; almost every allocation here asks for 8 bytes of alignment or
//! less. Corpus check: 4.406 -> 4.245 G instructions.)

use std::alloc::{GlobalAlloc, Layout};

use libmimalloc_sys as mi;

/// Install with `#[global_allocator] static A: Allocator = Allocator;`.
pub struct Allocator;

/// Every mimalloc block is a multiple of 8 bytes and aligned to at least 8.
const PLAIN_ALIGN: usize = 8;

// SAFETY: each method forwards the same request to mimalloc; blocks from its plain and
// aligned entry points are one kind of block, which `mi_free` frees and either
// `mi_realloc` variant resizes, keeping the alignment asked for.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { mi::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks keep the alignment asked for through growing and shrinking, keep their
    /// contents, and zeroed ones are zero.
    #[test]
    fn blocks_are_aligned_and_resizable() {
        let a = Allocator;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 7, 8, 9, 24, 100, 5000, 70_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes, valid layouts; each block is freed once with
                // the layout it has.
                unsafe {
                    let p = a.alloc_zeroed(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == 0));
                    p.write_bytes(0xAB, size);
                    let grown = a.realloc(p, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size} align {align}");
                    assert!(
                        std::slice::from_raw_parts(grown, size)
                            .iter()
                            .all(|&b| b == 0xAB)
                    );
                    let grown_layout = Layout::from_size_align(size * 3, align).unwrap();
                    let small = size.div_ceil(2);
                    let shrunk = a.realloc(grown, grown_layout, small);
                    assert_eq!(shrunk as usize % align, 0, "shrunk {size} align {align}");
                    assert!(
                        std::slice::from_raw_parts(shrunk, small)
                            .iter()
                            .all(|&b| b == 0xAB)
                    );
                    a.dealloc(shrunk, Layout::from_size_align(small, align).unwrap());
                    let q = a.alloc(layout);
                    assert_eq!(q as usize % align, 0);
                    a.dealloc(q, layout);
                }
            }
        }
    }
}
