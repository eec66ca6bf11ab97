//! Plans per offer: layouts, loads, deadlines, RL fine-tuning.

mod batch_deadline;
mod host_ram;
mod plans;
mod rl;
mod serve_load;
mod serving_rate_and_context;
mod spot_deadline;
