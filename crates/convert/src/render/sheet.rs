//! `render DIR|ARCHIVE -o sheet.png`: a contact sheet, one thumbnail per model in a grid,
//! each with its file name written under it in a tiny bitmap font of our own (3×5 pixel
//! glyphs drawn twice as large: lowercase letters, digits and `. _ - : /`; other
//! characters are drawn as `?`, uppercase as lowercase). Names too long for a cell are cut
//! and end in `..`.

use idmodel_scene::render::Picture;

/// The most cells a sheet may have.
pub const MAX_CELLS: usize = 400;

/// Glyph scale: each font pixel is a `SCALE × SCALE` square.
const SCALE: u32 = 2;
/// A glyph's advance in sheet pixels (3 columns and 1 of space, scaled).
const ADVANCE: u32 = 4 * SCALE;
/// The label strip under each thumbnail, in pixels (5 rows, scaled, and a margin).
pub const LABEL_HEIGHT: u32 = 5 * SCALE + 6;

/// The width of "error" in pixels.
const ERROR_WIDTH: u32 = 5 * ADVANCE - SCALE;
/// A glyph's height in pixels.
const GLYPH_HEIGHT: u32 = 5 * SCALE;

/// Label text colour and the colour of a failed cell.
const INK: [u8; 4] = [235, 235, 235, 255];
const FAILED: [u8; 4] = [110, 110, 110, 255];

/// The 3×5 glyph of `c`: five rows, top first, three bits each (4 = left column).
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_lowercase() {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        'a' => [2, 5, 7, 5, 5],
        'b' => [6, 5, 6, 5, 6],
        'c' => [3, 4, 4, 4, 3],
        'd' => [6, 5, 5, 5, 6],
        'e' => [7, 4, 6, 4, 7],
        'f' => [7, 4, 6, 4, 4],
        'g' => [3, 4, 5, 5, 3],
        'h' => [5, 5, 7, 5, 5],
        'i' => [7, 2, 2, 2, 7],
        'j' => [1, 1, 1, 5, 2],
        'k' => [5, 5, 6, 5, 5],
        'l' => [4, 4, 4, 4, 7],
        'm' => [5, 7, 7, 5, 5],
        'n' => [6, 5, 5, 5, 5],
        'o' => [2, 5, 5, 5, 2],
        'p' => [6, 5, 6, 4, 4],
        'q' => [2, 5, 5, 6, 3],
        'r' => [6, 5, 6, 5, 5],
        's' => [3, 4, 2, 1, 6],
        't' => [7, 2, 2, 2, 2],
        'u' => [5, 5, 5, 5, 7],
        'v' => [5, 5, 5, 5, 2],
        'w' => [5, 5, 7, 7, 5],
        'x' => [5, 5, 2, 5, 5],
        'y' => [5, 5, 2, 2, 2],
        'z' => [7, 1, 2, 4, 7],
        '.' => [0, 0, 0, 0, 2],
        '_' => [0, 0, 0, 0, 7],
        '-' => [0, 0, 7, 0, 0],
        ':' => [0, 2, 0, 2, 0],
        '/' => [1, 1, 2, 4, 4],
        ' ' => [0; 5],
        _ => [7, 1, 2, 0, 2],
    }
}

/// `name` cut to at most `max` characters, ending in `..` when cut.
pub fn fit(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        return name.to_owned();
    }
    let keep = max.saturating_sub(2);
    let mut out: String = name.chars().take(keep).collect();
    out.push_str(&"..".chars().take(max).collect::<String>());
    out
}

/// How many glyphs fit across `width` pixels.
pub fn glyphs_across(width: u32) -> usize {
    usize::try_from(width.checked_div(ADVANCE).unwrap_or(0)).unwrap_or(0)
}

/// A sheet being drawn: `cols × rows` cells of `cell_w × cell_h` thumbnails with a label
/// strip under each.
pub struct Sheet {
    cols: u32,
    cell_w: u32,
    cell_h: u32,
    picture: Picture,
}

/// `cols` and `rows` for `n` cells: as square as possible, wider than tall.
pub fn grid(n: usize) -> (u32, u32) {
    let n = u32::try_from(n).unwrap_or(u32::MAX).max(1);
    let mut cols = 1u32;
    while cols.saturating_mul(cols) < n {
        cols = cols.saturating_add(1);
    }
    let rows = n.div_ceil(cols);
    (cols, rows)
}

impl Sheet {
    /// A sheet for `n` cells of `cell_w × cell_h`, filled with `background`; `Err` (one
    /// line) past [`MAX_CELLS`] or a side over `max_side`.
    pub fn new(
        n: usize,
        (cell_w, cell_h): (u32, u32),
        background: [u8; 4],
        max_side: u32,
    ) -> Result<Sheet, String> {
        if n > MAX_CELLS {
            return Err(format!(
                "{n} models is more than the {MAX_CELLS} cells a sheet may have"
            ));
        }
        let (cols, rows) = grid(n);
        let width = cols.checked_mul(cell_w);
        let height = cell_h
            .checked_add(LABEL_HEIGHT)
            .and_then(|h| h.checked_mul(rows));
        let (Some(width), Some(height)) = (width, height) else {
            return Err("the sheet would be too large".to_owned());
        };
        if width > max_side || height > max_side {
            return Err(format!(
                "a sheet of {cols}x{rows} cells of {cell_w}x{cell_h} is {width}x{height}, over {max_side}x{max_side} (a smaller --size)"
            ));
        }
        let pixels = usize::try_from(u64::from(width).saturating_mul(u64::from(height)))
            .map_err(|e| e.to_string())?;
        let rgba = background
            .iter()
            .copied()
            .cycle()
            .take(pixels.saturating_mul(4))
            .collect();
        Ok(Sheet {
            cols,
            cell_w,
            cell_h,
            picture: Picture {
                width,
                height,
                rgba,
            },
        })
    }

