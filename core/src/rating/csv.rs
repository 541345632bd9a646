//! The CSV dialect of rate data (docs/rate-cards.md) over the `csv` crate: UTF-8 (a
//! leading byte-order mark is ignored), `,` between fields, `\n` or `\r\n` line ends,
//! `"` quoting with `""` inside, quoted fields that span lines, empty lines skipped.
//! Export writes `\n` and quotes only the fields that need it.

/// One record: the 1-based line number where it starts, and its fields.
pub(crate) struct Record {
    pub line: usize,
    pub fields: Vec<String>,
}

/// Why a file could not be split into records.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DialectError {
    /// A quoted field runs to the end of the file.
    #[error("a quoted field is not closed")]
    Unclosed {
        /// The line its record starts on.
        line: usize,
    },
    /// The reader failed (it reads from memory, so this is not expected).
    #[error("unreadable CSV: {0}")]
    Csv(#[source] csv::Error, usize),
}

fn line_of(p: Option<&csv::Position>) -> usize {
    p.map_or(1, |p| usize::try_from(p.line()).unwrap_or(usize::MAX))
}

/// Splits `text` into records, each with the line it starts on.
///
/// # Errors
/// [`DialectError::Unclosed`] when a quoted field is not closed (the reader would take
/// the rest of the file into it).
pub(crate) fn parse(text: &str) -> Result<Vec<Record>, DialectError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut out = Vec::new();
    // The reader's position of a record is where it began to look for it: before the
    // empty lines it skips, and before the `\n` of a `\r\n` that ended the record
    // before. So the record's start is found from there, and its line counted from
    // the last record's.
    let (mut at, mut line) = (0, 1);
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = line_of(e.position());
            DialectError::Csv(e, line)
        })?;
        let from = record.position().map_or(at, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX)).clamp(at, text.len());
        let start = from + text.as_bytes()[from..].iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
        line += text.as_bytes()[at..start].iter().filter(|&&b| b == b'\n').count();
        at = start;
        out.push(Record { line, fields: record.iter().map(str::to_owned).collect() });
    }
    // Only the last record can hold an unclosed quote: it swallowed the rest of the
    // file. Quotes come in pairs in a closed record (open and close, `""` inside); a
    // single `"` inside an unquoted field would break the count, but no column of
    // rate data accepts a `"`, so such a record is refused either way.
    if let Some(last) = out.last() {
        if text.as_bytes()[at..].iter().filter(|&&b| b == b'"').count() % 2 == 1 {
            return Err(DialectError::Unclosed { line: last.line });
        }
    }
    Ok(out)
}

/// Writes a header and records, each ended by `\n`, quoting fields that need it.
///
/// # Errors
/// The writer's error (it writes to memory, so this is not expected).
pub(crate) fn write<S: AsRef<[u8]>>(header: &[&str], records: impl IntoIterator<Item = Vec<S>>) -> Result<String, csv::Error> {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    writer.write_record(header)?;
    for r in records {
        writer.write_record(&r)?;
    }
    let bytes = writer.into_inner().map_err(|e| csv::Error::from(e.into_error()))?;
    // Every field written was a `str`.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        let s = write(&["a", "b", "c", "d", "e"], [vec!["a", "b,c", "say \"hi\"", "two\nlines", ""]]).unwrap_or_default();
        assert_eq!(s, "a,b,c,d,e\na,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\",\n");
        let r = parse(&s).unwrap_or_default();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].fields, vec!["a", "b,c", "say \"hi\"", "two\nlines", ""]);
    }

    #[test]
    fn line_numbers_and_blank_lines() {
        let r = parse("\u{feff}h1,h2\r\n\nx,y\n\"p\nq\",z\nlast,1").unwrap_or_default();
        let lines: Vec<usize> = r.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![1, 3, 4, 6]);
        assert_eq!(r[0].fields, vec!["h1", "h2"]);
        assert!(matches!(parse("a\n\"open"), Err(DialectError::Unclosed { line: 2 })));
        assert!(matches!(parse("a\n\"x\"\"y\",\"open\nmore"), Err(DialectError::Unclosed { line: 2 })));
    }
}
