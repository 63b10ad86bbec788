//! A live peer's files deleted or written over by plain programs: `rm` (any flags), `unlink`,
//! `shred`, `mv` (sources and what the destination replaces), judged by the peers rule as
//! literal pathspecs.

use super::{Op, Take};

/// `rm` (any flags), `unlink`, `shred` and `mv` of files a live peer may hold: the paths
/// deleted or written over, as literal pathspecs.
pub fn classify_paths(argv: &[String], cwd: &std::path::Path) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    let name = first.rsplit('/').next()?;
    if !matches!(name, "rm" | "unlink" | "shred" | "mv") {
        return None;
    }
    let mut operands = Vec::new();
    let mut dashdash = false;
    let mut target_dir: Option<String> = None;
    let mut it = argv[1..].iter();
    while let Some(a) = it.next() {
        if !dashdash && a == "--" {
            dashdash = true;
        } else if !dashdash && name == "mv" && (a == "-t" || a == "--target-directory") {
            target_dir = it.next().cloned();
        } else if !dashdash && a.starts_with('-') && a.len() > 1 {
        } else {
            operands.push(a.clone());
        }
    }
    if operands.is_empty() {
        return None;
    }
    let mut paths: Vec<String> = operands
        .iter()
        .map(|o| cwd.join(o).to_string_lossy().into_owned())
        .collect();
    if name == "mv" {
        // The destination, and the file of that name inside it, are written over.
        let dest = target_dir
            .map(|d| cwd.join(d))
            .or_else(|| operands.last().map(|o| cwd.join(o)));
        if let Some(dest) = dest {
            for o in &operands {
                if let Some(n) = std::path::Path::new(o).file_name() {
                    paths.push(dest.join(n).to_string_lossy().into_owned());
                }
            }
        }
    }
    let specs: Vec<String> = paths.iter().map(|p| format!(":(literal){p}")).collect();
    Some((Op::Take(vec![Take::new(true, true, specs)]), operands))
}
