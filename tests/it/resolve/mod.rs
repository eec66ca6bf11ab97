//! What `resolve` decides once: the settings in effect and the notices on what a link asks.

mod notices;
mod settings;
