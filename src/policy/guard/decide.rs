//! Combining the verdicts of one command line into the host's answer and the audit lines.

use super::{AtRisk, BYPASS_VAR, Finding, Guarded, Verdict};
use crate::protocol::Response;

/// One line for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuditEntry {
    /// Which guarded command (index into the list given to [`decide`]).
    pub(crate) index: usize,
    /// `block`, `bypass` or `ask`.
    pub(crate) verdict: &'static str,
    /// The reason given (for a bypass: the reason it would have been refused).
    pub(crate) reason: String,
    /// Worktrees at risk.
    pub(crate) worktrees: Vec<AtRisk>,
    /// The rule that decided.
    pub(crate) rule: &'static str,
}

/// The whole command line's answer and what goes to the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    /// The answer to the host.
    pub(crate) response: Response,
    /// Audit lines to append.
    pub(crate) audit: Vec<AuditEntry>,
}

/// Combine the verdicts of a command line: any block refuses it, else any ask asks; a bypassed
/// command's verdict is recorded and let through.
pub(crate) fn decide(verdicts: &[(Guarded, Verdict)]) -> Decision {
    let mut blocks = Vec::new();
    let mut asks = Vec::new();
    let mut bypasses = Vec::new();
    for (i, (g, v)) in verdicts.iter().enumerate() {
        match v {
            Verdict::Allow => {}
            Verdict::Block(f) | Verdict::Ask(f) if g.bypass => bypasses.push((i, f)),
            Verdict::Block(f) => blocks.push((i, f)),
            Verdict::Ask(f) => asks.push((i, f)),
        }
    }
    let entry = |verdict, &(index, f): &(usize, &Finding)| AuditEntry {
        index,
        verdict,
        reason: f.reason.clone(),
        worktrees: f.worktrees.clone(),
        rule: f.rule,
    };
    if !blocks.is_empty() {
        let reason = blocks
            .iter()
            .map(|(_, f)| f.reason.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let person = format!(
            "{reason}\nIf this is deliberate, run it yourself with \
             {BYPASS_VAR}=1 in front of that very command; the bypass is written to the audit \
             log (git dibs audit)."
        );
        return Decision {
            response: Response::Deny {
                reason,
                person: Some(person),
            },
            audit: blocks.iter().map(|f| entry("block", f)).collect(),
        };
    }
    let mut audit: Vec<AuditEntry> = bypasses
        .iter()
        .map(|f| {
            let mut e = entry("bypass", f);
            e.reason = bypassed_reason(&e.reason);
            e
        })
        .collect();
    if !asks.is_empty() {
        audit.extend(asks.iter().map(|f| entry("ask", f)));
        let reason = asks
            .iter()
            .map(|(_, f)| f.reason.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        return Decision {
            response: Response::Ask { reason },
            audit,
        };
    }
    Decision {
        response: Response::Silent,
        audit,
    }
}

/// The audit reason of a command let through by the bypass: what happened first, then what the
/// guard would have said ("git-dibs refused ..." told as "would have refused ...").
fn bypassed_reason(reason: &str) -> String {
    let told = match reason.strip_prefix("git-dibs refused ") {
        Some(rest) => format!("git-dibs would have refused {rest}"),
        None => reason.replacen("git-dibs cannot tell", "git-dibs could not tell", 1),
    };
    format!("let through ({BYPASS_VAR}=1): {told}")
}
