//! id's packed vertex, shared by Quake MDL (`trivertx_t`, `modelgen.h`) and Quake II MD2
//! (`dtrivertx_t`, `qfiles.h`): three bytes of position and an index into the 162-entry
//! normal table, decoded as `scale · v + translate` per axis.
//!
//! ```
//! use idmodel_core::trivertx::TriVertex;
//! let v = TriVertex { v: [2, 0, 255], light_normal_index: 4 };
//! assert_eq!(v.position([0.5, 1.0, 1.0], [1.0, 0.0, -255.0]), [2.0, 0.0, 0.0]);
//! assert_eq!(v.normal(), idmodel_core::anorms::ANORMS[4]);
//! let bad = TriVertex { light_normal_index: 200, ..v };
//! assert_eq!(bad.normal(), [0.0, 0.0, 1.0]); // past the table: the documented fallback
//! assert!(!bad.normal_in_table());
//! ```

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::anorms;

/// `trivertx_t` / `dtrivertx_t`: one packed vertex (also the packed bounds of an MDL pose
/// or frame group, whose normal byte is unused).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    FromBytes,
    IntoBytes,
    KnownLayout,
    Immutable,
    Unaligned,
)]
#[repr(C)]
pub struct TriVertex {
    /// `v`: the position, 0..=255 per axis, decoded as `scale · v + translate`
    /// (MDL: the header's `scale` and `scale_origin`; MD2: the frame's `scale` and
    /// `translate`).
    pub v: [u8; 3],
    /// `lightnormalindex`: index into the 162-entry normal table ([`anorms::ANORMS`]).
    pub light_normal_index: u8,
}
const _: () = assert!(size_of::<TriVertex>() == 4);

impl TriVertex {
    /// The decoded position, [`decode_position`] of [`TriVertex::v`].
    pub fn position(&self, scale: [f32; 3], translate: [f32; 3]) -> [f32; 3] {
        decode_position(self.v, scale, translate)
    }

    /// The unit normal from the 162-entry table; an index of 162..=255 (which the
    /// engines read past their table for) gives the documented fallback `(0, 0, 1)`.
    pub fn normal(&self) -> [f32; 3] {
        anorms::anorm_or_up(self.light_normal_index)
    }

    /// True when [`TriVertex::light_normal_index`] is below 162 (inside the table).
    pub fn normal_in_table(&self) -> bool {
        usize::from(self.light_normal_index) < anorms::NUM_VERTEX_NORMALS
    }
}

/// `scale · v + translate` per axis, in `f32` (MDL §1.3.1, MD2 §2): one multiply and one
/// add per axis, in this order, so every build gives the engines' bits.
///
/// ```
/// use idmodel_core::trivertx::decode_position;
/// assert_eq!(decode_position([1, 2, 3], [2.0; 3], [0.5, 0.0, -6.0]), [2.5, 4.0, 0.0]);
/// ```
pub fn decode_position(v: [u8; 3], scale: [f32; 3], translate: [f32; 3]) -> [f32; 3] {
    [
        scale[0] * f32::from(v[0]) + translate[0],
        scale[1] * f32::from(v[1]) + translate[1],
        scale[2] * f32::from(v[2]) + translate[2],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The product is commutative in IEEE arithmetic: the order MD2 used to write
    /// (`v · scale`) gives the same bits as `scale · v`, for awkward values too.
    #[test]
    fn decode_matches_both_former_orders() {
        let scales = [0.1f32, -3.7e-5, 1.0e30, f32::MIN_POSITIVE, f32::NAN, 0.3];
        let translates = [0.0f32, -0.0, 1.0e-30, 12345.678, f32::INFINITY];
        for s in scales {
            for t in translates {
                for b in [0u8, 1, 17, 128, 255] {
                    let got = decode_position([b; 3], [s; 3], [t; 3])[0];
                    let md2 = f32::from(b) * s + t;
                    assert_eq!(got.to_bits(), md2.to_bits(), "s={s} t={t} v={b}");
                }
            }
        }
    }

    #[test]
    fn normal_fallback_at_the_table_end() {
        let last = TriVertex {
            v: [0; 3],
            light_normal_index: 161,
        };
        assert!(last.normal_in_table());
        assert_eq!(Some(last.normal()), anorms::anorm(161));
        let past = TriVertex {
            light_normal_index: 162,
            ..last
        };
        assert!(!past.normal_in_table());
        assert_eq!(past.normal(), [0.0, 0.0, 1.0]);
    }
}
