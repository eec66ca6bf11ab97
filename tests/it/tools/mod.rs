//! The CLI and the price converters.

mod cli;
mod ocp;
mod silybench;
mod skypilot;
