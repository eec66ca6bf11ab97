//! The FAQ answers beside the pick, and that each sentence is true for its answer.

mod messages;
mod offload_and_no_fit;
mod rules;
mod train_advice;
mod training_media_sentences;
mod truth;
