//! The CLI's readable report: the same [`Answer`] the JSON carries, as text.

use std::fmt::Write;

use super::answer::Answer;
use super::columns::{self, Cell, Column, Ctx};
use super::config::Lang;
use super::messages::ui;
use super::money::Display;
use super::units::GIB;

fn gib(b: f64) -> String {
    format!("{:.2} GiB", b / GIB)
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.digits$}"))
}

pub fn text(a: &Answer) -> String {
    text_in(a, Lang::En)
}

/// The report with its sentences (the recommendation's reasons and
/// layouts, the guidance) and section headings in `lang`; the tables keep
/// their ids, units and column names.
pub fn text_in(a: &Answer, lang: Lang) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "whichgpu — {} ({}), catalog of {}", a.model_name, a.weight_format, a.catalog_as_of);
    let _ = writeln!(s, "query: {}", a.query);
    for n in &a.notices {
        let _ = writeln!(s, "notice [{}]: {}", n.key, n.message);
    }
    let m = &a.memory;
    let _ = writeln!(s, "\nMemory on {} × {}:", m.gpus, m.gpu);
    for (label, v) in [
        ("weights", m.weights_bytes),
        ("KV cache", m.kv_cache_bytes),
        ("activations", m.activations_bytes),
        ("gradients", m.gradients_bytes),
        ("optimizer", m.optimizer_bytes),
        ("overhead", m.overhead_bytes),
    ] {
        if v > 0.0 {
            let _ = writeln!(s, "  {label:<12} {}", gib(v));
        }
    }
    let _ = writeln!(
        s,
        "  {:<12} {} (range {} – {})",
        "total",
        gib(m.total_bytes),
        gib(m.total_bytes_low),
        gib(m.total_bytes_high)
    );
    let _ = writeln!(s, "  {:<12} {} (what nvidia-smi shows)", "reserved", gib(m.reserved_bytes));
    let ans = &a.answers;
    let _ = writeln!(
        s,
        "\nAnswers: max context {} tokens, max batch {}, min GPUs {}, best format {}",
        ans.max_context_tokens.map_or("-".into(), |v| v.to_string()),
        ans.max_batch.map_or("-".into(), |v| v.to_string()),
        ans.min_gpus.map_or("-".into(), |v| v.to_string()),
        ans.best_weight_format.clone().unwrap_or_else(|| "-".into())
    );
    if let Some(rl) = &ans.rl {
        rl_text(&mut s, rl);
    }
    let _ = writeln!(s, "\nPer GPU type (fits first):");
    // Training columns for every training job, image models included
    // (whose speed is not estimated: their cells say "-", not a serving
    // column that does not apply).
    let training = a.results.iter().any(|r| r.speeds.train_tokens_per_s().is_some())
        || matches!(a.task, super::config::Task::Finetune | super::config::Task::Pretrain);
    let media = a.results.iter().any(|r| {
        r.speeds.seconds_per_image().is_some()
            || r.speeds.seconds_per_clip().is_some()
            || r.speeds.audio_realtime_factor().is_some()
    });
    if media {
        let _ = writeln!(
            s,
            "  {:<22} {:>5} {:>5} {:>10} {:>12} {:>10} {:>10}  confidence",
            "gpu", "gpus", "fits", "GiB/GPU", "s/image", "s/clip", "audio ×RT"
        );
    } else if training {
        let _ = writeln!(
            s,
            "  {:<22} {:>5} {:>5} {:>10} {:>12} {:>10} {:>10}  confidence",
            "gpu", "gpus", "fits", "GiB/GPU", "train tok/s", "job h", "GPU-h"
        );
    } else {
        let _ = writeln!(
            s,
            "  {:<22} {:>5} {:>5} {:>10} {:>10} {:>10} {:>8}  confidence",
            "gpu", "gpus", "fits", "GiB/GPU", "tok/s/seq", "tok/s all", "TTFT s"
        );
    }
    let mut rows: Vec<_> = a.results.iter().collect();
    let score = |r: &&super::answer::GpuResult| {
        r.speeds
            .decode_tokens_per_s_per_seq()
            .or(r.speeds.train_tokens_per_s())
            .or(r.speeds.images_per_hour())
            .or(r.speeds.seconds_per_clip().map(|s| 1.0 / s.max(1e-9)))
            .or(r.speeds.audio_realtime_factor())
            .unwrap_or(0.0)
    };
    rows.sort_by(|x, y| y.fits.cmp(&x.fits).then(score(y).total_cmp(&score(x))));
    for r in rows {
        let (c1, c2, c3) = if media {
            (
                opt(r.speeds.seconds_per_image(), 2),
                opt(r.speeds.seconds_per_clip(), 0),
                opt(r.speeds.audio_realtime_factor(), 2),
            )
        } else if training {
            (
                opt(r.speeds.train_tokens_per_s(), 0),
                opt(r.speeds.job_hours(), 1),
                opt(r.speeds.job_gpu_hours(), 0),
            )
        } else {
            (
                opt(r.speeds.decode_tokens_per_s_per_seq(), 1),
                opt(r.speeds.decode_tokens_per_s_total(), 0),
                opt(r.speeds.time_to_first_token_s(), 3),
            )
        };
        let _ = writeln!(
            s,
            "  {:<22} {:>5} {:>5} {:>10.1} {:>12} {:>10} {:>10}  {}",
            r.gpu,
            r.gpus * r.nodes,
            if r.fits { "yes" } else { "no" },
            r.per_gpu_bytes / GIB,
            c1,
            c2,
            c3,
            r.confidence
        );
    }
    let layout = |id: &str| {
        a.offers.iter().find(|o| &*o.id == id).map_or_else(String::new, |o| {
            let (term_word, sep) = if lang == Lang::En { (" term", "; ") } else { (" 期承诺", "；") };
            let term = if o.commitment == super::config::Commit::None {
                String::new()
            } else {
                format!(", {}{term_word}", o.commitment)
            };
            let unknown = if o.unknown_costs.is_empty() {
                String::new()
            } else {
                format!("{sep}{}", unknown_parts(o, lang))
            };
            format!(" [{}{term}{unknown}]", o.layout_msg.render(lang))
        })
    };
    if let Some(rec) = &a.recommendation {
        let reasons = |msgs| super::answer::reasons(msgs, lang);
        let _ = writeln!(
            s,
            "\n{}: {}{} — {}",
            ui("ui.recommendation", lang),
            rec.pick.offer,
            layout(&rec.pick.offer),
            reasons(&rec.pick.reason_msgs)
        );
        for alt in &rec.alternatives {
            let _ = writeln!(
                s,
                "  {}: {}{} — {}",
                ui(alt.why_key(), lang),
                alt.offer,
                layout(&alt.offer),
                reasons(&alt.reason_msgs)
            );
        }
    } else {
        // As the page says it: offers that hold the job but miss a limit, or none.
        let none = if a.offers.iter().any(|o| o.fits) { "ui.none.misses" } else { "ui.none" };
        let _ = writeln!(s, "\n{}: {}", ui("ui.recommendation", lang), ui(none, lang));
    }
    if let Some(api) = &a.api {
        let d = &a.display;
        let per_m = |usd: f64| {
            format!("{}{}", d.symbol(), super::link::fmt_num((d.amount(usd) * 1000.0).round() / 1000.0))
        };
        // A batch job of a stated size has no breakeven rate: the two bills are the comparison.
        let even = api.breakeven_requests_per_s.map_or_else(String::new, |b| {
            if lang == Lang::En {
                format!("; the pick is cheaper above {b:.3} req/s")
            } else {
                format!("；每秒请求高于 {b:.3} 个时所选方案更便宜")
            }
        });
        let (head, body) = if lang == Lang::En {
            (
                "API (cheapest listed)",
                format!(
                    "{}/{} per Mtok in/out, {}: {}/mo at {:.3} req/s; the pick {}/mo{even}",
                    per_m(api.usd_per_million_input),
                    per_m(api.usd_per_million_output),
                    api.as_of,
                    d.format(api.usd_per_month),
                    api.requests_per_s,
                    d.format(api.pick_usd_per_month)
                ),
            )
        } else {
            (
                "API（最便宜的已列出）",
                format!(
                    "每百万 token 输入/输出 {}/{}，{}：每秒 {:.3} 个请求时每月 {}；所选方案每月 {}{even}",
                    per_m(api.usd_per_million_input),
                    per_m(api.usd_per_million_output),
                    api.as_of,
                    api.requests_per_s,
                    d.format(api.usd_per_month),
                    d.format(api.pick_usd_per_month)
                ),
            )
        };
        let _ = writeln!(s, "\n{head}: {} — {body}", api.host);
    }
    let d = &a.display;
    match d.currency {
        super::config::Currency::Usd => {
            let _ = writeln!(s, "\nTop offers:");
        }
        c => {
            let _ = writeln!(s, "\nTop offers (prices in {}):", c.as_str().to_uppercase());
        }
    }
    // The cost per unit of what the task produces, as the offers are ranked
    // on it: per million output tokens (serving), per 1,000 images, per
    // clip, per hour of audio (generation); training has its cost per job.
    let unit = if a.offers.iter().any(|o| o.speeds.seconds_per_image().is_some()) {
        "usd_per_1000_images"
    } else if a.offers.iter().any(|o| o.speeds.seconds_per_clip().is_some()) {
        "usd_per_clip"
    } else if a.offers.iter().any(|o| o.speeds.audio_realtime_factor().is_some()) {
        "usd_per_audio_hour"
    } else {
        "usd_per_million_output_tokens"
    };
    let cols: Vec<&Column> = columns::of_view(columns::REPORT, Some(unit)).collect();
    let ctx = Ctx { lang, sources: "" };
    let mut converted = None;
    for o in a.offers.iter().take(10) {
        let mark = if d.converts(o.currency) {
            converted = converted.or(d.rate_for(o.currency));
            super::money::CONVERTED_MARK
        } else {
            ""
        };
        for c in &cols {
            report_cell(&mut s, c, (c.cell)(o, &ctx), d, mark);
        }
        let cold = o.cold_start_s.map_or_else(String::new, |c| format!("serverless, cold start {c:.0} s "));
        let _ = writeln!(
            s,
            " {cold}{}{}{}",
            if !o.fits {
                "does not fit "
            } else if !o.meets {
                "misses the deadline, SLA or budget "
            } else {
                ""
            },
            if o.stale { "(price possibly stale) " } else { "" },
            // What the month leaves out, named: never a silent $0.
            unknown_parts(o, lang)
        );
    }
    if let Some(r) = converted {
        let _ = writeln!(
            s,
            "  {} converted at {}",
            super::money::CONVERTED_MARK,
            super::money::Display::rate_text(&r)
        );
    }
    let _ = writeln!(s, "\n{}:", ui("ui.guidance", lang));
    for g in &a.guidance {
        let text = g.msg.render(lang);
        match &g.title_msg {
            Some(m) => {
                let title = m.render(lang);
                let _ = writeln!(s, "  {title}\n    {text}");
            }
            None => {
                let _ = writeln!(s, "  • {text}");
            }
        }
    }
    s
}

