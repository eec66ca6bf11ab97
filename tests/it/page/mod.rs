//! What the page shows: the answer it renders, its colours.

mod answer;
mod contrast;
