//! The bundled tables: their checks, their compiled form, the CSV reader.

mod check;
mod compiled;
mod support;
mod table;
mod tables;
mod targets;
