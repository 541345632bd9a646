//! Plain text tables for the terminal.

/// Renders `rows` under `header`, columns padded to their widest cell; columns whose
/// header starts with `>` are right-aligned (the `>` is not shown).
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let right: Vec<bool> = header.iter().map(|h| h.starts_with('>')).collect();
    let header: Vec<&str> = header.iter().map(|h| h.trim_start_matches('>')).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let w = widths.get(i).copied().unwrap_or(0);
                if right.get(i).copied().unwrap_or(false) {
                    format!("{c:>w$}")
                } else {
                    format!("{c:<w$}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let mut out = line(header.clone());
    out.push('\n');
    out.push_str(&line(widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().iter().map(String::as_str).collect()));
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}
