//! A plan's `[[questions]]`: what the report answers first, each a title and the targets it
//! is about (compared with the first, or one described on its own).

use serde::Deserialize;

use super::{bad, unique, Target};
use crate::error::CliError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawQuestion {
    title: String,
    targets: Vec<String>,
}

/// A question of the plan: its title and the targets it is about (compared with the first,
/// or one described on its own).
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub title: String,
    pub targets: Vec<String>,
}

/// Checks the questions: a title, one to `MAX_TARGETS` targets of the plan, each once.
pub(super) fn questions(
    raw: Vec<RawQuestion>,
    file: &str,
    targets: &[Target],
) -> Result<Vec<Question>, CliError> {
    let mut out = Vec::new();
    for (i, q) in raw.into_iter().enumerate() {
        let key = |k: &str| format!("questions[{i}].{k}");
        if q.title.trim().is_empty() {
            return Err(bad(file, &key("title"), "give the question a title"));
        }
        if q.targets.is_empty() {
            return Err(bad(
                file,
                &key("targets"),
                "name one target (described on its own) or more (compared with the first)",
            ));
        }
        for t in &q.targets {
            if !targets.iter().any(|x| &x.name == t) {
                return Err(bad(file, &key("targets"), format!("no target named {t:?}")));
            }
        }
        unique(q.targets.iter().map(String::as_str), file, &key("targets"))?;
        out.push(Question {
            title: q.title,
            targets: q.targets,
        });
    }
    Ok(out)
}
