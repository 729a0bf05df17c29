//! The tables of a report, whatever its format: a title, column headings and rows of cells.
//! Text reports become tables here: a rule line of dashes (or tildes) under the headings marks
//! each column's extent, the headings above it name the columns, the lines below down to a
//! blank line are the rows, and the section title is the line above the headings.

use crate::number;

/// One table of a report.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Table {
    /// The section title (`Load Profile`, `Top 10 Foreground Events by Total Wait Time`).
    pub title: String,
    /// The whole line the title was read from (holds `Host CPU (CPUs: 16 ...)` facts).
    pub title_line: String,
    /// Column headings, one per column.
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// One row: its cells by column, and all its words in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Row {
    pub cells: Vec<String>,
    pub tokens: Vec<String>,
}

impl Row {
    pub fn from_cells(cells: Vec<String>) -> Row {
        let tokens = cells
            .iter()
            .flat_map(|c| c.split_whitespace())
            .map(str::to_string)
            .collect();
        Row { cells, tokens }
    }

    /// The cell of column `i`, empty when the row is short.
    pub fn cell(&self, i: usize) -> &str {
        self.cells.get(i).map_or("", |c| c.as_str())
    }
}

impl Table {
    /// The title starts with `prefix` (case-insensitive).
    pub fn titled(&self, prefix: &str) -> bool {
        self.title
            .to_ascii_lowercase()
            .starts_with(&prefix.to_ascii_lowercase())
    }

    /// The first column whose heading satisfies `pred` (given the lowercase heading).
    pub fn column(&self, pred: impl Fn(&str) -> bool) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| pred(&c.to_ascii_lowercase()))
    }
}

type Line = Vec<char>;

/// A long indented line of dashes, or one followed by a blank line: the end of a section or
/// a page, not a heading rule.
fn end_of_section(lines: &[Line], at: usize, runs: &[(usize, usize)]) -> bool {
    let single = runs.len() == 1;
    let long_indented = single && runs[0].0 > 0 && runs[0].1 - runs[0].0 >= 40;
    let then_blank = lines.get(at + 1).is_none_or(blank);
    single && (long_indented || then_blank)
}

