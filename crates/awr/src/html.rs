//! The tables of an HTML report, read by a small tolerant tag walker: headings (`h1`-`h4`)
//! title the tables that follow them (a table's own `caption` takes precedence; its `summary`
//! stands in when no heading came before it), `th` cells of a table's first row name its columns,
//! `td`/`th` cells of the other rows are its rows. Unclosed cells and rows close at the next
//! one; comments, scripts and styles are skipped; entities are decoded.

use crate::grid::{Row, Table};

#[derive(Default)]
struct Building {
    title: String,
    rows: Vec<(Vec<String>, bool)>,
    row: Option<(Vec<String>, bool)>,
    cell: Option<String>,
}

impl Building {
    fn close_cell(&mut self) {
        if let Some(text) = self.cell.take() {
            let text = collapse(&text);
            match self.row.as_mut() {
                Some(row) => row.0.push(text),
                None => self.row = Some((vec![text], false)),
            }
        }
    }

    fn close_row(&mut self) {
        self.close_cell();
        if let Some(row) = self.row.take() {
            self.rows.push(row);
        }
    }

    fn finish(mut self) -> Table {
        self.close_row();
        let mut rows = self.rows.into_iter();
        let columns = match rows.next() {
            Some((cells, true)) => cells,
            Some((cells, false)) => {
                let mut t = Table {
                    title: self.title.clone(),
                    title_line: self.title.clone(),
                    ..Table::default()
                };
                t.rows.push(Row::from_cells(cells));
                t.rows.extend(rows.map(|(c, _)| Row::from_cells(c)));
                return t;
            }
            None => Vec::new(),
        };
        Table {
            title: self.title.clone(),
            title_line: self.title,
            columns,
            rows: rows.map(|(c, _)| Row::from_cells(c)).collect(),
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Decodes the entities of `s` that reports use.
fn decode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest
            .char_indices()
            .take(12)
            .find(|&(_, c)| c == ';')
            .map(|(i, _)| i);
        let decoded = end.and_then(|e| entity(&rest[1..e]).map(|c| (c, e)));
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    match name {
        "nbsp" => Some(' '),
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let code = if let Some(hex) = name.strip_prefix("#x").or(name.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok()?
            } else {
                name.strip_prefix('#')?.parse().ok()?
            };
            char::from_u32(code).map(|c| if c == '\u{a0}' { ' ' } else { c })
        }
    }
}

/// A tag's name (lowercase) and whether it closes.
fn tag_name(inner: &str) -> (String, bool) {
    let closing = inner.starts_with('/');
    let name = inner
        .trim_start_matches('/')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    (name, closing)
}

/// The value of attribute `attr` in a tag's text, if quoted.
fn attribute(inner: &str, attr: &str) -> Option<String> {
    let lower = inner.to_ascii_lowercase();
    let at = lower.find(&format!("{attr}="))? + attr.len() + 1;
    let quote = inner[at..].chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let body = &inner[at + 1..];
    body.find(quote).map(|e| decode(&body[..e]))
}

struct Walker {
    tables: Vec<Table>,
    open: Vec<Building>,
    heading: Option<String>,
    last_heading: String,
}

impl Walker {
    fn text(&mut self, s: &str) {
        let s = decode(s);
        if let Some(h) = self.heading.as_mut() {
            h.push_str(&s);
        } else if let Some(cell) = self.open.last_mut().and_then(|t| t.cell.as_mut()) {
            cell.push_str(&s);
        }
    }

    fn tag(&mut self, inner: &str) {
        let (name, closing) = tag_name(inner);
        match (name.as_str(), closing) {
            ("h1" | "h2" | "h3" | "h4", false) => self.heading = Some(String::new()),
            ("h1" | "h2" | "h3" | "h4", true) => {
                if let Some(h) = self.heading.take() {
                    self.last_heading = collapse(&h);
                }
            }
            ("caption", false) => self.heading = Some(String::new()),
            ("caption", true) => {
                if let (Some(h), Some(b)) = (self.heading.take(), self.open.last_mut()) {
                    b.title = collapse(&h);
                }
            }
            ("table", false) => {
                let title = match attribute(inner, "summary") {
                    Some(s) if self.last_heading.is_empty() => s,
                    _ => self.last_heading.clone(),
                };
                self.open.push(Building {
                    title,
                    ..Building::default()
                });
            }
            ("table", true) => {
                if let Some(b) = self.open.pop() {
                    self.tables.push(b.finish());
                }
            }
            ("tr", _) => {
                if let Some(b) = self.open.last_mut() {
                    b.close_row();
                }
            }
            ("td" | "th", false) => {
                if let Some(b) = self.open.last_mut() {
                    b.close_cell();
                    let row = b.row.get_or_insert_with(|| (Vec::new(), false));
                    row.1 |= name == "th";
                    b.cell = Some(String::new());
                }
            }
            ("td" | "th", true) => {
                if let Some(b) = self.open.last_mut() {
                    b.close_cell();
                }
            }
            ("br" | "p" | "div", _) => self.text(" "),
            _ => {}
        }
    }
}

/// Every table of an HTML report.
pub(crate) fn html_tables(html: &str) -> Vec<Table> {
    let mut w = Walker {
        tables: Vec::new(),
        open: Vec::new(),
        heading: None,
        last_heading: String::new(),
    };
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        w.text(&rest[..lt]);
        rest = &rest[lt..];
        if let Some(body) = rest.strip_prefix("<!--") {
            rest = body.find("-->").map_or("", |e| &body[e + 3..]);
            continue;
        }
        let Some(gt) = rest.find('>') else {
            rest = "";
            break;
        };
        let inner = &rest[1..gt];
        rest = &rest[gt + 1..];
        let (name, closing) = tag_name(inner);
        if !closing && (name == "script" || name == "style") {
            let lower = rest.to_ascii_lowercase();
            rest = lower.find(&format!("</{name}")).map_or("", |e| &rest[e..]);
            continue;
        }
        w.tag(inner);
    }
    w.text(rest);
    while let Some(b) = w.open.pop() {
        w.tables.push(b.finish());
    }
    w.tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_take_their_heading_and_first_row_of_th_as_columns() {
        let html = "<html><!-- a <table> in a comment --><h3 class=\"awr\">Load&nbsp;Profile</h3>\
            <table summary=\"load profile\"><tr><th></th><th>Per Second</th></tr>\
            <tr><td>DB Time(s):<td align=right>1,234.5</td></tr><tr><td>Redo &amp; more</td>\
            <td>7</table><script>if (a<b) {}</script><h3>Next</h3><table><tr><td>x</td></tr>";
        let tables = html_tables(html);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0].title, "Load Profile");
        assert_eq!(tables[0].columns, ["", "Per Second"]);
        assert_eq!(tables[0].rows[0].cells, ["DB Time(s):", "1,234.5"]);
        assert_eq!(tables[0].rows[1].cells, ["Redo & more", "7"]);
        assert_eq!(tables[1].title, "Next");
        assert!(tables[1].columns.is_empty());
        assert_eq!(tables[1].rows[0].cells, ["x"]);
        let captioned = html_tables("<h3>A</h3><table><caption>Host CPU</caption><tr><th>CPUs");
        assert_eq!(captioned[0].title, "Host CPU");
        assert_eq!(captioned[0].columns, ["CPUs"]);
        assert_eq!(decode("&#65;&#x42;&bogus; & &"), "AB&bogus; & &");
    }
}
