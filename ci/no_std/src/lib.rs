//! `no_std` link check: names every library crate and calls into each, so the linker
//! has to resolve them without `std`.
#![no_std]

extern crate idmodel;
extern crate idmodel_core;
extern crate idmodel_md2;
extern crate idmodel_md3;
extern crate idmodel_md5;
extern crate idmodel_mdl;

use core::panic::PanicInfo;

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
    format + u32::from(a) + u32::from(q[3] > 0.5)
}
