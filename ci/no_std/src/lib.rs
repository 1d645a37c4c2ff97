//! `no_std` link check: names every library crate and calls into each, so the linker
//! has to resolve them without `std`.
#![no_std]

extern crate idmodel;
extern crate idmodel_core;
extern crate idmodel_md2;
extern crate idmodel_md3;
extern crate idmodel_md5;
extern crate alloc;
extern crate idmodel_mdl;
extern crate idmodel_scene;

use core::alloc::{GlobalAlloc, Layout};
use core::panic::PanicInfo;

/// The scene layer needs `alloc`; a target without `std` brings its own allocator. This
/// one refuses every request (the proof is about linking, not running).
struct NoHeap;

// SAFETY: returning null is always a valid answer of `alloc` (allocation failure), and
// `dealloc` is never given a pointer this allocator handed out.
unsafe impl GlobalAlloc for NoHeap {
    unsafe fn alloc(&self, _: Layout) -> *mut u8 {
        core::ptr::null_mut()
    }
    unsafe fn dealloc(&self, _: *mut u8, _: Layout) {}
}

#[global_allocator]
static HEAP: NoHeap = NoHeap;

#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    loop {}
}

/// Exported so the code is kept: detect a format and decode a normal from the input.
#[unsafe(no_mangle)]
pub extern "C" fn idmodel_no_std_check(first: u8, second: u8) -> u32 {
    let bytes = [b'I', b'D', b'P', first, second];
    let format = idmodel::detect(&bytes).map_or(0, |f| u32::from(f.is_supported()));
    let n = idmodel_core::md3_normal::decode_exact(u16::from_le_bytes([first, second]));
    let a = idmodel_core::anorms::nearest_anorm(n);
    let q = idmodel_core::quat::doom_quat([n[0] * 0.5, n[1] * 0.5, n[2] * 0.5]);
    let scene = idmodel_scene::Scene::default();
    format + u32::from(a) + u32::from(q[3] > 0.5) + u32::from(scene.nodes.is_empty())
}
