//! The binary's allocator: mimalloc, with the records the service keeps apart from everything
//! else (feature `mimalloc`, the default).
//!
//! A list of 50,000 ingresses allocates far more short-lived data (the API server's pages, the
//! decoded objects, the records being built) than it keeps (each record's JSON and search text
//! at its exact size). In one heap both share pages, and a page holding one kept record cannot
//! go back to the system once the list is over. [`long_lived`] allocates what it builds in a
//! heap of its own, so the pages the list's temporaries used empty completely and are returned
//! ([`give_back_memory`]).
//!
//! [`Allocator`] is the global allocator of the binary (`main.rs`) and of the library's unit
//! tests; elsewhere (the integration tests, the glibc build `--no-default-features`)
//! [`long_lived`] just runs its closure.

use std::cell::Cell;

thread_local! {
    /// Set while [`long_lived`] runs on this thread. A `const` `Cell` without a destructor:
    /// reading it never allocates, so the allocator may.
    static LONG_LIVED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `make` with its allocations on this thread placed among the data kept for long (see
/// the module's documentation). Keep `make` to the final copy: anything temporary it allocates
/// would pin a long-lived page instead.
pub(crate) fn long_lived<T>(make: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            LONG_LIVED.set(self.0);
        }
    }
    let _reset = Reset(LONG_LIVED.replace(true));
    make()
}

/// The runtime of the thread the service was prepared on (the main thread). The API client's
/// first connections are made there, and at 50k most of the free pages a forced collection
/// found were that idle thread's (8-12 MiB, 4 once it collects too: bench/ingress-dash/results.md).
static MAIN_RUNTIME: std::sync::OnceLock<tokio::runtime::Handle> = std::sync::OnceLock::new();

/// Remembers the current runtime as the one [`give_back_memory`] also collects on.
pub(crate) fn remember_main_runtime() {
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        let _ = MAIN_RUNTIME.set(runtime);
    }
}

/// Hands the pages freed on this thread and on the main thread back to the system (mimalloc
/// keeps a thread's freed pages, including blocks other threads freed, until that thread
/// allocates again or collects; both are idle after a large list). A no-op without mimalloc.
pub(crate) fn give_back_memory() {
    if !cfg!(feature = "mimalloc") {
        return;
    }
    collect();
    if let Some(runtime) = MAIN_RUNTIME.get() {
        runtime.spawn(async { collect() });
    }
}

fn collect() {
    #[cfg(feature = "mimalloc")]
    // SAFETY: mi_collect takes no pointer; it only walks mimalloc's own heaps and may be called
    // from any thread at any time.
    unsafe {
        libmimalloc_sys::mi_collect(true)
    };
}

#[cfg(feature = "mimalloc")]
pub use with_mimalloc::Allocator;

#[cfg(feature = "mimalloc")]
mod with_mimalloc {
    use std::alloc::{GlobalAlloc, Layout};
    use std::sync::atomic::{AtomicPtr, Ordering};

    use libmimalloc_sys::{mi_heap_delete, mi_heap_malloc_aligned, mi_heap_new, mi_heap_t};
    use mimalloc::MiMalloc;

    use super::LONG_LIVED;

    /// mimalloc, placing what [`super::long_lived`] builds in a heap of its own. Every block is
    /// freed and reallocated by mimalloc whichever heap holds it (`mi_free` finds the page).
    pub struct Allocator;

    /// The heap of the long-lived data: mimalloc 3's heaps may be allocated from on any thread.
    static HEAP: AtomicPtr<mi_heap_t> = AtomicPtr::new(std::ptr::null_mut());

    fn heap() -> *mut mi_heap_t {
        let heap = HEAP.load(Ordering::Acquire);
        if !heap.is_null() {
            return heap;
        }
        // SAFETY: mi_heap_new takes no argument; it allocates the heap's own metadata through
        // mimalloc's internals, not through this allocator.
        let fresh = unsafe { mi_heap_new() };
        match HEAP.compare_exchange(heap, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => fresh,
            Err(winner) => {
                // SAFETY: `fresh` was created above, nothing was allocated from it, and no
                // other thread has seen it.
                unsafe { mi_heap_delete(fresh) };
                winner
            }
        }
    }

