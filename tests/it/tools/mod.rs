//! The CLI and the price converters.

mod cli;
mod golden;
mod ocp;
mod silybench;
mod skypilot;
