//! Tools a host runs that git-dibs does not know by name (an MCP server's `write_file`,
//! Serena's `replace_symbol_body`, an IDE's tools): any of them may write any file, so the
//! hook sweeps before one runs and scans the worktree by state after it. Only a tool whose own
//! name says it reads is left alone: its first word is a reading verb ([`READ_VERBS`]) and no
//! later word a writing one ([`WRITE_WORDS`]). Conservative: any other name may write. Pure.

/// First words of a tool name that only reads (`read_file`, `getDiagnostics`, `list-dirs`).
pub(crate) const READ_VERBS: &[&str] = &[
    "read", "get", "list", "search", "find", "fetch", "query", "view", "show", "describe",
];

/// Words that, anywhere in a name, say the tool may write all the same (`get_or_create_file`,
/// `read_and_replace`).
pub(crate) const WRITE_WORDS: &[&str] = &[
    "write", "edit", "create", "delete", "remove", "move", "rename", "replace", "insert", "update",
    "set", "save", "apply", "patch", "put", "append", "modify", "make", "run", "exec", "execute",
];

/// The words of a tool name, lowercased: split at `_`, `-`, `.`, spaces and where a lowercase
/// letter or digit meets an uppercase one (`readFile` → `read`, `file`).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether the tool named `name` (its own name within its server, `read_file`) can only read,
/// by its name (see the module's note).
pub(crate) fn only_reads(name: &str) -> bool {
    let words = words(name);
    let Some((first, rest)) = words.split_first() else {
        return false;
    };
    READ_VERBS.contains(&first.as_str()) && !rest.iter().any(|w| WRITE_WORDS.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_only_read() {
        for name in [
            "read_file",
            "read_text_file",
            "read_multiple_files",
            "readFile",
            "get_file_info",
            "getDiagnostics",
            "list_directory",
            "list_allowed_directories",
            "search_files",
            "find_symbol",
            "find_referencing_symbols",
            "fetch",
            "query",
            "view",
            "show_diff",
            "describe-table",
            "READ_FILE",
        ] {
            assert!(only_reads(name), "{name}");
        }
    }

    #[test]
    fn names_that_may_write() {
        for name in [
            "write_file",
            "edit_file",
            "move_file",
            "create_directory",
            "replace_symbol_body",
            "insert_after_symbol",
            "replace_text_in_file",
            "execute_shell_command",
            "openFile",
            "open_nodes",
            // A reading verb's look-alikes are not it.
            "reader_write",
            "readme",
            "getaway",
            "listen",
            "finder",
            // A reading verb followed by a writing word.
            "get_or_create_file",
            "read_and_replace",
            "findAndReplace",
            "search_replace",
            "fetch_and_save",
            "get-set",
            // Nothing to go by.
            "",
            "__",
            "mcp__fs__",
        ] {
            assert!(!only_reads(name), "{name}");
        }
    }

    #[test]
    fn words_split_at_separators_and_case() {
        assert_eq!(words("readFile"), ["read", "file"]);
        assert_eq!(
            words("get_file-info.x y"),
            ["get", "file", "info", "x", "y"]
        );
        assert_eq!(words("HTTPGet"), ["httpget"]);
        assert_eq!(words("v2Read"), ["v2", "read"]);
    }
}
