//! Copies of the shipped drives with their descriptions edited, for the import's tests
//! (support, g2, g4): each in a directory of its own, removed when dropped.

use std::path::{Path, PathBuf};

use crate::test_dir::TestDir;

/// references/drives: the six shipped drives.
pub fn drives() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../references/drives")
}

/// `text` with the value of `key` (up to the next comma) set to `value`.
pub fn set(text: impl AsRef<str>, key: &str, value: &str) -> String {
    let text = text.as_ref();
    let at = text
        .find(key)
        .unwrap_or_else(|| panic!("`{key}` in the description"));
    let end = at + text[at..].find(',').expect("a comma after the value");
    format!("{}{key} = {value}{}", &text[..at], &text[end..])
}

/// The `Layout Model = ... { ... }` value of a model file replaced by `layout`.
pub fn with_layout(model: &str, layout: &str) -> String {
    let at = model.find("Layout Model = ").expect("a layout") + "Layout Model = ".len();
    let open = at + model[at..].find('{').expect("its block");
    let mut depth = 0;
    for (i, c) in model[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return format!("{}{layout}{}", &model[..at], &model[open + i + 1..]);
                }
            }
            _ => {}
        }
    }
    panic!("an unclosed layout")
}

/// The shipped drive `drive` (its description, and the model, seek curve and bus files
/// named `model`...) copied into a directory of its own named by `tag`, with `edit`
/// applied to the description and `edit_model` to the model file.
pub fn copy_drive(
    drive: &str,
    model: &str,
    tag: &str,
    edit: impl Fn(String) -> String,
    edit_model: impl Fn(String) -> String,
) -> TestDir {
    let dir = TestDir::new(tag);
    for entry in std::fs::read_dir(drives()).expect("drives") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if !(name.starts_with(drive) || name.starts_with(model)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        let text = if name.ends_with(".diskspecs") {
            edit(text)
        } else if name.ends_with(".model") {
            edit_model(text)
        } else {
            text
        };
        std::fs::write(dir.path().join(&name), text).expect("write");
    }
    dir
}
