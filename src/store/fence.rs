//! Fencing: who writes a session's record, and the check that refuses a superseded agent
//! process (a session resumed elsewhere raises its generation; the old process's writes are
//! refused by the store, not by the caller's good manners).

use super::StoreError;
use super::record::{FormerAgent, Session};
use crate::agent::AgentProcess;

/// How many superseded agent processes a record remembers.
const MAX_FORMER: usize = 8;

/// Who is writing, for the fencing check.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Writer<'a> {
    /// A caller with no process identity (a person's command): writes at the current generation.
    Anonymous,
    /// A caller that holds a known generation; refused when the record's is newer.
    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "only the store's tests write with a held generation; hooks are fenced by their agent process"
        )
    )]
    Stamped(u64),
    /// A hook call from an agent process. A new process (or `register`, a session start) takes
    /// the session over and raises its generation; a superseded process is refused.
    Agent {
        /// The calling agent process.
        process: &'a AgentProcess,
        /// Whether this call registers the session (a session start).
        register: bool,
    },
}

impl<'a> Writer<'a> {
    /// A non-registering call from `process` when the agent process is known, else anonymous.
    pub(crate) fn from_process(process: Option<&'a AgentProcess>) -> Writer<'a> {
        match process {
            Some(process) => Writer::Agent {
                process,
                register: false,
            },
            None => Writer::Anonymous,
        }
    }
}

/// Check `writer` against `session` and record a takeover. Errors when the writer is fenced.
pub(super) fn fence(
    session: &mut Session,
    writer: Writer<'_>,
    exists: bool,
) -> Result<(), StoreError> {
    let fenced = |held| StoreError::Fenced {
        session: session.id.clone(),
        held,
        current: session.generation,
    };
    match writer {
        Writer::Anonymous => Ok(()),
        Writer::Stamped(held) if exists && held < session.generation => Err(fenced(held)),
        Writer::Stamped(_) => Ok(()),
        Writer::Agent { process, register } => {
            let current = session.agent.clone();
            match current {
                Some(cur) if &cur == process => Ok(()),
                None => {
                    session.agent = Some(process.clone());
                    Ok(())
                }
                Some(cur) => {
                    let former = session.former.iter().find(|f| &f.process == process);
                    if let (Some(f), false) = (former, register) {
                        return Err(fenced(f.generation));
                    }
                    session.former.retain(|f| &f.process != process);
                    session.former.push(FormerAgent {
                        process: cur,
                        generation: session.generation,
                    });
                    if session.former.len() > MAX_FORMER {
                        session.former.remove(0);
                    }
                    session.generation += 1;
                    session.agent = Some(process.clone());
                    Ok(())
                }
            }
        }
    }
}
