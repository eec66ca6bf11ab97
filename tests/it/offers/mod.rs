//! Each offer's bill, the ranking and the pick.

mod api_measured;
mod api_page;
mod bill;
mod bill_as_read;
mod china;
mod columns;
mod csv_export;
mod currency;
mod host_bill;
mod order;
mod ranking;
mod serverless;
mod stale_pick;
mod startup;
mod sturdy;
