//! The RAM claims the bench reports, as tests: serving allocates nothing, and a 1 MiB
//! blob takes the same static RAM and peak stack as a 4 KiB one.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::process::Command;

use emcp_bench::{case_named, case_names, CountSink, Era};

thread_local! {
    /// Allocations made by this thread (the test harness's threads do not count).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

struct PerThread;

// SAFETY: forwards to the system allocator unchanged.
unsafe impl GlobalAlloc for PerThread {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: PerThread = PerThread;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn serving_allocates_nothing() {
    for era in Era::ALL {
        for name in case_names(era) {
            let mut case = case_named(&name, era).expect("a case");
            let mut out = CountSink::default();
            let before = allocations();
            case.run(&mut out);
            case.run(&mut out);
            assert_eq!(allocations() - before, 0, "{name} {}", era.name());
        }
    }
    // The counter counts: building a case allocates.
    let before = allocations();
    drop(case_named("read_sensor", Era::Legacy));
    assert!(allocations() > before);
}

#[test]
fn a_1_mib_blob_needs_the_ram_of_a_4_kib_one() {
    let out = Command::new(env!("CARGO_BIN_EXE_scaling"))
        .args(["blob_4096", "blob_1048576"])
        .output()
        .expect("run scaling");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{table}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // | case | era | request | response | server | framer | stack | heap |
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| l.starts_with("| blob_"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 4, "{table}");
    for era in Era::ALL {
        let of = |case: &str| {
            rows.iter()
                .find(|r| r[1] == case && r[2] == era.name())
                .unwrap_or_else(|| panic!("{case} {}: {table}", era.name()))
        };
        let (small, large) = (of("blob_4096"), of("blob_1048576"));
        assert!(large[4].parse::<usize>().unwrap() > 1_000_000, "{table}");
        assert_eq!(small[5..], large[5..], "{table}");
        assert_eq!(large[8], "0", "{table}");
    }
}