/// Runs of `-` or `~` of a rule line as (start, end) columns; None for any other line.
fn rule_runs(line: &Line) -> Option<Vec<(usize, usize)>> {
    if !line.iter().any(|c| *c == '-' || *c == '~') {
        return None;
    }
    if line
        .iter()
        .any(|c| !(c.is_whitespace() || *c == '-' || *c == '~'))
    {
        return None;
    }
    let mut runs = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i] == '-' || line[i] == '~' {
            let start = i;
            while i < line.len() && line[i] == line[start] {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    // A line of only a dash or two is not a rule.
    runs.iter().any(|(s, e)| e - s >= 3).then_some(runs)
}

fn blank(line: &Line) -> bool {
    line.iter().all(|c| c.is_whitespace())
}

fn text(line: &Line, from: usize, to: usize) -> String {
    let to = to.min(line.len());
    if from >= to {
        return String::new();
    }
    line[from..to].iter().collect::<String>().trim().to_string()
}

/// Column extents from a rule's runs: each column runs to the next one's start; a first
/// column left of the first run when the rule is indented.
fn spans(runs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut starts: Vec<usize> = runs.iter().map(|r| r.0).collect();
    if starts.first().is_some_and(|&s| s > 0) {
        starts.insert(0, 0);
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| (s, starts.get(k + 1).copied().unwrap_or(usize::MAX)))
        .collect()
}

fn cells(line: &Line, spans: &[(usize, usize)]) -> Vec<String> {
    spans.iter().map(|&(s, e)| text(line, s, e)).collect()
}

/// Headings per column: the words of the heading lines, each in the column where it starts.
fn headings(lines: &[&Line], spans: &[(usize, usize)]) -> Vec<String> {
    let mut out = vec![String::new(); spans.len()];
    for line in lines {
        let mut i = 0;
        while i < line.len() {
            if line[i].is_whitespace() {
                i += 1;
                continue;
            }
            let start = i;
            while i < line.len() && !line[i].is_whitespace() {
                i += 1;
            }
            let word: String = line[start..i].iter().collect();
            if word.chars().all(|c| c == '~') {
                continue;
            }
            if let Some(k) = spans.iter().position(|&(s, e)| start >= s && start < e) {
                if !out[k].is_empty() {
                    out[k].push(' ');
                }
                out[k].push_str(&word);
            }
        }
    }
    out
}

/// The text of `line` above the first tilde run of `under` (an underlined title).
fn underlined(line: &Line, under: &Line) -> Option<String> {
    let start = under.iter().position(|c| *c == '~')?;
    let end = start + under[start..].iter().take_while(|c| **c == '~').count();
    (end - start >= 3).then(|| text(line, start, end))
}

/// The section title above the heading block that starts at `top`.
/// Line `i` is indented and continues a `->` note above it (`-> Statistics including the
/// word "background" measure background process` / `   time, and so do not contribute ...`).
fn note_continued(lines: &[Line], i: usize) -> bool {
    if !lines[i].first().is_some_and(|c| c.is_whitespace()) {
        return false;
    }
    let mut j = i;
    while j > 0 {
        j -= 1;
        let text: String = lines[j].iter().collect();
        let trimmed = text.trim();
        if trimmed.starts_with("->") {
            return true;
        }
        if trimmed.is_empty() || !text.starts_with(char::is_whitespace) {
            return false;
        }
    }
    false
}

fn title_above(lines: &[Line], top: usize) -> (String, String) {
    let mut i = top;
    while i > 0 {
        i -= 1;
        let line = &lines[i];
        let trimmed: String = line.iter().collect::<String>().trim().to_string();
        if trimmed.is_empty() || trimmed.starts_with("->") || note_continued(lines, i) {
            continue;
        }
        if rule_runs(line).is_some() {
            if line.contains(&'~') && i > 0 {
                if let Some(t) = underlined(&lines[i - 1], line) {
                    return (t, lines[i - 1].iter().collect());
                }
            }
            continue;
        }
        return (trimmed.clone(), trimmed);
    }
    (String::new(), String::new())
}

/// Every table of a text report.
pub(crate) fn text_tables(report: &str) -> Vec<Table> {
    let lines: Vec<Line> = report
        .lines()
        .map(|l| l.replace('\t', "        ").chars().collect())
        .collect();
    let mut tables = Vec::new();
    for (r, line) in lines.iter().enumerate() {
        let Some(runs) = rule_runs(line) else {
            continue;
        };
        if runs.len() < 2 {
            continue;
        }
        if let Some(t) = table_at(&lines, r, &runs) {
            tables.push(t);
        }
    }
    tables
}

fn table_at(lines: &[Line], r: usize, runs: &[(usize, usize)]) -> Option<Table> {
    // Rows: down to a blank line; a rule among them makes this rule an upper heading.
    let mut end = r + 1;
    while end < lines.len() && !blank(&lines[end]) {
        if let Some(runs) = rule_runs(&lines[end]) {
            if end_of_section(lines, end, &runs) {
                break;
            }
            return None;
        }
        end += 1;
    }
    // Headings: up to the previous rule; the block goes on above it to a blank line.
    let mut head = r;
    while head > 0 && !blank(&lines[head - 1]) && rule_runs(&lines[head - 1]).is_none() {
        head -= 1;
    }
    let mut top = head;
    while top > 0 && !blank(&lines[top - 1]) {
        top -= 1;
    }
    let spans = spans(runs);
    let (title, title_line, region) = title_of(lines, r, top);
    let mut heading_lines: Vec<Line> = lines[head..r].to_vec();
    if let Some((i, s, e)) = region {
        if let Some(line) = i.checked_sub(head).and_then(|k| heading_lines.get_mut(k)) {
            for c in line.iter_mut().take(e).skip(s) {
                *c = ' ';
            }
        }
    }
    let heading_refs: Vec<&Line> = heading_lines.iter().collect();
    let columns = headings(&heading_refs, &spans);
    let rows = lines[r + 1..end]
        .iter()
        .map(|l| Row {
            cells: cells(l, &spans),
            tokens: l
                .iter()
                .collect::<String>()
                .split_whitespace()
                .map(str::to_string)
                .collect(),
        })
        .collect();
    Some(Table {
        title,
        title_line,
        columns,
        rows,
    })
}

/// A title read from line `.0` between columns `.1` and `.2` (to blank out of the headings).
type Region = Option<(usize, usize, usize)>;

/// The title of the table whose rule is line `r`, its heading block from line `top`.
fn title_of(lines: &[Line], r: usize, top: usize) -> (String, String, Region) {
    // A tilde-underlined title inside the block: `Load Profile   Per Second ...` over
    // `~~~~~~~~~~~~   -------`, or `Top 5 Timed Events   Avg %Total` over
    // `~~~~~~~~~~~~~~~~~~   wait   Call`, or a title over a line of tildes alone.
    let mut i = r + 1;
    while i > top + 1 {
        i -= 1;
        if !lines[i]
            .iter()
            .collect::<String>()
            .trim_start()
            .starts_with("~~~")
        {
            continue;
        }
        if let Some(t) = underlined(&lines[i - 1], &lines[i]) {
            let s = lines[i].iter().position(|c| *c == '~').unwrap_or(0);
            let e = s + lines[i][s..].iter().take_while(|c| **c == '~').count();
            return (t, lines[i - 1].iter().collect(), Some((i - 1, s, e)));
        }
    }
    let (t, l) = title_above(lines, top);
    (t, l, None)
}

/// The numbers a row gives after its label, as tokens: `Redo size (bytes): 1,234.5 45.6`
/// gives the label `Redo size (bytes)` and `["1,234.5", "45.6"]`.
pub(crate) fn label_and_values(row: &Row) -> (String, Vec<String>) {
    let first_number = row
        .tokens
        .iter()
        .enumerate()
        .position(|(i, t)| number::is_numeric(t) && i > 0 && row.tokens[i - 1].ends_with(':'))
        .or_else(|| row.tokens.iter().position(|t| number::is_numeric(t)))
        .unwrap_or(row.tokens.len());
    let label = row.tokens[..first_number].join(" ");
    let label = label.trim_end_matches(':').trim().to_string();
    (label, row.tokens[first_number..].to_vec())
}

/// `label: value` pairs of a row: `Buffer Cache: 1,024M 1,024M Std Block Size: 8K` gives
/// (`Buffer Cache`, [`1,024M`, `1,024M`]) and (`Std Block Size`, [`8K`]).
pub(crate) fn pairs(tokens: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    for t in tokens {
        if t.ends_with(':') {
            words.push(t.trim_end_matches(':'));
            out.push((words.join(" "), Vec::new()));
            words.clear();
        } else if number::is_numeric(t) || t.starts_with('(') {
            if let Some(last) = out.last_mut().filter(|_| words.is_empty()) {
                last.1.push(t.clone());
            }
        } else {
            words.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_table_has_its_title_headings_and_cells() {
        let report = "\
Top 10 Foreground Events by Total Wait Time
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
                                           Total Wait       Wait   % DB Wait
Event                                Waits Time (sec)    Avg(ms)   time Class
------------------------------ ----------- ---------- ---------- ------ --------
db file sequential read          1,234,567    3,456.7       2.80   48.1 User I/O
DB CPU                                        2,100.0              29.2

";
        let tables = text_tables(report);
        assert_eq!(tables.len(), 1);
        let t = &tables[0];
        assert_eq!(t.title, "Top 10 Foreground Events by Total Wait Time");
        assert_eq!(
            t.columns,
            [
                "Event",
                "Waits",
                "Total Wait Time (sec)",
                "Wait Avg(ms)",
                "% DB time",
                "Wait Class"
            ]
        );
        assert_eq!(t.rows[0].cells[5], "User I/O");
        assert_eq!(t.rows[1].cells[1], "");
        assert_eq!(t.rows[1].cells[2], "2,100.0");
    }

    #[test]
    fn pairs_and_labels_split_where_the_colons_are() {
        let tokens: Vec<String> = "Buffer Cache: 1,024M 1,024M Std Block Size: 8K"
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let p = pairs(&tokens);
        assert_eq!(
            p[0],
            (
                "Buffer Cache".into(),
                vec!["1,024M".into(), "1,024M".into()]
            )
        );
        assert_eq!(p[1], ("Std Block Size".into(), vec!["8K".into()]));
        let row = Row::from_cells(vec![
            "Redo size (bytes):".into(),
            "1,234.5".into(),
            "45.6".into(),
        ]);
        let (label, values) = label_and_values(&row);
        assert_eq!(label, "Redo size (bytes)");
        assert_eq!(values, ["1,234.5", "45.6"]);
    }
}
