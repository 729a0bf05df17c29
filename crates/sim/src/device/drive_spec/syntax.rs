//! DiskSim's parameter syntax: `TYPE NAME { Key = value, ... }` blocks whose values are
//! numbers, words, `source FILE`, lists `[a, b]` and nested blocks `TYPE { ... }`; `#`
//! starts a comment to the end of the line. Keys hold spaces and punctuation
//! (`Read hit over. after read`), so a key runs up to its `=`.

/// A parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number or word, as written.
    Scalar(String),
    /// `[a, b, ...]`.
    List(Vec<Value>),
    /// `TYPE [NAME] { key = value, ... }`.
    Block(Block),
}

/// A block: its header (type and optional name) and its parameters in order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    pub header: String,
    pub params: Vec<(String, Value)>,
}

impl Block {
    /// The value of `key` (compared without case or surrounding spaces).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.params
            .iter()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    }

    /// `key` as a number.
    pub fn num(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            Value::Scalar(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// `key` as a word.
    pub fn word(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Value::Scalar(s) => Some(s.trim()),
            _ => None,
        }
    }

    /// `key` as a nested block.
    pub fn block(&self, key: &str) -> Option<&Block> {
        match self.get(key)? {
            Value::Block(b) => Some(b),
            _ => None,
        }
    }

    /// `key` as a list.
    pub fn list(&self, key: &str) -> Option<&[Value]> {
        match self.get(key)? {
            Value::List(l) => Some(l),
            _ => None,
        }
    }
}

/// How deep blocks and lists may nest: DiskSim's own files nest four levels (a disk, its
/// layout model, the zone list, a zone); the bound keeps a runaway file from exhausting the
/// stack.
pub const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    /// Blocks and lists open around the parser's position.
    depth: usize,
}

/// Parses every top-level block of `text`; errors give the line.
pub fn parse(text: &str) -> Result<Vec<Block>, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let mut blocks = Vec::new();
    loop {
        p.skip_space();
        if p.at >= p.s.len() {
            return Ok(blocks);
        }
        let header = p.word(b"{")?;
        if !p.eat(b'{') {
            return Err(p.err("expected `{` after a block's type and name"));
        }
        blocks.push(p.body(header)?);
    }
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        let line = self.s[..self.at.min(self.s.len())]
            .iter()
            .filter(|&&c| c == b'\n')
            .count()
            + 1;
        format!("line {line}: {what}")
    }

    fn skip_space(&mut self) {
        while let Some(&c) = self.s.get(self.at) {
            if c == b'#' {
                while self.s.get(self.at).is_some_and(|&c| c != b'\n') {
                    self.at += 1;
                }
            } else if c.is_ascii_whitespace() {
                self.at += 1;
            } else {
                return;
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_space();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Text up to (not including) any of `stops`, a newline or a comment, trimmed.
    fn word(&mut self, stops: &[u8]) -> Result<String, String> {
        self.skip_space();
        let start = self.at;
        while let Some(&c) = self.s.get(self.at) {
            if stops.contains(&c) || c == b'\n' || c == b'#' {
                break;
            }
            self.at += 1;
        }
        let w = String::from_utf8_lossy(&self.s[start..self.at])
            .trim()
            .to_string();
        if w.is_empty() {
            return Err(self.err("expected a word"));
        }
        Ok(w)
    }

    /// A block's parameters, after its `{`, through its `}`.
    fn body(&mut self, header: String) -> Result<Block, String> {
        let mut block = Block {
            header,
            params: Vec::new(),
        };
        loop {
            if self.eat(b'}') {
                return Ok(block);
            }
            if self.at >= self.s.len() {
                return Err(self.err(&format!("block `{}` is not closed", block.header)));
            }
            let key = self.word(b"=}")?;
            let after_key = self.at;
            if !self.eat(b'=') {
                self.at = after_key;
                return Err(self.err(&format!("expected `=` after `{key}`")));
            }
            let value = self.value()?;
            block.params.push((key, value));
            self.eat(b',');
        }
    }

    /// Notes one more block or list open; an error beyond [`MAX_DEPTH`].
    fn open(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(&format!(
                "blocks and lists nest deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Value, String> {
        self.open()?;
        let value = self.value_inside();
        self.depth -= 1;
        value
    }

    /// A value, [`Self::value`] having counted its depth.
    fn value_inside(&mut self) -> Result<Value, String> {
        if self.eat(b'[') {
            let mut items = Vec::new();
            loop {
                if self.eat(b']') {
                    return Ok(Value::List(items));
                }
                if self.at >= self.s.len() {
                    return Err(self.err("list is not closed"));
                }
                items.push(self.value()?);
                self.eat(b',');
            }
        }
        let w = self.word(b"{,}]")?;
        if self.eat(b'{') {
            return Ok(Value::Block(self.body(w)?));
        }
        Ok(Value::Scalar(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list in a block in a list ... each level one deeper, `levels` in all.
    fn nested(levels: usize) -> String {
        let mut text = String::from("disksim_disk D {\n  A = ");
        for level in 1..levels {
            text += if level % 2 == 0 { "b { B = " } else { "[" };
        }
        text += "1";
        for level in (1..levels).rev() {
            text += if level % 2 == 0 { " }" } else { "]" };
        }
        text + "\n}\n"
    }

    #[test]
    fn blocks_and_lists_nest_up_to_the_bound() {
        let blocks = parse(&nested(MAX_DEPTH)).expect("parses");
        let mut value = blocks[0].get("A").expect("A");
        let mut levels = 1;
        loop {
            value = match value {
                Value::List(items) => &items[0],
                Value::Block(b) => b.get("B").expect("B"),
                Value::Scalar(s) => {
                    assert_eq!(s, "1");
                    break;
                }
            };
            levels += 1;
        }
        assert_eq!(levels, MAX_DEPTH);
    }

    #[test]
    fn deeper_nesting_is_refused_with_its_line_not_a_stack_overflow() {
        let err = parse(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert_eq!(err, "line 2: blocks and lists nest deeper than 64 levels");
        let runaway = format!("disksim_disk D {{\n\n  Zones = {}", "[".repeat(1_000_000));
        let err = parse(&runaway).unwrap_err();
        assert_eq!(err, "line 3: blocks and lists nest deeper than 64 levels");
    }
}