    // SAFETY: every method hands the layout to mimalloc, whose blocks honour size and alignment
    // (`mi_heap_malloc_aligned` as `mi_malloc_aligned`); `dealloc` and `realloc` accept a block of
    // any heap.
    unsafe impl GlobalAlloc for Allocator {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let heap = if LONG_LIVED.get() {
                heap()
            } else {
                std::ptr::null_mut()
            };
            if heap.is_null() {
                // SAFETY: the caller's contract, passed on.
                unsafe { MiMalloc.alloc(layout) }
            } else {
                // SAFETY: `heap` is a live heap (never deleted once published).
                unsafe { mi_heap_malloc_aligned(heap, layout.size(), layout.align()) as *mut u8 }
            }
        }

        /// Always the ordinary heap: what [`super::long_lived`] builds is copied, not zeroed.
        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller's contract, passed on.
            unsafe { MiMalloc.alloc_zeroed(layout) }
        }

        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: the caller's contract; mi_free takes a block of any heap.
            unsafe { MiMalloc.dealloc(ptr, layout) }
        }

        #[inline]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: the caller's contract; mi_realloc_aligned takes a block of any heap.
            unsafe { MiMalloc.realloc(ptr, layout, new_size) }
        }
    }

    /// The library's own tests run on it too, so every one of them exercises it.
    #[cfg(test)]
    #[global_allocator]
    static TEST_ALLOCATOR: Allocator = Allocator;

    #[cfg(test)]
    mod tests {
        use std::ffi::c_void;

        use k8s_openapi::api::networking::v1::Ingress;
        use serde_json::json;

        use super::*;
        use crate::access::redaction::Redaction;
        use crate::records::{IngressRecord, StoredRecord};

        unsafe extern "C" {
            /// mimalloc 3 (not declared by libmimalloc-sys 0.1.49).
            fn mi_heap_contains(heap: *const mi_heap_t, p: *const c_void) -> bool;
        }

        #[test]
        fn blocks_of_the_long_lived_heap_are_aligned_freed_and_reallocated_by_mimalloc() {
            let allocator = Allocator;
            for align in [1, 8, 16, 64, 4096] {
                let layout = Layout::from_size_align(100, align).unwrap();
                let block = super::super::long_lived(|| unsafe { allocator.alloc(layout) });
                assert!(!block.is_null());
                assert_eq!(block as usize % align, 0);
                // SAFETY: `block` is 100 bytes from this allocator with `layout`.
                unsafe {
                    assert!(mi_heap_contains(heap(), block as *const c_void));
                    block.write_bytes(7, 100);
                    let grown = allocator.realloc(block, layout, 10_000);
                    assert_eq!(*grown.add(99), 7);
                    allocator.dealloc(grown, Layout::from_size_align(10_000, align).unwrap());
                }
            }
            let layout = Layout::from_size_align(100, 8).unwrap();
            // SAFETY: a block allocated and freed with `layout`.
            unsafe {
                let ordinary = allocator.alloc(layout);
                assert!(!mi_heap_contains(heap(), ordinary as *const c_void));
                allocator.dealloc(ordinary, layout);
            }
        }

        #[test]
        fn a_stored_records_json_is_in_the_long_lived_heap_and_its_builders_temporaries_are_not() {
            let ingress: Ingress = serde_json::from_value(json!({
                "metadata": {"name": "web", "namespace": "shop", "uid": "u1", "resourceVersion": "1"},
                "spec": {"rules": [{"host": "Shop.Example.com"}]},
            }))
            .unwrap();
            let record = IngressRecord::from_ingress(&ingress, &Redaction::none());
            let stored = StoredRecord::new(&record);
            // SAFETY: mi_heap_contains only compares the address with the heap's pages.
            unsafe {
                assert!(mi_heap_contains(
                    heap(),
                    stored.packed_json().as_ptr().cast()
                ));
                assert!(!mi_heap_contains(heap(), record.name.as_ptr().cast()));
            }
            assert!(stored.matches("shop.example.com"));
        }
    }
}