    /// The top-left pixel of cell `i`.
    fn origin(&self, i: usize) -> (u32, u32) {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        let (col, row) = (
            i.checked_rem(self.cols).unwrap_or(0),
            i.checked_div(self.cols).unwrap_or(0),
        );
        (
            col.saturating_mul(self.cell_w),
            row.saturating_mul(self.cell_h.saturating_add(LABEL_HEIGHT)),
        )
    }

    fn put(&mut self, x: u32, y: u32, rgba: [u8; 4]) {
        if x >= self.picture.width || y >= self.picture.height {
            return;
        }
        let at = u64::from(y)
            .saturating_mul(u64::from(self.picture.width))
            .saturating_add(u64::from(x))
            .saturating_mul(4);
        let Ok(at) = usize::try_from(at) else { return };
        if let Some(dst) = self.picture.rgba.get_mut(at..at.saturating_add(4)) {
            dst.copy_from_slice(&rgba);
        }
    }

    /// Draws `text` with its top-left at `(x, y)`.
    fn text(&mut self, x: u32, y: u32, text: &str) {
        let mut gx = x;
        for c in text.chars() {
            for (row, bits) in (0u32..).zip(glyph(c)) {
                for col in 0..3u32 {
                    if bits & (4 >> col) == 0 {
                        continue;
                    }
                    for dy in 0..SCALE {
                        for dx in 0..SCALE {
                            let px = gx
                                .saturating_add(col.saturating_mul(SCALE))
                                .saturating_add(dx);
                            let py = y
                                .saturating_add(row.saturating_mul(SCALE))
                                .saturating_add(dy);
                            self.put(px, py, INK);
                        }
                    }
                }
            }
            gx = gx.saturating_add(ADVANCE);
        }
    }

    /// Writes `label` centred under cell `i`.
    fn label(&mut self, i: usize, label: &str) {
        let (x, y) = self.origin(i);
        let text = fit(label, glyphs_across(self.cell_w));
        let len = u32::try_from(text.chars().count()).unwrap_or(0);
        let used = len.saturating_mul(ADVANCE).saturating_sub(SCALE);
        let left = x.saturating_add(self.cell_w.saturating_sub(used).checked_div(2).unwrap_or(0));
        self.text(left, y.saturating_add(self.cell_h).saturating_add(3), &text);
    }

    /// Copies `thumb` (of the cell size) into cell `i` and writes `label` under it.
    pub fn cell(&mut self, i: usize, thumb: &Picture, label: &str) {
        let (x, y) = self.origin(i);
        let row_bytes = usize::try_from(thumb.width.saturating_mul(4)).unwrap_or(0);
        for (r, row) in (0u32..).zip(thumb.rgba.chunks_exact(row_bytes.max(1))) {
            for (c, px) in (0u32..).zip(row.chunks_exact(4)) {
                if let &[r0, g, b, a] = px {
                    self.put(x.saturating_add(c), y.saturating_add(r), [r0, g, b, a]);
                }
            }
        }
        self.label(i, label);
    }

    /// Cell `i` for a model that failed: grey, "error" across it, `label` under it.
    pub fn failed(&mut self, i: usize, label: &str) {
        let (x, y) = self.origin(i);
        for r in 0..self.cell_h {
            for c in 0..self.cell_w {
                self.put(x.saturating_add(c), y.saturating_add(r), FAILED);
            }
        }
        let used = ERROR_WIDTH;
        let left = x.saturating_add(self.cell_w.saturating_sub(used).checked_div(2).unwrap_or(0));
        let top = y.saturating_add(
            self.cell_h
                .saturating_sub(GLYPH_HEIGHT)
                .checked_div(2)
                .unwrap_or(0),
        );
        self.text(left, top, "error");
        self.label(i, label);
    }

    /// The finished picture.
    pub fn finish(self) -> Picture {
        self.picture
    }
}

/// The name written under a model: its file name (a player folder's folder name, an
/// archive entry's last path part).
pub fn name_of(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    let trimmed = text.trim_end_matches(['/', '\\']);
    trimmed
        .rsplit(['/', '\\', ':'])
        .next()
        .unwrap_or(trimmed)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_with_dots() {
        assert_eq!(fit("knight.mdl", 16), "knight.mdl");
        assert_eq!(fit("a_very_long_model_name.md3", 10), "a_very_l..");
        assert_eq!(fit("abc", 1), ".");
        assert_eq!(
            name_of(std::path::Path::new("x/pak0.pak:progs/ogre.mdl")),
            "ogre.mdl"
        );
        assert_eq!(
            name_of(std::path::Path::new("models/players/sarge/")),
            "sarge"
        );
    }

    #[test]
    fn grids_are_square_enough() {
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(5), (3, 2));
        assert_eq!(grid(9), (3, 3));
        assert_eq!(grid(10), (4, 3));
        assert!(Sheet::new(MAX_CELLS + 1, (8, 8), [0; 4], 8192).is_err());
        assert!(Sheet::new(400, (512, 512), [0; 4], 8192).is_err());
    }

    #[test]
    fn labels_draw_ink_under_the_cell() {
        let mut s = Sheet::new(1, (40, 20), [0, 0, 0, 255], 8192).unwrap();
        s.failed(0, "ab");
        let p = s.finish();
        let ink = |y0: u32, y1: u32| {
            (y0..y1).any(|y| {
                (0..p.width).any(|x| {
                    let at = ((y * p.width + x) * 4) as usize;
                    p.rgba[at..at + 4] == INK
                })
            })
        };
        assert!(ink(20, 20 + LABEL_HEIGHT), "label text");
        assert!(ink(0, 20), "error text");
    }
}
