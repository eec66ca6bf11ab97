//! The link: the query string and its key registry, the generated contract, config.json import.

mod codec;
mod contract;
mod hfconfig;
mod keys;
mod registry;
