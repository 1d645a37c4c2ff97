//! The node graph check the writer and the reader share.

/// The first node, in index order, whose walk up the `parent` links does not end
/// within as many steps as there are nodes (it is part of a cycle, or leads into one).
pub(crate) fn in_cycle(parent: &[Option<usize>]) -> Option<usize> {
    let n = parent.len();
    (0..n).find(|&start| {
        let mut at = start;
        let mut steps = 0usize;
        while let Some(p) = parent.get(at).copied().flatten() {
            at = p;
            steps = steps.saturating_add(1);
            if steps > n {
                return true;
            }
        }
        false
    })
}
