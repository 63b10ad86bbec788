//! Pure decisions over an event and the facts gathered for it; no I/O happens here.

pub(crate) mod awareness;
pub(crate) mod background;
pub(crate) mod claims;
pub mod guard;
pub(crate) mod readers;
pub(crate) mod sed_files;
pub(crate) mod sync;
pub(crate) mod tools;
pub(crate) mod writers;
pub(crate) mod writes;
