//! Image fixtures made by the tests: byte builders for PCX, WAL and TGA (field by field,
//! as the spec lays them out) and the `image` crate's encoders for PNG and JPEG.
#![allow(dead_code)] // each test file uses some of these

use idmodel_test_support::LeBuffer;

/// The test picture, 2 × 2, top row first: red, green / blue, white.
pub const RGB: [[u8; 3]; 4] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];

/// A palette with the test colours at indices 1–4, index i → (i, i, i) elsewhere, and
/// index 255 magenta.
pub fn palette() -> Vec<u8> {
    let mut p: Vec<u8> = (0..=255u8).flat_map(|i| [i, i, i]).collect();
    for (k, c) in RGB.iter().enumerate() {
        p[(k + 1) * 3..(k + 2) * 3].copy_from_slice(c);
    }
    p[255 * 3..].copy_from_slice(&[255, 0, 255]);
    p
}

/// An 8-bit PCX of `width × height` indices (rows top to bottom), RLE-encoded one byte
/// at a time (runs of 1 for values ≥ 0xC0), with `palette` as its trailing palette.
pub fn pcx(width: u16, height: u16, indices: &[u8], palette: &[u8]) -> Vec<u8> {
    let mut b = LeBuffer::new();
    b.u8(0x0A) // manufacturer
        .u8(5) // version
        .u8(1) // encoding: RLE
        .u8(8) // bits_per_pixel
        .u16(0) // xmin
        .u16(0) // ymin
        .u16(width - 1) // xmax
        .u16(height - 1) // ymax
        .u16(72) // hres
        .u16(72) // vres
        .fill(48, 0) // EGA palette
        .u8(0) // reserved
        .u8(1) // color_planes
        .u16(width) // bytes_per_line
        .u16(1) // palette_type
        .fill(58, 0); // filler
    assert_eq!(b.len(), 128);
    for &i in indices {
        if i >= 0xC0 {
            b.u8(0xC1).u8(i); // a run of one
        } else {
            b.u8(i);
        }
    }
    b.u8(0x0C).bytes(palette);
    b.into_vec()
}

/// A Quake II `.wal` of `width × height` indices.
pub fn wal(width: u32, height: u32, indices: &[u8]) -> Vec<u8> {
    let mut b = LeBuffer::new();
    b.name("textures/test", 32) // name
        .u32(width) // width
        .u32(height) // height
        .u32(100) // offsets[0]
        .u32(0) // offsets[1]
        .u32(0) // offsets[2]
        .u32(0) // offsets[3]
        .name("", 32) // animname
        .i32(0) // flags
        .i32(0) // contents
        .i32(0); // value
    assert_eq!(b.len(), 100);
    b.bytes(indices);
    b.into_vec()
}

/// A TGA header.
#[allow(clippy::too_many_arguments)]
fn tga_header(
    ty: u8,
    map: Option<(u16, u8)>,
    w: u16,
    h: u16,
    depth: u8,
    descriptor: u8,
) -> LeBuffer {
    let mut b = LeBuffer::new();
    b.u8(0) // id length
        .u8(u8::from(map.is_some())) // colour map type
        .u8(ty) // image type
        .u16(0) // colour map first entry
        .u16(map.map_or(0, |m| m.0)) // colour map length
        .u8(map.map_or(0, |m| m.1)) // colour map entry size
        .u16(0) // x origin
        .u16(0) // y origin
        .u16(w) // width
        .u16(h) // height
        .u8(depth) // pixel depth
        .u8(descriptor); // descriptor: alpha bits, bit 4 right-to-left, bit 5 top-down
    assert_eq!(b.len(), 18);
    b
}

/// The test picture's rows in file order: bottom-up unless `top_down`.
fn rows(top_down: bool) -> Vec<usize> {
    if top_down {
        vec![0, 1, 2, 3]
    } else {
        vec![2, 3, 0, 1]
    }
}

/// The test picture as a TGA of type `ty` (1, 2, 3, 9, 10, 11), 24-bit colour (or 32 with
/// `alpha`: alpha 128 on the green texel), 8-bit grey (types 3, 11: the red channel), or
/// colour-mapped (types 1, 9); RLE types as one raw packet of the first two pixels and
/// runs of one after; `top_down` sets descriptor bit 5.
pub fn tga(ty: u8, alpha: bool, top_down: bool) -> Vec<u8> {
    let origin = if top_down { 0x20 } else { 0 };
    let order = rows(top_down);
    let (depth, alpha_bits) = match (ty, alpha) {
        (3 | 11, _) | (1 | 9, _) => (8, 0),
        (_, true) => (32, 8),
        (_, false) => (24, 0),
    };
    let map = matches!(ty, 1 | 9).then_some((4u16, 24u8));
    let mut b = tga_header(ty, map, 2, 2, depth, origin | alpha_bits);
    if map.is_some() {
        for c in RGB {
            b.u8(c[2]).u8(c[1]).u8(c[0]); // BGR entries
        }
    }
    let pixel = |k: usize| -> Vec<u8> {
        let c = RGB[k];
        match (ty, depth) {
            (1 | 9, _) => vec![u8::try_from(k).unwrap()],
            (3 | 11, _) => vec![c[0]],
            (_, 32) => vec![c[2], c[1], c[0], if k == 1 { 128 } else { 255 }],
            _ => vec![c[2], c[1], c[0]],
        }
    };
    let rle = matches!(ty, 9..=11);
    for (n, &k) in order.iter().enumerate() {
        if rle {
            if n == 0 {
                b.u8(1); // raw packet of 2 pixels
                b.bytes(&pixel(k));
                b.bytes(&pixel(order[1]));
            } else if n >= 2 {
                b.u8(0x80); // run packet of 1 pixel
                b.bytes(&pixel(k));
            }
        } else {
            b.bytes(&pixel(k));
        }
    }
    b.into_vec()
}

/// A 32-bit type 2 TGA whose descriptor says 0 alpha bits (the engines read the 4th
/// byte as alpha anyway): 1 × 1, alpha 7.
pub fn tga_32_no_alpha_bits() -> Vec<u8> {
    let mut b = tga_header(2, None, 1, 1, 32, 0);
    b.u8(10).u8(20).u8(30).u8(7);
    b.into_vec()
}

/// The test picture as PNG (RGBA) through the `image` crate's encoder.
pub fn png() -> Vec<u8> {
    let mut rgba = Vec::new();
    for c in RGB {
        rgba.extend(c);
        rgba.push(255);
    }
    let img = image::RgbaImage::from_raw(2, 2, rgba).unwrap();
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// An 8 × 8 JPEG, solid `rgb`, through the `image` crate's encoder.
pub fn jpeg(rgb: [u8; 3]) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(8, 8, image::Rgb(rgb));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Jpeg).unwrap();
    out.into_inner()
}

/// RGBA bytes of the test picture (alpha 255).
pub fn rgba() -> Vec<u8> {
    RGB.iter().flat_map(|c| [c[0], c[1], c[2], 255]).collect()
}
