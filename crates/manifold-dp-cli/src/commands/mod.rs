//! One file per command: parse the arguments into library types, call the libraries, print or write.

pub mod audit;
pub mod budget;
pub mod demo;
pub mod ledger;
pub mod mean;
pub mod privatize;
pub mod radius;
pub mod reproduce;
pub mod reproduce_directional;
pub mod reproduce_riemannian;
pub mod sample;
