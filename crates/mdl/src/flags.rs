//! The header's `flags` word as a typed bit set (§1.3.6).

use core::fmt;

/// The `EF_*` bits of the MDL header, every bit kept (unknown bits included).
///
/// ```
/// use idmodel_mdl::{Flags, Trail};
/// let f = Flags::from_raw(0x88); // v_spike.mdl: EF_ROTATE | EF_TRACER3
/// assert!(f.contains(Flags::ROTATE));
/// assert_eq!(f.trail(), Some(Trail::Tracer3));
/// assert_eq!(f.to_string(), "rotate | tracer3");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(u32);

impl Flags {
    /// `EF_ROCKET` (1): rocket trail and a dynamic light of radius 200.
    pub const ROCKET: Flags = Flags(1);
    /// `EF_GRENADE` (2): smoke trail.
    pub const GRENADE: Flags = Flags(2);
    /// `EF_GIB` (4): blood trail.
    pub const GIB: Flags = Flags(4);
    /// `EF_ROTATE` (8): the model spins 100°/s about its vertical axis (bonus items).
    pub const ROTATE: Flags = Flags(8);
    /// `EF_TRACER` (16): green split trail (wizard spit).
    pub const TRACER: Flags = Flags(16);
    /// `EF_ZOMGIB` (32): small blood trail.
    pub const ZOMGIB: Flags = Flags(32);
    /// `EF_TRACER2` (64): orange split trail (hell knight spike). Does not rotate.
    pub const TRACER2: Flags = Flags(64);
    /// `EF_TRACER3` (128): purple trail (vore ball).
    pub const TRACER3: Flags = Flags(128);
    /// `MF_HOLEY` (0x4000, a MarkV/QuakeSpasm convention): palette index 255 is transparent.
    pub const HOLEY: Flags = Flags(0x4000);
    /// The bits QuakeSpasm keeps (`Mod_SetExtraFlags`: low byte plus `MF_HOLEY`).
    pub const QUAKESPASM_KEPT: Flags = Flags(0xFF | 0x4000);

    const NAMES: [(Flags, &'static str); 9] = [
        (Flags::ROCKET, "rocket"),
        (Flags::GRENADE, "grenade"),
        (Flags::GIB, "gib"),
        (Flags::ROTATE, "rotate"),
        (Flags::TRACER, "tracer"),
        (Flags::ZOMGIB, "zomgib"),
        (Flags::TRACER2, "tracer2"),
        (Flags::TRACER3, "tracer3"),
        (Flags::HOLEY, "holey"),
    ];

    /// The flags of a header's `flags` field (reinterpreted, not converted).
    pub const fn from_raw(raw: i32) -> Flags {
        Flags(u32::from_le_bytes(raw.to_le_bytes()))
    }

    /// The flags from their bits.
    pub const fn from_bits(bits: u32) -> Flags {
        Flags(bits)
    }

    /// The bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The value to store in the header.
    pub const fn to_raw(self) -> i32 {
        i32::from_le_bytes(self.0.to_le_bytes())
    }

    /// True when every bit of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The union.
    #[must_use]
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// The bits that have no name here (not an `EF_*` bit nor `MF_HOLEY`).
    pub const fn unknown_bits(self) -> u32 {
        self.0 & !(0xFF | 0x4000)
    }

    /// True when palette index 255 is transparent (`MF_HOLEY`).
    pub const fn holey(self) -> bool {
        self.contains(Flags::HOLEY)
    }

    /// True when the model spins (`EF_ROTATE`); independent of the trail.
    pub const fn rotates(self) -> bool {
        self.contains(Flags::ROTATE)
    }

    /// The trail the client draws. `CL_RelinkEntities` tests the bits in the order
    /// GIB > ZOMGIB > TRACER > TRACER2 > ROCKET > GRENADE > TRACER3 and draws only the
    /// first one set.
    pub const fn trail(self) -> Option<Trail> {
        let mut rest: &[(Flags, Trail)] = &TRAIL_ORDER;
        while let [(flag, trail), tail @ ..] = rest {
            if self.contains(*flag) {
                return Some(*trail);
            }
            rest = tail;
        }
        None
    }

    /// The flags QuakeSpasm keeps after loading (`flags & (0xFF | MF_HOLEY)`).
    pub const fn as_quakespasm(self) -> Flags {
        Flags(self.0 & Flags::QUAKESPASM_KEPT.0)
    }
}

impl core::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        self.union(rhs)
    }
}

impl fmt::Display for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (flag, name) in Flags::NAMES {
            if self.contains(flag) {
                if !first {
                    f.write_str(" | ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        let unknown = self.unknown_bits();
        if unknown != 0 {
            if !first {
                f.write_str(" | ")?;
            }
            write!(f, "{unknown:#x}")?;
            first = false;
        }
        if first {
            f.write_str("none")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Flags({:#x}: {self})", self.0)
    }
}

/// The trail flags in the order the client tests them (the first one set wins).
const TRAIL_ORDER: [(Flags, Trail); 7] = [
    (Flags::GIB, Trail::Gib),
    (Flags::ZOMGIB, Trail::ZomGib),
    (Flags::TRACER, Trail::Tracer),
    (Flags::TRACER2, Trail::Tracer2),
    (Flags::ROCKET, Trail::Rocket),
    (Flags::GRENADE, Trail::Grenade),
    (Flags::TRACER3, Trail::Tracer3),
];

/// The particle trail chosen by [`Flags::trail`], with the client's trail type number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trail {
    /// `EF_ROCKET`: fire trail (type 0) plus a dynamic light.
    Rocket,
    /// `EF_GRENADE`: smoke (type 1).
    Grenade,
    /// `EF_GIB`: blood (type 2).
    Gib,
    /// `EF_TRACER`: green split trail (type 3).
    Tracer,
    /// `EF_ZOMGIB`: small blood (type 4).
    ZomGib,
    /// `EF_TRACER2`: orange split trail (type 5).
    Tracer2,
    /// `EF_TRACER3`: purple trail (type 6).
    Tracer3,
}

impl Trail {
    /// The `R_RocketTrail` type number.
    pub const fn type_number(self) -> u8 {
        match self {
            Trail::Rocket => 0,
            Trail::Grenade => 1,
            Trail::Gib => 2,
            Trail::Tracer => 3,
            Trail::ZomGib => 4,
            Trail::Tracer2 => 5,
            Trail::Tracer3 => 6,
        }
    }
}
