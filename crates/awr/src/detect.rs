//! What a file is: an AWR text or HTML report, a Statspack text report, or bad input (binary,
//! empty, something else), and its text.

use crate::grid::{Row, Table};
use crate::Format;

/// Bytes looked at to tell text from binary.
const SNIFF_BYTES: usize = 64 * 1024;

/// The report's text and format, or why it is not a report.
pub(crate) fn detect(bytes: &[u8]) -> Result<(String, Format), String> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err("the file is empty".into());
    }
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let control = head
        .iter()
        .filter(|&&b| b == 0 || (b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c)))
        .count();
    if head.contains(&0) || control * 100 > head.len() {
        return Err(format!(
            "a binary file ({control} control bytes in the first {} bytes), not an AWR or \
             Statspack report; give the report's text or HTML",
            head.len()
        ));
    }
    let text = String::from_utf8_lossy(bytes).into_owned();
    let start = text.trim_start();
    let lower_head: String = start.chars().take(4096).collect::<String>().to_lowercase();
    let html =
        start.starts_with('<') && (lower_head.contains("<html") || lower_head.contains("<table"));
    let awr = text.contains("WORKLOAD REPOSITORY report for")
        || text.contains("WORKLOAD REPOSITORY REPORT");
    let statspack = text.contains("STATSPACK report for");
    let format = match (html, awr, statspack) {
        (true, _, _) => Format::AwrHtml,
        (false, true, _) => Format::AwrText,
        (false, false, true) => Format::StatspackText,
        (false, false, false) => {
            if !text.contains("Load Profile") {
                return Err(
                    "not an AWR or Statspack report: no 'WORKLOAD REPOSITORY report \
                            for' or 'STATSPACK report for' heading and no Load Profile"
                        .into(),
                );
            }
            Format::AwrText
        }
    };
    Ok((text, format))
}

/// A section of a text report that has no ruled table (`Cache Sizes (end)` over a line of
/// tildes, then `label: value` lines): its lines down to a blank line, as rows of words.
pub(crate) fn untabled(report: &str, title: &str) -> Option<Table> {
    let lines: Vec<&str> = report.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(title))?;
    let mut rows = Vec::new();
    for line in lines.iter().skip(at + 1) {
        let t = line.trim();
        if t.is_empty() && !rows.is_empty() {
            break;
        }
        if t.is_empty() || t.chars().all(|c| c == '~' || c == '-' || c.is_whitespace()) {
            continue;
        }
        let words = t.split_whitespace().map(str::to_string).collect();
        rows.push(Row {
            cells: vec![t.to_string()],
            tokens: words,
        });
    }
    Some(Table {
        title: title.to_string(),
        title_line: lines[at].to_string(),
        columns: Vec::new(),
        rows,
    })
}
