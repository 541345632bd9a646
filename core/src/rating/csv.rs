//! The small CSV dialect of rate data (docs/rate-cards.md): UTF-8, one record per
//! line, `,` between fields, `\n` or `\r\n` line ends, a field that holds `,`, `"`
//! or a line break is quoted with `"` and a `"` inside it is doubled. A quoted
//! field may span lines. Empty lines are skipped. No other escapes.

/// One parsed record: the 1-based line number where it starts, and its fields.
pub(crate) struct Record {
    pub line: usize,
    pub fields: Vec<String>,
}

/// Splits `text` into records. The only error is an unterminated quoted field,
/// reported with the line it started on.
pub(crate) fn parse(text: &str) -> Result<Vec<Record>, usize> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1usize;
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut start = 1usize;
    let mut in_record = false;
    while let Some(c) = chars.next() {
        match c {
            '"' if field.is_empty() => {
                in_record = true;
                let open = line;
                let mut closed = false;
                while let Some(q) = chars.next() {
                    if q == '"' {
                        if chars.peek() == Some(&'"') {
                            chars.next();
                            field.push('"');
                        } else {
                            closed = true;
                            break;
                        }
                    } else {
                        if q == '\n' {
                            line += 1;
                        }
                        field.push(q);
                    }
                }
                if !closed {
                    return Err(open);
                }
            }
            ',' => {
                in_record = true;
                fields.push(std::mem::take(&mut field));
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                if in_record || !field.is_empty() {
                    fields.push(std::mem::take(&mut field));
                    out.push(Record { line: start, fields: std::mem::take(&mut fields) });
                }
                in_record = false;
                line += 1;
                start = line;
            }
            c => {
                in_record = true;
                field.push(c);
            }
        }
    }
    if in_record || !field.is_empty() {
        fields.push(field);
        out.push(Record { line: start, fields });
    }
    Ok(out)
}

/// Appends one record and its `\n` to `out`, quoting fields that need it.
pub(crate) fn write_record<S: AsRef<str>>(out: &mut String, fields: &[S]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let f = f.as_ref();
        if f.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&f.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(f);
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        let mut s = String::new();
        write_record(&mut s, &["a", "b,c", "say \"hi\"", "two\nlines", ""]);
        let r = parse(&s).unwrap_or_default();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].fields, vec!["a", "b,c", "say \"hi\"", "two\nlines", ""]);
    }

    #[test]
    fn line_numbers_and_blank_lines() {
        let r = parse("h1,h2\r\n\nx,y\n\"p\nq\",z\nlast,1").unwrap_or_default();
        let lines: Vec<usize> = r.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![1, 3, 4, 6]);
        assert!(parse("a\n\"open").is_err());
    }
}
