//! Statistical checks of samplers and mechanisms (used by the test suite; the full auditor comes later).

pub mod gof;
