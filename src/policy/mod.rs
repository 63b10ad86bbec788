//! Pure decisions over an event and the facts gathered for it; no I/O happens here.

pub mod awareness;
pub mod claims;
pub mod guard;
pub mod readers;
pub mod sync;
pub mod writes;