/// One column of an offers line, laid out as the column says: money in the
/// display currency with its symbol and unit, an unknown value as `-`.
fn report_cell(s: &mut String, c: &Column, cell: Cell<'_>, d: &Display, mark: &str) {
    let r = c.report;
    let (text, is_money) = match cell {
        Cell::Text(t) => (t.into_owned(), false),
        Cell::Name(n) => (n.to_string(), false),
        Cell::Names(n) => (n.join(";"), false),
        Cell::Count(n) => (n.to_string(), false),
        Cell::Flag(b) => ((if b { "yes" } else { "no" }).to_string(), false),
        Cell::Number { value, digits } => (format!("{value:.digits$}"), false),
        Cell::Usd { usd, .. } => (
            r.digits
                .map_or_else(|| money(d.amount(usd)), |n| format!("{:.*}", usize::from(n), d.amount(usd))),
            true,
        ),
        Cell::Date(date) => (date.to_string(), false),
        Cell::Unknown(_) => ("-".to_string(), !r.unit.is_empty()),
    };
    let w = usize::from(r.width.unsigned_abs());
    let _ =
        if r.width < 0 { write!(s, "{}{text:<w$}", r.before) } else { write!(s, "{}{text:>w$}", r.before) };
    if is_money {
        let _ = write!(s, "{} {}{}", if r.mark { mark } else { "" }, d.symbol(), r.unit);
    }
}

