//! The checkpoint each catalog language model is served from: the
//! `repo`, `repo_context`, `yarn_factor`, `yarn_original` and
//! `repo_source` columns of `static/models.csv`. Only the launch texts read
//! them, so they are not part of [`super::Model`] and not in the page's
//! compiled catalog: `build.rs` parses them with [`parse_checkpoints`] and
//! writes them as [`encode`]d lines (`OUT_DIR/checkpoints.txt`), which
//! `export::checkpoint` compiles into the builds that write launch texts
//! (the CLI and the on-demand worker; the page's own Wasm never links it).

use super::super::table::{Table, TableError};
use super::models::MODEL_COLUMNS;

/// The repository a model is served from, and what its own config needs
/// past its native context.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    pub model: String,
    /// `owner/name` on the Hugging Face Hub (the Instruct or chat checkpoint
    /// where one exists); empty where no released checkpoint has the row's
    /// dimensions ([`Checkpoint::why_none`] says why).
    pub repo: String,
    /// The checkpoint's own `max_position_embeddings`, where it is below
    /// the row's `max_context` (Qwen2.5 Instruct: 32,768).
    pub context: Option<u32>,
    /// YaRN rope scaling its model card documents past that context:
    /// the factor and `original_max_position_embeddings`.
    pub yarn: Option<(f64, u32)>,
    /// Why there is no repository (empty when there is one).
    pub why_none: String,
}

/// One model's checkpoint from the `models.csv` rows.
pub fn parse_checkpoints(text: &str) -> Result<Vec<Checkpoint>, TableError> {
    let table = Table::parse("models.csv", text, MODEL_COLUMNS)?;
    let mut out = Vec::with_capacity(table.len());
    for row in table.rows() {
        let repo = row.text("repo").trim().to_string();
        let source = row.req_str("repo_source")?;
        let mut parts = repo.split('/');
        let ok = |p: Option<&str>| {
            p.is_some_and(|p| {
                !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            })
        };
        let owner_name = ok(parts.next()) && ok(parts.next()) && parts.next().is_none();
        if !repo.is_empty() && !owner_name {
            return Err(row.error("repo", format!("`{repo}` is not owner/name")));
        }
        let context = row.opt_u32("repo_context")?;
        let yarn = match (row.opt_f64("yarn_factor")?, row.opt_u32("yarn_original")?) {
            (None, None) => None,
            (Some(f), Some(o)) if f > 1.0 && o > 0 && context.is_some() => Some((f, o)),
            _ => {
                return Err(row.error(
                    "yarn_factor",
                    "a factor above 1 with yarn_original and repo_context, or neither",
                ))
            }
        };
        if let (Some(c), Some(max)) = (context, row.opt_u32("max_context")?) {
            if c > max {
                return Err(row.error("repo_context", format!("{c} is above the row's max_context {max}")));
            }
        }
        out.push(Checkpoint {
            model: row.req_str("id")?,
            why_none: if repo.is_empty() { source } else { String::new() },
            repo,
            context,
            yarn,
        });
    }
    Ok(out)
}

/// Field separator of the encoded lines (never in a repository id or a source).
const SEP: char = '\t';

/// One line per model: id, repository, context, YaRN factor and original
/// context (empty where none), why there is no repository.
pub fn encode(checkpoints: &[Checkpoint]) -> String {
    let opt = |v: Option<String>| v.unwrap_or_default();
    checkpoints
        .iter()
        .map(|c| {
            let clean = c.why_none.replace([SEP, '\n', '\r'], " ");
            [
                c.model.clone(),
                c.repo.clone(),
                opt(c.context.map(|v| v.to_string())),
                opt(c.yarn.map(|y| y.0.to_string())),
                opt(c.yarn.map(|y| y.1.to_string())),
                clean,
            ]
            .join(&SEP.to_string())
                + "\n"
        })
        .collect()
}

/// One [`encode`]d line read back.
pub fn decode_line(line: &str) -> Option<Checkpoint> {
    let mut f = line.split(SEP);
    let (model, repo, context, factor, original, why_none) =
        (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
    let num = |s: &str| if s.is_empty() { None } else { s.parse::<u32>().ok() };
    let yarn = factor.parse::<f64>().ok().zip(num(original));
    Some(Checkpoint {
        model: model.to_string(),
        repo: repo.to_string(),
        context: num(context),
        yarn,
        why_none: why_none.to_string(),
    })
}
