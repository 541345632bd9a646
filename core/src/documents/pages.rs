//! How a table of rows runs over the pages of an office document (a manifest, an
//! invoice): a first page with a header above the table, following pages with a short
//! one, and a closing block (totals, signatures) after the last row.

use std::ops::Range;

/// The vertical plan of a table document, in points from the page's top.
pub(super) struct TablePages {
    /// Top of the table's heading row on the first page.
    pub first_top: u32,
    /// Top of the table's heading row on the following pages.
    pub next_top: u32,
    /// Height of a row (the heading row too).
    pub row: u32,
    /// Lowest point a row may reach; the page footer sits below it.
    pub bottom: u32,
    /// Height of the closing block after the last row.
    pub closing: u32,
}

impl TablePages {
    /// Splits `n` rows into pages: the rows on each page, plus an empty last page when
    /// the closing block does not fit after the last row.
    pub(super) fn paginate(&self, n: usize) -> Vec<Range<usize>> {
        let top = |first: bool| if first { self.first_top } else { self.next_top };
        let capacity = |first: bool| usize::try_from((self.bottom - top(first) - self.row) / self.row).unwrap_or(1).max(1);
        let mut pages = Vec::new();
        let mut start = 0;
        loop {
            let first = pages.is_empty();
            let end = n.min(start + capacity(first));
            pages.push(start..end);
            if end >= n {
                let rows = u32::try_from(end - start).unwrap_or(u32::MAX);
                let used = top(first) + self.row + rows.saturating_mul(self.row).max(self.row);
                if used + self.closing > self.bottom {
                    pages.push(n..n);
                }
                return pages;
            }
            start = end;
        }
    }
}