/// Dollars with cents below $100, whole dollars above.
fn money(v: f64) -> String {
    if v.abs() < 100.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.0}")
    }
}

/// The parts of an offer's bill its provider does not publish, or bills
/// beside the GPU price, in words (the page's texts).
fn unknown_parts(o: &super::answer::OfferResult, lang: Lang) -> String {
    let sep = if lang == Lang::En { "; " } else { "；" };
    o.unknown_costs.iter().map(|part| ui(part.ui_key(), lang)).collect::<Vec<_>>().join(sep)
}

/// An RL fine-tune's memory beside the policy and its step in both layouts.
fn rl_text(s: &mut String, rl: &super::answer::RlAnswer) {
    let g = |b: f64| b / super::units::GIB;
    let _ = writeln!(
        s,
        "\nRL ({} {}, {} GPUs) per GPU: policy {:.1} GiB, reference {:.1}, reward {:.1}, critic {:.1}, vLLM \
            {:.1}",
        rl.method,
        rl.adapter,
        rl.plan_gpus,
        g(rl.policy_bytes),
        g(rl.reference_bytes),
        g(rl.reward_bytes),
        g(rl.critic_bytes),
        g(rl.engine_bytes)
    );
    for (name, step) in [("colocate", &rl.colocate), ("split", &rl.split)] {
        let Some(st) = step else { continue };
        let _ = writeln!(
            s,
            "  {name:<8} step {:.1} s = generation {:.1} + scoring {:.1} + update {:.1} + sync {:.2}; {} \
                sequences/step, {} steps, {:.1} h; {} generating, {} training, vLLM tp {}{}",
            st.step_s,
            st.generation_s,
            st.scoring_s,
            st.update_s,
            st.sync_s,
            st.sequences_per_step,
            st.steps,
            st.run_hours,
            st.generation_gpus,
            st.training_gpus,
            st.vllm_tp,
            if st.fits { "" } else { " (does not fit)" }
        );
    }
    let _ = writeln!(s, "  billed as {}; faster: {}", rl.gen, rl.faster_gen.unwrap_or("neither fits"));
}
