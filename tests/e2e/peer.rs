//! The live peer most scenarios need: a real session that does some work (usually a Read and an
//! Edit of a file, so it holds that file), then stays live until the test releases it.

use std::path::Path;

use super::api::Step;
use super::scenario::{Scenario, Session, hold_command};

impl Scenario {
    /// Script `marker` to run `work` and then stay live until `release` exists; start it as
    /// `name` in `cwd` with the prompt `<marker> <what>`; wait until it is holding. Returns the
    /// live session and the host's id for it.
    pub fn start_holding(
        &self,
        name: &str,
        marker: &str,
        cwd: &Path,
        work: Vec<Step>,
        release: &Path,
        what: &str,
    ) -> (Session, String) {
        let ready = self.flag(&format!("{name}-holds"));
        let mut steps = work;
        steps.push(Step::bash(&hold_command(&ready, release, 60)));
        steps.push(Step::Text("done".into()));
        self.api.script(marker, steps);
        let mut session = self.start(name, cwd, &format!("{marker} {what}"));
        let id = self.session_id_of(&mut session);
        self.wait_on(&mut session, &format!("{name} to {what}"), || {
            ready.exists()
        });
        (session, id)
    }
}
