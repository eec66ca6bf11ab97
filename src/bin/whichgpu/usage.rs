//! The usage text the CLI and its maintainers' subcommands print.

pub const USAGE: &str = "usage:
  whichgpu [--json] [--strict] [--today YYYY-MM-DD] [--emit skypilot|command] [--config FILE] '<query string>'
                                      --emit: the pick's and each alternative's SkyPilot task
                                      (YAML documents, pick first) or engine command instead of
                                      the report; with --json, an `export` array in the JSON
                                      --config: a Hugging Face config.json; sets model=custom
                                      and its architecture keys, prints the query to share
  whichgpu calibrate FILE... [--fit]  predicted vs measured for task=serve rows (fit on split=fit);
                                      tests/data/training_measurements.csv or media_measurements.csv: fits \
                                          their constants
  whichgpu calibrate FILE --holdout FILE2 --summary OUT
                                      writes the page's accuracy summary (static/accuracy.csv)
                                      from FILE (the fit rows) and FILE2's split=holdout rows
  whichgpu catalog check [--today YYYY-MM-DD]
                                      exit 1 when a catalog row lacks its source, date,
                                      currency or unit; lists rows older than six months
  whichgpu skypilot PROVIDER FILE --as-of YYYY-MM-DD --source TEXT
                                      a SkyPilot catalog CSV as offers.csv rows on stdout;
                                      skipped rows on stderr; exit 2 when none converts
  whichgpu refresh ocp FILE --provider ID --source TEXT [--as-of YYYY-MM-DD]
                                      an OpenComputePrices CSV (data/<source>.csv) as offers.csv
                                      rows of one provider; as-of defaults to each row's snapshot_date
  whichgpu refresh silybench FILE --source TEXT
                                      silybench's derived/csv/gpu_prices.csv as offers.csv rows
                                      (every provider of providers.csv, each row with its date)
  whichgpu docs link-format           the link and JSON contract (docs/link-format.md), generated
                                      from the key registry and the answers' JSON
  whichgpu docs engines               the engine table (docs/engines.md), generated
                                      from src/core/engines/ and static/support.csv
  whichgpu keys                       every link key: values, default, meaning";
