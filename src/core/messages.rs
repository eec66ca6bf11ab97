//! Every user-facing sentence, by message key, in English and Chinese.
//! Templates take named `{arg}` placeholders; a test checks that both
//! languages have every key and the same placeholders.

use super::config::Lang;

/// A message to render in the reader's language.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    pub key: &'static str,
    pub args: Vec<(&'static str, Arg)>,
}

/// A placeholder's value. Numbers are kept as numbers and formatted only
/// when the message is rendered: ranking builds reasons for every offer on
/// every input change, and most of them are never shown.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Text(String),
    /// A number shown with this many decimals.
    Fixed(f64, u8),
    /// A message of its own, rendered in the same language.
    Msg(Box<Msg>),
}

impl std::fmt::Display for Arg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Arg::Text(s) => f.write_str(s),
            Arg::Fixed(x, d) => write!(f, "{x:.prec$}", prec = usize::from(*d)),
            Arg::Msg(m) => f.write_str(&m.render(super::config::Lang::En)),
        }
    }
}

impl Msg {
    pub fn new(key: &'static str) -> Msg {
        Msg { key, args: Vec::new() }
    }

    pub fn arg(mut self, name: &'static str, value: impl Into<String>) -> Msg {
        self.args.push((name, Arg::Text(value.into())));
        self
    }

    /// A message of a finished text (the on-demand worker's, already in
    /// the reader's language): no template has the key `{t}`, so it renders
    /// as its one placeholder.
    pub fn text(s: impl Into<String>) -> Msg {
        Msg::new("{t}").arg("t", s)
    }

    /// A numeric placeholder, formatted with `decimals` when rendered.
    pub fn num(mut self, name: &'static str, value: f64, decimals: u8) -> Msg {
        self.args.push((name, Arg::Fixed(value, decimals)));
        self
    }

    /// A placeholder filled by another message, in the reader's language.
    pub fn sub(mut self, name: &'static str, value: Msg) -> Msg {
        self.args.push((name, Arg::Msg(Box::new(value))));
        self
    }

    /// Replaces each `{name}` placeholder of a template with its value
    /// (a nested message in `lang`), and each `{name:s}` with the English
    /// plural ending: nothing when the value reads `1`, else `s`
    /// ("1 GPU", "2 GPUs").
    pub fn fill(&self, template: &str, lang: Lang) -> String {
        let mut out = template.to_string();
        for (name, value) in &self.args {
            let text = match value {
                Arg::Msg(m) => m.render(lang),
                v => v.to_string(),
            };
            out = out.replace(&format!("{{{name}}}"), &text);
            let plural = format!("{{{name}:s}}");
            if out.contains(&plural) {
                out = out.replace(&plural, if text == "1" { "" } else { "s" });
            }
        }
        out
    }

    pub fn render(&self, lang: Lang) -> String {
        self.fill(template(self.key, lang).unwrap_or(self.key), lang)
    }
}

pub fn template(key: &str, lang: Lang) -> Option<&'static str> {
    MESSAGES.iter().enumerate().find(|(_, row)| row.0 == key).map(|(i, row)| pick(row, i, lang))
}

#[cfg(not(target_arch = "wasm32"))] // A row's text in `lang`; the Wasm's `pick` (in `texts`) reads `index`.
fn pick(row: &(&'static str, &'static str, &'static str), _index: usize, lang: Lang) -> &'static str {
    Some(row.2).filter(|_| lang == Lang::Zh).unwrap_or(row.1)
}

#[cfg(target_arch = "wasm32")]
use super::texts::{pick, MESSAGES, UI};

/// This build's own copy of a message key read back from text (the
/// on-demand worker's replies), if it has that message.
pub fn known_key(key: &str) -> Option<&'static str> {
    MESSAGES.iter().find(|row| row.0 == key).map(|row| row.0)
}

/// This build's own copy of placeholder `name` of message `key`, taken
/// from its English text; `None` when that text has no such placeholder.
pub fn known_arg(key: &str, name: &str) -> Option<&'static str> {
    let text = template(key, Lang::En)?;
    let at = text.find(&format!("{{{name}}}"))?;
    text.get(at + 1..at + 1 + name.len())
}

pub fn t(key: &'static str, lang: Lang) -> &'static str {
    template(key, lang).unwrap_or(key)
}

/// (key, English, Chinese). The page's Wasm compiles in (key, English) only (`texts`).
#[cfg(not(target_arch = "wasm32"))]
pub const MESSAGES: &[(&str, &str, &str)] = &[
    // Offer reasons.
    ("reason.fits", "fits on {gpus} GPU{gpus:s} with {headroom} GiB to spare", "{gpus} 块 GPU 即可容纳，余量 {headroom} GiB"),
    ("reason.deadline", "cannot finish within {days} days: needs {need} GPU{need:s}, this offer reaches {most}", "无法在 {days} 天内完成：需要 {need} 块 GPU，此报价最多 {most} 块"),
    ("reason.nofit", "needs {need} GiB per GPU, only {have} GiB usable", "每块 GPU 需要 {need} GiB，可用仅 {have} GiB"),
    ("reason.spot", "spot price, with {restart}% extra time for restarts", "按竞价实例计价，另加 {restart}% 的重启耗时"),
    ("reason.late", "takes {took} days with this layout, past the {days}-day deadline", "按此布局需 {took} 天，超过 {days} 天的期限"),
    ("reason.engine_rule", "{engine} refuses tensor parallel {tp} at load: the {dim} ({full}) split {tp} ways is {per} per GPU, not a multiple of {multiple} ({format}; {source})", "{engine} 加载时拒绝张量并行 {tp}：{dim}（{full}）切成 {tp} 份后每块 GPU {per}，不是 {multiple} 的倍数（{format}；{source}）"),
    ("rule.dim.q", "query heads × head size", "查询头 × 头维度"),
    ("rule.dim.kv", "KV heads × head size", "KV 头 × 头维度"),
    ("rule.dim.ffn", "FFN width", "FFN 宽度"),
    ("rule.dim.expert", "expert FFN width", "专家 FFN 宽度"),
    ("rule.dim.experts", "routed experts", "路由专家"),
    ("reason.engine_rule.ep", "{engine} refuses expert parallel {ep} at load: its {experts} routed experts do not deal out evenly over {ep} GPUs ({source})", "{engine} 加载时拒绝专家并行 {ep}：{experts} 个路由专家无法平均分到 {ep} 块 GPU 上（{source}）"),
    ("reason.gpus_short", "has {have} GPU{have:s} per instance; the link asks for {want}", "每个实例只有 {have} 块 GPU，链接要求 {want} 块"),
    ("reason.gpus_more", "has {have} GPU{have:s} per instance; the link asks for instances of {want}", "每个实例有 {have} 块 GPU，链接要求每个实例 {want} 块"),
    ("reason.no_network", "the link asks for {nodes} instances, but this offer publishes no network between instances", "链接要求 {nodes} 个实例，但此报价未公布实例间网络"),
    ("reason.host_ram", "needs about {need} GiB of CPU memory per instance for the offloaded states; this instance has {have} GiB", "卸载的状态每个实例约需 {need} GiB CPU 内存，该实例只有 {have} GiB"),
    ("reason.host_billed", "the price includes the host billed beside the GPUs at the provider's rates: {vcpus} vCPUs and {gib} GiB (a busy process per GPU and one more; the weights in the page cache)", "价格含按服务商费率与 GPU 分开计费的主机：{vcpus} 个 vCPU、{gib} GiB（每块 GPU 一个忙碌进程另加一个；页缓存中的权重）"),
    ("reason.host_unknown", "needs about {need} GiB of CPU memory per instance for the offloaded states, and the provider does not publish this instance's: ranked after offers that publish enough", "卸载的状态每个实例约需 {need} GiB CPU 内存，而服务商未公布该实例的内存：排在公布了足够内存的方案之后"),
    ("reason.late_spot", "on spot, with {restart}% extra time for restarts, takes {took} days: past the {days}-day deadline", "按竞价实例计，另加 {restart}% 的重启耗时，需 {took} 天：超过 {days} 天的期限"),
    ("reason.slow", "{tps} tokens/s per user, below the {min} asked", "每用户 {tps} tokens/s，低于要求的 {min}"),
    ("layout.single", "one copy on one GPU", "单副本，单块 GPU"),
    ("layout.tp", "one copy, tensor parallel {tp} on one node", "单副本，单节点内张量并行 {tp}"),
    ("layout.ep", "one copy, tensor parallel {tp} with the experts dealt out whole (expert parallel) on one node", "单副本，单节点内张量并行 {tp}，专家整体分配到各 GPU（专家并行）"),
    ("layout.dp_attention", "one copy on {gpus} GPUs of one node: data-parallel attention over {dp} ranks of {tp} GPU{tp:s}, each holding its own sequences' cache; the experts over all {gpus}", "单副本，单节点 {gpus} 块 GPU：注意力数据并行 {dp} 路，每路 {tp} 块 GPU，各自只存自己序列的缓存；专家分布在全部 {gpus} 块 GPU 上"),
    ("layout.layers", "one copy, layers split over {gpus} GPUs of one node", "单副本，模型层分布在单节点的 {gpus} 块 GPU 上"),
    ("layout.pp", "one copy, tensor parallel {tp} × {pp} pipeline stages across {instances} instances", "单副本，张量并行 {tp} × {pp} 级流水线，跨 {instances} 个实例"),
    ("layout.replicas", "{replicas} × {per}×{gpu} replicas behind a load balancer", "{replicas} 个 {per}×{gpu} 副本，经负载均衡"),
    ("layout.train.zero", "data parallel {dp} sharded by ZeRO-{zero} × tensor parallel {tp} × pipeline {pp} on {gpus} GPU{gpus:s} in {instances} instance{instances:s}", "数据并行 {dp}（ZeRO-{zero} 分片）× 张量并行 {tp} × 流水线 {pp}，共 {gpus} 块 GPU，{instances} 个实例"),
    ("layout.train", "data parallel {dp} × tensor parallel {tp} × pipeline {pp} on {gpus} GPU{gpus:s} in {instances} instance{instances:s}", "数据并行 {dp} × 张量并行 {tp} × 流水线 {pp}，共 {gpus} 块 GPU，{instances} 个实例"),
    ("layout.pipelines", "{replicas} pipeline{replicas:s}, one per GPU", "{replicas} 条生成流水线，每块 GPU 一条"),
    ("layout.pipelines_idle", "1 pipeline on 1 of {gpus} GPUs; the others idle at this load", "1 条生成流水线，占 {gpus} 块 GPU 中的 1 块；此负载下其余空闲"),
    ("layout.instances", "{instances} instances to meet the deadline, each: {each}", "为按期完成租 {instances} 个实例，每个：{each}"),
    ("layout.data", "data parallel over {gpus} GPUs", "在 {gpus} 块 GPU 上数据并行"),
    ("layout.single_train", "one GPU, no parallelism", "单块 GPU，不并行"),
    ("part.storage", "storage", "存储"),
    ("part.egress", "egress", "出网流量"),
    ("part.billing_increment", "billing increment", "计费粒度"),
    ("part.host", "host CPU/RAM", "主机 CPU/内存"),
    ("part.cold_start", "cold start", "冷启动"),
    ("part.other", "{id}", "{id}"),
    ("list.pair", "{a}, {b}", "{a}、{b}"),
    ("reason.leaves_out", "leaves out what the provider does not publish: {parts}", "未计入服务商未公布的费用：{parts}"),
    ("reason.unsupported", "{engine} does not run {format} on {arch} GPUs (support matrix)", "{engine} 不支持在 {arch} 架构 GPU 上运行 {format}（支持矩阵）"),
    ("reason.spot_refused", "on-demand: a synchronous run over several instances or longer than a week stays off spot; reserved or committed capacity suits it", "按需计价：跨多个实例或超过一周的同步训练不使用竞价实例；适合预留或承诺容量"),
    ("reason.thin", "a thin memory margin: ranked after offers with room", "显存余量很小：排在有余量的方案之后"),
    ("reason.committed", "on a 1-year term: {month} a month, {pct}% below on-demand; above {hours} busy hours a day the term is cheaper", "按 1 年期承诺：每月 {month}，比按需低 {pct}%；每天忙碌超过 {hours} 小时时承诺价更便宜"),
    ("reason.ttft", "first token after {ttft} s, above the {max} s asked", "首个 token 需 {ttft} 秒，超过要求的 {max} 秒"),
    ("reason.rps", "no count of copies up to 256 carries the request rate with this plan", "此方案即使 256 个副本也承载不了该请求速率"),
    ("notice.measured.gpu", "{key} is your measurement of serving on one GPU type: pin it with gpu= (ignored until then)", "{key} 是你在某一种 GPU 上部署推理的实测值：请用 gpu= 指定该 GPU（在此之前忽略）"),
    ("notice.measured", "{key}={value} on {gpu} against the estimate's {estimate} ({unit}): that GPU type's speeds and bills are rescaled by ×{factor}", "{gpu} 上 {key}={value}，估算为 {estimate}（{unit}）：该 GPU 型号的速度与账单按 ×{factor} 重新缩放"),
    ("notice.measured.far", "{key}={value} on {gpu} is ×{factor} the estimate's {estimate} ({unit}): outside 0.1–10, so it is ignored (a total for all users given as per user?)", "{gpu} 上 {key}={value} 是估算值 {estimate}（{unit}）的 ×{factor}：超出 0.1–10，已忽略（是否把所有用户的合计当作了每用户的值？）"),
    ("notice.measured.none", "{key}: nothing on {gpu} fits this job to compare the measurement with, so it is ignored", "{key}：{gpu} 上没有能装下此任务的方案可与实测值比较，已忽略"),
    ("unit.tps_seq", "tokens/s per user", "每用户 token/s"),
    ("unit.ttft", "s to first token", "秒首 token"),
    ("notice.commit.dearer", "the pick is on-demand: the cheapest offer on a {term} term that meets everything, {offer}, costs {ratio}× as much per unit of work", "推荐方案按需计费：满足全部条件的 {term} 期限报价中最便宜的 {offer}，单位工作量成本是其 {ratio} 倍"),
    ("notice.commit.unfit", "offers here publish a {term} price, but none of them meets this job; the pick is on-demand", "这里有报价公布 {term} 期限价格，但都不满足本任务；推荐方案按需计费"),
    ("notice.region.none", "the pick is outside the China region: no China-region (CNY-priced) offer meets this job; the largest there is {offer} ({gpus} × {gpu}, {gb} GB of GPU memory)", "推荐方案不在中国区：没有中国区（人民币计价）报价满足本任务；中国区最大的报价是 {offer}（{gpus} × {gpu}，共 {gb} GB 显存）"),
    ("notice.region.dearer", "the pick is outside the China region: the cheapest China-region (CNY-priced) offer that meets this job, {offer}, costs {ratio}× as much per unit of work", "推荐方案不在中国区：满足本任务的中国区（人民币计价）报价中最便宜的 {offer}，单位工作量成本是其 {ratio} 倍"),
    ("notice.commit.ranked", "the pick is on-demand: the cheapest offer on a {term} term that meets everything, {offer}, costs {ratio}× as much per unit of work but ranks after the pick (see its reasons: an old price, a thin memory margin or unverified support)", "推荐方案按需计费：满足全部条件的 {term} 期限报价中最便宜的 {offer}，单位工作量成本是其 {ratio} 倍，但排在推荐方案之后（见其原因：价格过旧、显存余量偏小或支持未经验证）"),
    ("notice.region.ranked", "the pick is outside the China region: the cheapest China-region (CNY-priced) offer that meets this job, {offer}, costs {ratio}× as much per unit of work but ranks after the pick (see its reasons: an old price, a thin memory margin or unverified support)", "推荐方案不在中国区：满足本任务的中国区（人民币计价）报价中最便宜的 {offer}，单位工作量成本是其 {ratio} 倍，但排在推荐方案之后（见其原因：价格过旧、显存余量偏小或支持未经验证）"),
    ("notice.commit", "no offer here publishes a {term} price; every price is on-demand", "这里没有报价公布 {term} 期限价格；所有价格按需计"),
    ("notice.days", "no offer finishes within {days} days", "没有报价能在 {days} 天内完成"),
    ("notice.days.fastest", "no offer finishes within {days} days; the fastest that fits takes {took} days", "没有报价能在 {days} 天内完成；能装下的最快方案需 {took} 天"),
    ("reason.stale", "price dated {date}: possibly out of date", "价格日期为 {date}，可能已过时"),
    ("reason.fragile_memory", "fragile: {spare} GiB ({pct}%) to spare per GPU, under the tenth a sturdy plan keeps", "余量偏小：每块 GPU 只剩 {spare} GiB（{pct}%），低于稳妥方案保留的十分之一"),
    ("reason.fragile_pcie", "fragile: tensor parallel {tp} over PCIe on cards without peer-to-peer (every all-reduce goes through host memory)", "不够稳妥：在不支持点对点的显卡上经 PCIe 做 {tp} 路张量并行（每次 all-reduce 都经过主机内存）"),
    ("reason.foreign", "priced in CNY by a China-region platform: ranked after offers priced in dollars (cur=cny or lang=zh ranks it on price alone)", "由中国区平台以人民币计价：以美元显示时排在美元报价之后（cur=cny 或 lang=zh 时只按价格排序）"),
    ("reason.versus_run", "{price}× the cost of {other} for the same run length (the jobmin you gave, on every GPU)", "在相同的运行时长下（你给出的 jobmin，对所有 GPU 相同），成本是 {other} 的 {price} 倍"),
    ("reason.versus", "{speed}× the speed of {other} at {price}× the cost per unit of work", "速度是 {other} 的 {speed} 倍，单位工作量成本是其 {price} 倍"),
    // Recommendation labels.
    ("why.cheapest", "Cheapest that fits", "能装下的最便宜选项"),
    ("why.fastest", "Fastest", "最快"),
    ("why.single-gpu", "Single-GPU option", "单卡方案"),
    ("g.size.formats", "One {gpu} holds a copy in a smaller weight format, with the sequences it then runs at once: {formats}.", "换用更小的权重格式，一块 {gpu} 即可放下一份模型（括号内为此时可同时运行的序列数）：{formats}。"),
    ("why.fragile", "Cheaper, on a fragile margin", "更便宜但余量不稳"),
    ("why.on-demand", "On-demand option", "按需实例方案"),
    ("why.committed", "Committed term", "承诺期限方案"),
    ("ui.whatif", "One change that would do better", "改动一项即可更好"),
    ("ui.image", "image", "张图"),
    ("ui.clip", "clip", "段视频"),
    // Guidance: the four questions.
    ("g.memory.title", "How much GPU memory does this job need?", "这个任务需要多少显存？"),
    ("g.memory.body", "About {total} GiB in all: {weights} GiB of weights, {kv} GiB of KV cache for {batch} concurrent sequences of {ctx} tokens, {act} GiB of activations and {overhead} GiB of runtime overhead.", "总计约 {total} GiB：权重 {weights} GiB，{batch} 个并发序列、每个 {ctx} 个 token 的 KV 缓存 {kv} GiB，激活 {act} GiB，运行时开销 {overhead} GiB。"),
    ("g.memory.body.one", "About {total} GiB in all: {weights} GiB of weights, {kv} GiB of KV cache for one sequence of {ctx} tokens, {act} GiB of activations and {overhead} GiB of runtime overhead.", "总计约 {total} GiB：权重 {weights} GiB，1 个序列、{ctx} 个 token 的 KV 缓存 {kv} GiB，激活 {act} GiB，运行时开销 {overhead} GiB。"),
    ("g.prefix", "Prefix caching: the {prefix}-token shared prefix's KV ({kv} GiB) is held once per copy, saving {saved} GiB at {batch} sequences; each request prefills {new} new tokens: first token in {ttft} s instead of {ttft0} s", "前缀缓存：共享的 {prefix} 个 token 前缀的 KV（{kv} GiB）每个副本只存一份，在 {batch} 个序列时节省 {saved} GiB；每个请求只预填充 {new} 个新 token：首 token 用时 {ttft} 秒，而非 {ttft0} 秒"),
    ("g.memory.kv_large", "The KV cache is {share}% of the total: size the GPU for the context and concurrency, not for the weights alone; fewer concurrent sequences or a shorter context would shrink it.", "KV 缓存占总量的 {share}%：选卡要看上下文长度和并发数，而不只是权重大小；减少并发序列或缩短上下文可以减小它。"),
    ("g.api.title", "Rent a GPU or call an API?", "租 GPU 还是调用 API？"),
    ("g.api.line", "API: {api} a month at this load on {host}; renting is cheaper above {breakeven} requests/s (listed {date}: {source}).", "API：此负载下在 {host} 上每月约 {api}；每秒请求高于 {breakeven} 个时租 GPU 更便宜（{date} 的价格：{source}）。"),
    ("g.api.line_job", "API: {api} for the same work on {host} (listed {date}: {source}).", "API：同样的工作量在 {host} 上约需 {api}（{date} 的价格：{source}）。"),
    ("g.api.rent", "At this load ({rps} requests/s while busy) the cheapest listed API for {model}, {host} at {input}/{output} per million input/output tokens (listed {date}), would cost {api} a month; the pick costs {pick}. Renting is cheaper above {breakeven} requests/s.", "在此负载下（忙时每秒 {rps} 个请求），{model} 最便宜的已列出 API——{host}，每百万输入/输出 token {input}/{output}（{date} 的价格）——每月约 {api}；所选方案每月 {pick}。每秒请求高于 {breakeven} 个时租 GPU 更便宜。"),
    ("g.api.call", "At this load ({rps} requests/s while busy) the cheapest listed API for {model}, {host} at {input}/{output} per million input/output tokens (listed {date}), would cost {api} a month, less than the pick's {pick}: call the API below {breakeven} requests/s (ask again with that rps: more load may need more copies).", "在此负载下（忙时每秒 {rps} 个请求），{model} 最便宜的已列出 API——{host}，每百万输入/输出 token {input}/{output}（{date} 的价格）——每月约 {api}，低于所选方案的 {pick}：每秒请求低于 {breakeven} 个时调用 API（可用该 rps 再问一次：负载更高可能需要更多副本）。"),
    ("g.api.job", "The same work on the cheapest listed API for {model}, {host} at {input}/{output} per million input/output tokens (listed {date}), would cost {api}, against the pick's {pick}.", "同样的工作量在 {model} 最便宜的已列出 API——{host}，每百万输入/输出 token {input}/{output}（{date} 的价格）——上约需 {api}，所选方案为 {pick}。"),
    ("g.spot.title", "Spot or on-demand?", "竞价实例还是按需实例？"),
    ("g.spot.endpoint", "This is a user-facing endpoint: an interruption drops live requests, so the prices here are on-demand. Spot suits batch jobs that can restart.", "这是面向用户的在线服务：被回收会中断正在处理的请求，所以这里按按需价格计算。竞价实例适合可以重跑的批处理任务。"),
    ("g.spot.endpoint.commit", "This is a user-facing endpoint: an interruption drops live requests, so spot prices are not used; offers that publish a {term} term are priced on it, the others on-demand. Spot suits batch jobs that can restart.", "这是面向用户的在线服务：被回收会中断正在处理的请求，所以不使用竞价价格；公布了 {term} 承诺期价格的方案按该价格计算，其余按按需价格。竞价实例适合可以重跑的批处理任务。"),
    ("g.spot.batch_on", "This workload can restart after an interruption, so spot prices are used where offered, with {restart}% extra time for lost work.", "这个任务被中断后可以重跑，因此在有竞价价格的地方按竞价计算，并为损失的工作额外计入 {restart}% 的时间。"),
    ("g.spot.batch_off", "This workload could restart after an interruption: allowing spot (spot=1) would cut the bill where providers offer it.", "这个任务被中断后可以重跑：允许竞价实例（spot=1）可在提供竞价的云上降低费用。"),
    ("g.size.title", "Do I need an 80 GB datacenter GPU, or is a 24–48 GB card enough?", "需要 80 GB 数据中心 GPU，还是 24–48 GB 的卡就够？"),
    ("g.size.small", "A 24 GB card holds it: one copy on one GPU needs {need} GiB. Pay for an 80 GB HBM card for its bandwidth, not its capacity: each user's tokens come about as fast as the weights stream from memory.", "24 GB 的卡就能装下：单块 GPU 上一个副本需要 {need} GiB。80 GB 的 HBM 卡值得买的是带宽而不是容量：每个用户的 token 速度大致取决于权重从显存读出的速度。"),
    ("g.size.medium", "A 48 GB card (L40S, RTX 6000 Ada, A6000) holds it: one copy on one GPU needs {need} GiB; 24 GB cards do not. HBM cards still decode faster per user.", "48 GB 的卡（L40S、RTX 6000 Ada、A6000）可以装下：单块 GPU 上一个副本需要 {need} GiB；24 GB 的卡装不下。HBM 卡对每个用户的解码仍然更快。"),
    ("g.size.large", "Yes: one copy on one GPU needs {need} GiB, more than a 48 GB card holds on its own. An 80 GB card (H100, A100 80GB) holds up to about {cap80} GiB; above that a larger card (H200, B200, MI300X) or the model split over several GPUs.", "需要：单块 GPU 上一个副本需要 {need} GiB，单张 48 GB 的卡装不下。80 GB 的卡（H100、A100 80GB）最多约装 {cap80} GiB；超过则需要更大的卡（H200、B200、MI300X）或把模型拆到多块 GPU 上。"),
    ("g.slow.title", "Why is token generation slow although the GPU is not busy?", "为什么 GPU 并不忙，生成 token 却很慢？"),
    ("g.slow.memory", "Each generated token reads {bytes} GiB of weights and KV cache from memory, so on {gpu} one sequence gets about {tps} tokens/s while the compute units mostly wait: decoding is bandwidth bound. Batching more requests serves more users from the same pass over the weights.", "每生成一个 token 都要从显存读取 {bytes} GiB 的权重和 KV 缓存，所以在 {gpu} 上单个序列约 {tps} token/s，计算单元大多在等待：解码受显存带宽限制。批量处理更多请求可以让同一次权重读取服务更多用户。"),
    ("g.slow.memory.tp", "Each generated token reads {total} GiB of weights and KV cache, {bytes} GiB from each of the {tp} GPUs that {how} and read at once, so on {gpu} one sequence gets about {tps} tokens/s while the compute units mostly wait: decoding is bandwidth bound. Batching more requests serves more users from the same pass over the weights.", "每生成一个 token 共要读取 {total} GiB 的权重和 KV 缓存，由{how}的 {tp} 块 GPU 同时读取，每块 {bytes} GiB，所以在 {gpu} 上单个序列约 {tps} token/s，计算单元大多在等待：解码受显存带宽限制。批量处理更多请求可以让同一次权重读取服务更多用户。"),
    ("g.slow.memory.pp", "Each generated token reads {total} GiB of weights and KV cache: {pp} pipeline stages one after another, each split over {tp} GPUs that read {bytes} GiB apiece at once, so on {gpu} one sequence gets about {tps} tokens/s while the compute units mostly wait: decoding is bandwidth bound. Batching more requests serves more users from the same pass over the weights.", "每生成一个 token 共要读取 {total} GiB 的权重和 KV 缓存：{pp} 个流水线阶段依次进行，每个阶段由 {tp} 块 GPU 同时读取，每块 {bytes} GiB，所以在 {gpu} 上单个序列约 {tps} token/s，计算单元大多在等待：解码受显存带宽限制。批量处理更多请求可以让同一次权重读取服务更多用户。"),
    ("g.slow.issue", "Each generated token reads {bytes} GiB of weights and KV cache, but on {gpu} llama.cpp's single-token kernel for this format takes longer to issue its integer instructions (unpacking the quantized weights, dot products, scales) than to read them, so one sequence gets about {tps} tokens/s: the card's instruction rate sets the pace, not its memory. Q4_0 or Q4_1, whose unpacking is simpler, or a newer card would be faster.", "每生成一个 token 要读取 {bytes} GiB 权重和 KV 缓存，但在 {gpu} 上，llama.cpp 针对此格式的单 token 内核发出整数指令（解包量化权重、点积、缩放）所需的时间比读取它们更长，因此单个序列约为每秒 {tps} 个 token：速度由显卡的指令吞吐决定，而不是显存带宽。解包更简单的 Q4_0 或 Q4_1，或更新的显卡，会更快。"),
    ("g.slow.memory.copies", "Each generated token moves {bytes} GiB through memory: the weights, the KV cache, and the copies transformers makes of the cache every step (torch.cat to grow it, repeat_kv to widen grouped KV heads), so on {gpu} one sequence gets about {tps} tokens/s while the compute units mostly wait: decoding is bandwidth bound. An engine with a preallocated paged cache (vLLM, SGLang, TensorRT-LLM) reads the cache once and makes no copies.", "每生成一个 token 要在显存中搬运 {bytes} GiB：权重、KV 缓存，以及 transformers 每步对缓存做的复制（用 torch.cat 增长缓存、用 repeat_kv 展开分组的 KV 头），所以在 {gpu} 上单个序列约 {tps} token/s，计算单元大多在等待：解码受显存带宽限制。使用预分配分页缓存的引擎（vLLM、SGLang、TensorRT-LLM）只读一次缓存，也不做复制。"),
    ("g.slow.host", "On {gpu} the GPU finishes each token's work sooner than the host can launch it: transformers runs the model eagerly, so Python and one kernel launch per operation cost about {host} ms per token across {layers} layers, whatever the batch. One sequence gets about {tps} tokens/s and more sequences barely slow each one down. An engine that replays CUDA graphs (vLLM, SGLang, TensorRT-LLM) or torch.compile with a static cache removes most of that overhead.", "在 {gpu} 上，GPU 完成每个 token 的计算比主机发射这些计算更快：transformers 以 eager 模式运行模型，Python 和每个算子一次的内核发射在 {layers} 层上每个 token 约花费 {host} ms，与批量大小无关。单个序列约 {tps} token/s，增加序列几乎不会拖慢每个序列。使用回放 CUDA Graph 的引擎（vLLM、SGLang、TensorRT-LLM），或 torch.compile 配合静态缓存，可以去掉大部分这类开销。"),
    ("g.slow.compute", "At {batch} concurrent sequences the matrix multiplies on {gpu} are compute bound: more batching will not raise total throughput much; a GPU with more tensor throughput or FP8 would.", "在 {batch} 个并发序列时，{gpu} 上的矩阵乘法已受算力限制：继续增加批量不会明显提高总吞吐；换算力更强或支持 FP8 的 GPU 才会。"),
    // Rule-triggered notes.
    ("g.note.single_gpu", "The model fits on one GPU, but every offer that passes the filters is a multi-GPU box: one fast GPU elsewhere would be simpler and cheaper than extra GPUs that sit idle or only add replicas.", "模型单卡即可装下，但符合筛选条件的方案都是多卡机器：换一块快卡会更简单、更便宜，多出来的卡只能闲置或充当副本。"),
    ("g.note.idle_copies", "Your load keeps {busy} of the {copies} copies on the pick's instances busy; the idle ones ({idle}) are paid for too: its cost per million tokens is the whole bill over the tokens your load produces, so more load fits on it at no extra cost.", "你给出的负载只让所选实例上 {copies} 个副本中的 {busy} 个忙碌；其余 {idle} 个闲置但照样计费：它的每百万 token 成本是整份账单除以你的负载实际产生的 token，因此再加负载也不多花钱。"),
    ("g.note.single_gpu.close", "The model fits on one GPU: the single-GPU alternative costs about the same per unit of work and is simpler to run (no tensor parallelism, no idle GPUs, one instance to watch).", "模型单卡即可装下：单卡备选方案的单位工作成本与所选方案相当，而且更易运行（无需张量并行，没有闲置的卡，只需照看一个实例）。"),
    ("g.note.nvlink", "This layout runs tensor parallelism over {gpus} GPUs joined by PCIe: every layer's all-reduces cross it. An instance with NVLink/NVSwitch between its GPUs would be faster.", "这个布局在 {gpus} 块通过 PCIe 相连的 GPU 上做张量并行：每层的 all-reduce 都要经过 PCIe。GPU 之间有 NVLink/NVSwitch 的实例会更快。"),
    ("g.note.billing", "This usage is bursty: the pick bills {billed} minutes for each {minutes} minutes of work. Per-second or per-minute billing pays only for what runs.", "这种用法是间歇性的：所选方案每 {minutes} 分钟的工作要计费 {billed} 分钟。按秒或按分钟计费只为实际运行付费。"),
    ("g.note.storage", "Storage and egress are {share}% of this bill: keep fewer copies of weights and checkpoints, or pick a provider with cheaper storage or free egress.", "存储和出网流量占这笔账单的 {share}%：少存几份权重和检查点，或选择存储更便宜、出网免费的云。"),
    ("g.note.stale_cheaper.run", "{offer} would cost {ratio}× the pick for the same run length (the jobmin you gave, so a slower card may need longer), but its price is dated {date}, more than six months ago: it is named, not picked, while an offer with a current price does the job. If the provider's page still shows that price, check it against the pick's speed.", "在相同的运行时长下（你给出的 jobmin，较慢的卡可能需要更久），{offer} 的成本是所选方案的 {ratio} 倍，但其价格日期为 {date}，已超过六个月：只列出、不选中，因为有价格较新的方案能完成任务。若服务商页面上仍是这个价格，请结合所选方案的速度比较。"),
    ("g.note.stale_cheaper", "{offer} would cost {ratio}× the pick per unit of work, but its price is dated {date}, more than six months ago: it is named, not picked, while an offer with a current price does the job. If the provider's page still shows that price, it does this job for less.", "{offer} 的单位工作量成本是所选方案的 {ratio} 倍，但其价格日期为 {date}，已超过六个月：只列出、不选中，因为有价格较新的方案能完成任务。若服务商页面上仍是这个价格，用它完成这项任务更省钱。"),
    ("g.note.prices", "Prices are a snapshot dated {date}, not live. Check the provider's page before you rent, or enter your own price.", "价格是 {date} 的快照，并非实时价格。租用前请核对云厂商页面，或填入你自己的价格。"),
    ("g.note.inferred", "The architecture was inferred from the parameter count alone, so KV cache and speed are rough; give layers, hidden size and heads for a better estimate.", "架构仅根据参数量推断，KV 缓存和速度只是粗略估计；提供层数、隐藏维度和注意力头数可得到更准确的结果。"),
    ("g.note.overbudget", "Offers hold this job, but none within the budget of {budget} a month: the cheapest that holds it, {offer}, bills {month} a month. Raise maxusd, or make the job smaller (a 4-bit format, fewer concurrent sequences, fewer hours).", "有报价能装下这个任务，但都超出每月 {budget} 的预算：能装下的最便宜方案 {offer} 每月 {month}。可提高 maxusd，或缩小任务（4 位格式、更少并发、更少时长）。"),
    ("g.note.nomeet", "Offers hold this job, but none meets what was asked ({keys}): relax one of them, or compare in the offers table which comes closest.", "有报价能装下这个任务，但都达不到所设的要求（{keys}）：请放宽其中一项，或在报价表中比较哪个最接近。"),
    ("g.note.nofit", "No offer in the catalog holds this job as configured. Try a smaller weight format ({fmt}), a shorter context, fewer concurrent sequences, or more GPUs.", "目录中没有能按当前配置装下这个任务的方案。可尝试更小的权重格式（{fmt}）、更短的上下文、更少的并发或更多 GPU。"),
    ("g.note.images", "Each request's {images} image{images:s} at {res} become {tokens} image tokens ({share}% of what the model attends to) and cost about {prep} s of decoding and resizing before the vision encoder runs and the first token comes. That time does not batch across requests, so with images the request rate, not the GPU, often sets the limit; sending images at the size the model needs (for example Qwen2.5-VL's max_pixels) cuts both.", "每个请求的 {images} 张 {res} 图像会变成 {tokens} 个图像 token（占模型注意力范围的 {share}%），并在视觉编码器运行、首个 token 出现之前多花约 {prep} 秒用于解码和缩放图像。这段时间不能在请求之间合批，因此带图时限制往往是请求速率而不是 GPU；按模型所需的尺寸发送图像（例如 Qwen2.5-VL 的 max_pixels）可以同时减少两者。"),
    ("g.size.between", "No 80 GB card is needed: the pick's {gpu} holds it, {need} GiB of its {cap} GiB usable; 48 GB cards do not. (An 80 GB card holds up to about {cap80} GiB.)", "不需要 80 GB 的卡：所选的 {gpu} 就能装下，{need} GiB，可用 {cap} GiB；48 GB 的卡装不下。（80 GB 的卡最多约装 {cap80} GiB。）"),
    ("g.split.how.tp", "tensor or pipeline parallelism", "张量或流水线并行"),
    ("g.split.how.dp", "data-parallel attention, the experts spread over all of them", "数据并行注意力，专家分布在所有 GPU 上"),
    ("g.slow.how.tp", "split every layer", "切分每一层"),
    ("g.slow.how.dp", "hold their own sequences' attention and share the experts", "各自保存本组序列的注意力并共同承载专家"),
    ("g.size.medium.split", "A 48 GB card (L40S, RTX 6000 Ada, A6000) holds one copy on one GPU: {need} GiB. The pick splits the copy over {gpus} × {gpu} instead ({how}).", "48 GB 的卡（L40S、RTX 6000 Ada、A6000）单卡就能装下一个副本：{need} GiB。所选方案改为把这个副本拆到 {gpus} × {gpu} 上（{how}）。"),
    ("g.size.large.split", "Not for this pick: one copy on one GPU needs {need} GiB, more than a 48 GB card holds, so a single card for it would be an 80 GB one (up to about {cap80} GiB). The pick splits the copy over {gpus} × {gpu} instead ({how}).", "这个方案不需要：单块 GPU 上一个副本需要 {need} GiB，超过 48 GB 卡的容量，单卡方案得用 80 GB 的卡（最多约装 {cap80} GiB）。所选方案改为把这个副本拆到 {gpus} × {gpu} 上（{how}）。"),
    ("g.size.larger.split", "Not for this pick: one copy on one GPU needs {need} GiB, more than an 80 GB card holds (about {cap80} GiB), so a single card for it would be a larger one (H200, B200, MI300X). The pick splits the copy over {gpus} × {gpu} instead ({how}).", "这个方案不需要：单块 GPU 上一个副本需要 {need} GiB，超过 80 GB 卡的容量（约 {cap80} GiB），单卡方案得用更大的卡（H200、B200、MI300X）。所选方案改为把这个副本拆到 {gpus} × {gpu} 上（{how}）。"),
    ("g.size.huge.split", "No GPU offered here holds one copy alone: it needs {need} GiB, so the question is how many GPUs, not which card. The pick splits the copy over {gpus} × {gpu} ({how}).", "这里没有哪块 GPU 能单独装下一个副本：它需要 {need} GiB，所以要问的是需要几块 GPU，而不是哪种卡。所选方案把这个副本拆到 {gpus} × {gpu} 上（{how}）。"),
    ("g.size.small.compute", "A 24 GB card holds it: {need} GiB. This job is compute bound, so a datacenter card buys tensor throughput, not room.", "24 GB 的卡就能装下：{need} GiB。这个任务受算力限制，数据中心卡买到的是张量算力，而不是容量。"),
    ("g.size.medium.compute", "A 48 GB card holds it: {need} GiB; 24 GB cards do not. A faster card shortens the job; it does not make it fit better.", "48 GB 的卡可以装下：{need} GiB；24 GB 的卡装不下。更快的卡缩短任务时间，但不影响能否装下。"),
    ("g.size.small.offload", "A 24 GB card holds it: {need} GiB, with the offloaded states in CPU memory. The host link sets this job's pace, so a bigger or faster card buys little unless it lets you offload less.", "24 GB 的卡就能装下：{need} GiB（卸载的状态放在 CPU 内存中）。这个任务的速度由主机链路决定，所以更大或更快的卡帮助不大，除非它能让你少卸载一些。"),
    ("g.size.medium.offload", "A 48 GB card holds it: {need} GiB, with the offloaded states in CPU memory; 24 GB cards do not. The host link sets this job's pace, so a faster card buys little unless it lets you offload less.", "48 GB 的卡可以装下：{need} GiB（卸载的状态放在 CPU 内存中）；24 GB 的卡装不下。这个任务的速度由主机链路决定，所以更快的卡帮助不大，除非它能让你少卸载一些。"),
    ("g.size.small.host", "A 24 GB card holds it: {need} GiB. At this batch the job waits on the CPU launching GPU kernels, not on the GPU, so a bigger or faster card buys little.", "24 GB 的卡就能装下：{need} GiB。在这个批大小下，任务等待的是 CPU 发起 GPU 内核，而不是 GPU 本身，所以更大或更快的卡帮助不大。"),
    ("g.size.medium.host", "A 48 GB card holds it: {need} GiB; 24 GB cards do not. At this batch the job waits on the CPU launching GPU kernels, so a faster card buys little.", "48 GB 的卡可以装下：{need} GiB；24 GB 的卡装不下。在这个批大小下，任务等待的是 CPU 发起 GPU 内核，所以更快的卡帮助不大。"),
    ("g.spot.refused", "Spot was allowed, but a synchronous run over several instances or longer than a week is not put on spot: one preemption stalls every GPU. Reserved or committed capacity suits it better than the lowest spot price.", "虽然允许竞价实例，但跨多个实例或超过一周的同步训练不放在竞价实例上：一次回收会让所有 GPU 停下。预留或承诺容量比最低竞价更合适。"),
    ("g.spot.unoffered", "Spot was allowed, but the pick has no spot price; offers with one are ranked beside it at their spot price.", "虽然允许竞价实例，但所选方案没有竞价价格；有竞价价格的方案按竞价排在一起比较。"),
    ("g.whatif", "Setting {key}={value} would give {after} instead of {before} ({objective}).", "把 {key} 设为 {value} 可得到 {after}，而当前为 {before}（{objective}）。"),
    ("q.fp8", "FP8 weights keep about 99% of 16-bit accuracy on standard benchmarks (Kurtic et al. 2024, arXiv 2411.02355).", "FP8 权重在标准评测上保留约 99% 的 16 位精度（Kurtic 等，2024，arXiv 2411.02355）。"),
    ("q.int4", "4-bit weights keep about 97–99% of 16-bit accuracy on standard benchmarks (Kurtic et al. 2024); check your own evaluations.", "4 位权重在标准评测上保留约 97–99% 的 16 位精度（Kurtic 等，2024）；请用自己的评测核对。"),
    ("q.media", "The accuracy figures published for lower-precision weights are language models' benchmark scores; none here measures what it does to this model's output: compare a few samples before you switch.", "已发表的低精度权重精度数据都是语言模型的评测分数；这里没有数据衡量它对该模型输出的影响：切换前请比较几份样本。"),
    ("q.gguf4", "Q4_K_M raises perplexity by a few percent over 16 bits (llama.cpp's quantize tables); check your own evaluations.", "Q4_K_M 的困惑度比 16 位高几个百分点（llama.cpp 量化表）；请用自己的评测核对。"),
    ("obj.usd_per_million_output_tokens", "$ per million output tokens", "每百万输出 token 的美元成本"),
    ("obj.usd_per_1000_images", "$ per 1,000 images", "每千张图片的美元成本"),
    ("obj.usd_per_clip", "$ per clip", "每段视频的美元成本"),
    ("obj.usd_per_audio_hour", "$ per hour of audio", "每小时音频的美元成本"),
    ("obj.usd_per_job", "$ per job", "每个任务的美元成本"),
    ("obj.usd_per_month", "$ per month", "每月美元成本"),
    ("obj.cny_per_million_output_tokens", "¥ per million output tokens", "每百万输出 token 的人民币成本"),
    ("obj.cny_per_1000_images", "¥ per 1,000 images", "每千张图片的人民币成本"),
    ("obj.cny_per_clip", "¥ per clip", "每段视频的人民币成本"),
    ("obj.cny_per_audio_hour", "¥ per hour of audio", "每小时音频的人民币成本"),
    ("obj.cny_per_job", "¥ per job", "每个任务的人民币成本"),
    ("obj.cny_per_month", "¥ per month", "每月人民币成本"),
    ("obj.decode_tokens_per_s_per_seq", "tokens/s per user", "每用户 token/s"),
    ("obj.seconds_per_image", "seconds per image", "每张图片秒数"),
    ("obj.seconds_per_clip", "seconds per clip", "每段视频秒数"),
    ("obj.audio_realtime_factor", "seconds of audio per second", "每秒生成的音频秒数"),
    ("obj.items_per_hour", "items per hour", "每小时产出数"),
    ("obj.request_latency_s", "seconds per request", "每个请求秒数"),
    ("obj.job_hours", "hours per job", "每个任务小时数"),
    ("g.bound.title", "What limits this job's speed?", "这个任务的速度受什么限制？"),
    ("g.train.network", "Training waits on the network: exchanging gradients (and sharded parameters) between the GPUs takes longer than the compute it overlaps, so the {gpu} reaches only {pct}% of its compute rate. More micro-batches per optimizer step (a larger gbs), fewer instances or a faster interconnect help; more GPUs help less than they cost.", "训练在等网络：GPU 之间交换梯度（及分片参数）的时间超过了可与之重叠的计算，{gpu} 只达到其计算速率的 {pct}%。每个优化步累积更多微批次（更大的 gbs）、减少实例数或更快的互联会有帮助；再加 GPU 的收益低于成本。"),
    ("g.train.network.sharded", "Training waits on the network: with ZeRO-{zero} sharding every micro-batch {what} between the GPUs, which takes longer than the compute it overlaps, so the {gpu} reaches only {pct}% of its compute rate. A larger micro-batch (mb), {lower}fewer instances or a faster interconnect help; more GPUs help less than they cost.", "训练在等网络：ZeRO-{zero} 分片下每个微批次都要在 GPU 之间{what}，耗时超过可与之重叠的计算，{gpu} 只达到其计算速率的 {pct}%。更大的微批次（mb）、{lower}减少实例数或更快的互联会有帮助；再加 GPU 的收益低于成本。"),
    ("g.train.shard.gather", "gathers the parameters and reduce-scatters the gradients", "收集参数并归约分散梯度"),
    ("g.train.shard.scatter", "reduce-scatters the gradients", "归约分散梯度"),
    ("g.train.shard.lower", "a lower ZeRO stage, ", "更低的 ZeRO 阶段、"),
    ("g.train.bound.one", "Training is compute bound: the matrix multiplies run at about {mfu}% of the {gpu}'s peak tensor rate (what published runs reach on this class of GPU). A faster GPU or more GPUs shorten the run; more memory only lets it fit.", "训练受算力限制：矩阵乘法约达到 {gpu} 峰值张量算力的 {mfu}%（同类 GPU 上公开训练的水平）。更快或更多的 GPU 能缩短训练；更大的显存只决定能否装下。"),
    ("g.train.clock", "Training waits on {term} Without it the {gpu} would run this job about {x}× faster.", "训练在等{term}去掉这一项，{gpu} 跑这个任务约可快 {x} 倍。"),
    ("g.train.clock.host", "the host's kernel launches: eager PyTorch launches every kernel of every layer from Python, and short micro-batches leave the GPU waiting. A larger mb, or a compiled or fused stack (trainer=torchtitan, unsloth), helps.", "主机的 kernel 启动：eager PyTorch 从 Python 逐层逐个启动 kernel，微批次短时 GPU 在等待。更大的 mb，或编译/融合型训练栈（trainer=torchtitan、unsloth）有帮助。"),
    ("g.train.clock.experts", "the MoE layers' loop over their experts: Hugging Face runs each expert's small matmuls in turn, with a sync each. Grouped expert GEMMs (trainer=megatron, torchtitan) run them together.", "MoE 层对专家的逐个循环：Hugging Face 依次运行每个专家的小矩阵乘，每个都要同步。分组专家 GEMM（trainer=megatron、torchtitan）会一起算。"),
    ("g.train.clock.zero3", "DeepSpeed ZeRO-3's per-tensor collectives, each with a fixed cost. A larger mb, ZeRO-2 where memory allows, or FSDP's per-layer units (trainer=torchtune, torchtitan) need fewer.", "DeepSpeed ZeRO-3 的逐张量集合通信，每次都有固定开销。更大的 mb、显存允许时用 ZeRO-2，或 FSDP 的逐层单元（trainer=torchtune、torchtitan）次数更少。"),
    ("g.train.clock.cpu", "the optimizer step on the CPU: about 30 bytes of host memory per offloaded parameter after every backward. A larger gbs amortises it; the optimizer on the GPUs (more GPUs, ZeRO-3) removes it.", "CPU 上的优化器更新：每次反向之后，每个卸载参数约读写 30 字节主机内存。更大的 gbs 可摊薄；把优化器留在 GPU 上（更多 GPU、ZeRO-3）可去掉。"),
    ("g.train.clock.elementwise", "unfused elementwise ops (norms, rotary embedding, activations, LoRA's dropout and scaling), each a pass through memory. Fused kernels (trainer=unsloth, axolotl) or a compiled stack (trainer=torchtitan) cut it.", "未融合的逐元素操作（归一化、旋转位置编码、激活、LoRA 的 dropout 与缩放），每步都要过一遍显存。融合 kernel（trainer=unsloth、axolotl）或编译型训练栈（trainer=torchtitan）可减少。"),
    ("g.train.hostlink", "Training waits on the host link: moving the offloaded states and activations between CPU and GPU memory over PCIe takes longer than the compute it overlaps, so the {gpu} runs at only {pct}% of the rate it would reach without offload. Offload less where the memory allows, or share the states over more GPUs (ZeRO-3); a faster GPU helps little.", "训练在等主机链路：卸载的状态和激活经 PCIe 在 CPU 与 GPU 内存之间搬运，耗时超过与之重叠的计算，因此 {gpu} 只能达到不卸载时速率的 {pct}%。在显存允许时少卸载一些，或让更多 GPU 分担这些状态（ZeRO-3）；换更快的 GPU 帮助不大。"),
    ("g.train.bound", "Training is compute bound: the matrix multiplies run at about {mfu}% of the {gpu}'s peak tensor rate (what published runs reach on this class of GPU), plus the traffic between GPUs. A faster GPU or more GPUs shorten the run; more memory only lets it fit.", "训练受算力限制：矩阵乘法约达到 {gpu} 峰值张量算力的 {mfu}%（同类 GPU 上公开训练的水平），另加 GPU 间的通信。更快或更多的 GPU 能缩短训练；更大的显存只决定能否装下。"),
    ("g.size.sharded", "Not for every plan: the pick keeps {need} GiB on each GPU, but {offer} runs the job on {gpus} × {gpu} with {other} GiB on each (its own layout, in the offers table).", "并非所有方案都需要：所选方案每块 GPU 装 {need} GiB，而 {offer} 用 {gpus} 块 {gpu} 运行这个任务，每块 {other} GiB（它自己的布局，见方案表）。"),
    ("g.size.large.compute", "Yes: each GPU of this plan holds {need} GiB, more than a 48 GB card holds. An 80 GB card holds up to about {cap80} GiB; above that a larger card, or more GPUs sharing the job (ZeRO/FSDP, tensor or pipeline parallelism).", "需要：这个方案每块 GPU 要装 {need} GiB，超过 48 GB 卡的容量。80 GB 的卡最多约装 {cap80} GiB；超过则需要更大的卡，或由更多 GPU 分担（ZeRO/FSDP、张量或流水线并行）。"),
    ("g.spot.policy", "This run is synchronous over several instances or longer than a week: one preemption would stall every GPU, so it is not put on spot even if allowed. Reserved or committed capacity suits it better than the lowest spot price.", "这个训练跨多个实例同步或超过一周：一次回收会让所有 GPU 停下，因此即使允许也不放在竞价实例上。预留或承诺容量比最低竞价更合适。"),
    ("g.note.billing_assumed", "This usage is bursty, and the pick's provider does not publish its billing increment: the bill assumes whole hours ({billed} minutes for each {minutes} minutes of work). Check the provider's billing before you rely on it.", "这种用法是间歇性的，而所选服务商未公布计费粒度：账单按整小时假设（每 {minutes} 分钟的工作计 {billed} 分钟）。依赖它之前请核对服务商的计费方式。"),
    ("g.note.nooffer", "No offer in the catalog passes the filters (GPU: {gpu}; provider, region, budget as set): nothing here is rented that way, which says nothing about whether the job fits. The memory and speed per GPU above still hold; import your own offers on the page, or widen the filters.", "目录中没有通过筛选条件的报价（GPU：{gpu}；以及所设的服务商、地区、预算）：这只说明目录里没有这样出租的实例，不代表任务装不下。上面每种 GPU 的显存和速度估算仍然成立；可在页面上导入自己的报价，或放宽筛选。"),
    ("g.note.unsupported", "No offer runs this job as configured: {engine} does not run {format} on {arch} GPUs (support matrix), although the memory would fit. Choose a format it runs there ({fmt}), another engine, or another GPU.", "没有方案能按当前配置运行这个任务：{engine} 不支持在 {arch} 架构 GPU 上运行 {format}（支持矩阵），尽管显存放得下。请换一种它在该架构上支持的格式（{fmt}）、换引擎或换 GPU。"),
    ("g.note.unsupported.other", "No offer runs this job as configured: {engine} does not run {format} on {arch} GPUs (support matrix), although the memory would fit. Choose another engine or another GPU.", "没有方案能按当前配置运行这个任务：{engine} 不支持在 {arch} 架构 GPU 上运行 {format}（支持矩阵），尽管显存放得下。请换引擎或换 GPU。"),
    ("g.media.nofit", "No offer in the catalog holds this job as configured. Try a smaller weight format (w=fp8 or nf4), text encoders off the GPU (enc_offload=1), a smaller batch or resolution, or a GPU with more memory.", "目录中没有能按当前配置装下这个任务的方案。可尝试更小的权重格式（w=fp8 或 nf4）、把文本编码器移出 GPU（enc_offload=1）、更小的批量或分辨率，或显存更大的 GPU。"),
    ("g.serverless.pick", "{offer} is serverless: it bills {billed} hours a month, {cold_h} of them for {starts} × a start from zero of {cold} s (the platform's start plus loading the model and starting the engine), and nothing while idle. Per-second billing of the bursts beats the instances' rates and billing increments here; for traffic that never stops, an instance usually costs less per hour.", "{offer} 是无服务器（serverless）平台：每月计费 {billed} 小时，其中 {cold_h} 小时是 {starts} 次从零启动，每次 {cold} 秒（平台启动加上加载模型和启动引擎），空闲时不计费。在这里，按秒为突发计费胜过了实例的价格和计费粒度；对于从不间断的流量，实例通常每小时更便宜。"),
    ("g.serverless.always", "Serverless platforms scale to zero between bursts, but an always-on endpoint never idles: a serverless worker bills all 730 hours a month at its per-second rate, which is mostly above an instance's hourly price. Here the cheapest, {offer}, would bill {ratio}× the pick's month. Serverless wins for bursty use (use=hours or use=jobs).", "无服务器平台在突发之间缩容到零，但常开的服务从不空闲：无服务器 worker 每月按秒费率计满 730 小时，这一费率大多高于实例的小时价。这里最便宜的 {offer} 每月账单是所选方案的 {ratio} 倍。无服务器适合间歇性使用（use=hours 或 use=jobs）。"),
    ("g.serverless.lost", "The cheapest serverless offer, {offer}, would bill {billed} hours a month here ({starts} × a cold start of {cold} s on top of the work), {ratio}× the pick's month. Serverless wins when the instances round short bursts up (per-hour or per-minute billing) or would sit idle between them, and its per-second rate is not far above theirs.", "最便宜的无服务器方案 {offer} 在这里每月计费 {billed} 小时（在工作之外还有 {starts} 次冷启动，每次 {cold} 秒），账单是所选方案的 {ratio} 倍。当实例把短时突发向上取整（按小时或按分钟计费）或在突发之间空闲、而其按秒费率又不比实例高太多时，无服务器才胜出。"),
    ("g.serverless.lost.unit", "The cheapest serverless offer per unit of work, {offer}, would bill {billed} hours a month here ({starts} × a cold start of {cold} s on top of the work), at {ratio}× the pick's cost per unit. Serverless wins when the instances round short bursts up (per-hour or per-minute billing) or would sit idle between them, and its per-second rate is not far above theirs.", "按单位工作量最便宜的无服务器方案 {offer} 在这里每月计费 {billed} 小时（在工作之外还有 {starts} 次冷启动，每次 {cold} 秒），单位成本是所选方案的 {ratio} 倍。当实例把短时突发向上取整（按小时或按分钟计费）或在突发之间空闲、而其按秒费率又不比实例高太多时，无服务器才胜出。"),
    ("g.train.nofit", "No offer in the catalog holds this job as configured. Each of these changes shrinks the memory every GPU holds; try them one at a time: {tries}.", "目录中没有方案能按当前配置容纳此作业。以下每项改动都会减少每块 GPU 所需的显存，可逐一尝试：{tries}。"),
    ("g.serverless.pick.always.dearer", "{offer} is serverless, billed by the second: kept on all the time it bills all {billed} hours a month, {ratio}× what {other}, an instance that holds this job, would bill for the month; that one was passed over for what its reasons say (an old price, another market, a thin margin), so check it before you pay the serverless rate around the clock. Keep at least one worker warm, so that no request waits for a start from zero ({cold} s: the platform's start plus loading the model and starting the engine).", "{offer} 是无服务器（serverless）平台，按秒计费：全天候运行时每月计满 {billed} 小时，是能运行此任务的实例 {other} 月费的 {ratio} 倍；后者因其理由中所述原因（价格过旧、其他市场、余量过小）未被选中，全天候按无服务器费率付费之前请先核实它。请至少保持一个常驻 worker，以免请求等待从零启动（{cold} 秒：平台启动加上加载模型和启动引擎）。"),
    ("g.serverless.pick.always", "{offer} is serverless, billed by the second: kept on all the time it bills all {billed} hours a month, and here its rate is still below the instances' for this job. Keep at least one worker warm, so that no request waits for a start from zero ({cold} s: the platform's start plus loading the model and starting the engine).", "{offer} 是无服务器（serverless）平台，按秒计费：全天候运行时每月计满 {billed} 小时，而在这里它的费率仍低于各实例。请至少保持一个常驻 worker，以免请求等待从零启动（{cold} 秒：平台启动加上加载模型和启动引擎）。"),
    ("g.serverless.train.pick", "{offer} is serverless, billed by the second: {what} bills {workers} worker-hours ({gpuh} GPU-hours), {cold_h} of them for {starts} × a start from zero of {cold} s (the platform's start plus loading the weights), and nothing before or after. For a job this short, per-second billing beats the instances' rates and billing increments; for long runs an instance usually costs less per GPU-hour.", "{offer} 是无服务器（serverless）平台，按秒计费：{what}计费 {workers} 个 worker 小时（{gpuh} GPU 小时），其中 {cold_h} 小时是 {starts} 次从零启动，每次 {cold} 秒（平台启动加上加载权重），前后不计费。对这样短的任务，按秒计费胜过实例的价格和计费粒度；长时间训练用实例通常每 GPU 小时更便宜。"),
    ("g.serverless.train.lost", "The cheapest serverless offer per job, {offer}, would bill {workers} worker-hours ({gpuh} GPU-hours) for {what}, {cold_h} of them for {starts} × a start from zero of {cold} s, at {ratio}× the pick's cost per job. Serverless wins for short jobs where the instances round up (per-hour or per-minute billing) and its per-second rate is not far above theirs.", "按单个任务最便宜的无服务器方案 {offer} 为{what}计费 {workers} 个 worker 小时（{gpuh} GPU 小时），其中 {cold_h} 小时是 {starts} 次从零启动，每次 {cold} 秒；单个任务成本是所选方案的 {ratio} 倍。当实例向上取整计费（按小时或按分钟）而无服务器的按秒费率又不比实例高太多时，短任务用无服务器更划算。"),
    ("g.serverless.what.once", "the job", "这项任务"),
    ("g.serverless.what.jobs", "the {jobs} jobs a month", "每月 {jobs} 个任务"),
    ("g.serverless.title", "Serverless or an instance?", "无服务器还是实例？"),
    ("g.note.tight.train", "The pick has only {spare} GiB of memory to spare: a longer sequence, a larger micro-batch, allocator fragmentation or another version of the training stack can run it out of memory. Leave room, or take the next card up.", "所选方案只剩 {spare} GiB 显存余量：更长的序列、更大的微批次、显存碎片或换一个训练框架版本都可能导致显存不足。请留出余量，或选大一档的卡。"),
    ("g.note.tight.media", "The pick has only {spare} GiB of memory to spare: a larger batch or resolution, or another version of the pipeline, can run it out of memory. Leave room, or take the next card up.", "所选方案只剩 {spare} GiB 显存余量：更大的批次或分辨率、或换一个流水线版本都可能导致显存不足。请留出余量，或选大一档的卡。"),
    ("g.note.tight.paged", "The pick has only {spare} GiB of memory to spare. The engine gives its KV cache what is left after the weights, so a longer prompt or more concurrent sequences than planned wait their turn rather than crash, and another engine or driver version can leave room for fewer sequences than planned. Leave room if the load may grow.", "所选方案只剩 {spare} GiB 显存余量。推理引擎把权重之外的显存留给 KV 缓存，所以更长的提示或超出计划的并发会排队等待而不会崩溃；换引擎或驱动版本可能使同时容纳的序列少于计划。若负载可能增长，请留出余量。"),
    ("g.note.tight", "The pick has only {spare} GiB of memory to spare: a longer prompt, more concurrent sequences or a different driver can run it out of memory. Leave room, or take the next card up.", "所选方案只剩 {spare} GiB 显存余量：更长的提示、更多并发或换驱动都可能导致显存不足。请留出余量，或选大一档的卡。"),
    // Media generation.
    ("g.media.part.denoiser", "denoiser", "去噪网络"),
    ("g.media.part.decoder", "autoregressive decoder", "自回归解码器"),
    ("g.media.res.image", "{size}", "分辨率 {size}"),
    ("g.media.res.video", "{size}, {frames} frames", "分辨率 {size}、{frames} 帧"),
    ("g.media.res.audio", "{seconds} s of audio", "{seconds} 秒音频"),
    ("g.media.memory.body", "About {total} GiB: {weights} GiB of weights ({core} {denoiser}, text encoders {enc}, VAE or codec {vae}), {act} GiB of activations for a batch of {batch} at {res}, and {overhead} GiB of overhead.", "约 {total} GiB：权重 {weights} GiB（{core} {denoiser}，文本编码器 {enc}，VAE 或编解码器 {vae}），批量 {batch}、{res} 的激活 {act} GiB，开销 {overhead} GiB。"),
    ("g.media.speed.image", "One image takes about {s} s on {gpu} ({per_hour} images per hour per GPU): {steps} denoising steps are compute bound, so tensor throughput at the executed precision decides the speed, not memory bandwidth.", "在 {gpu} 上生成一张图约 {s} 秒（每 GPU 每小时 {per_hour} 张）：{steps} 步去噪受算力限制，速度取决于所用精度下的 Tensor 算力，而非显存带宽。"),
    ("g.media.speed.video", "One clip takes about {s} s on {gpu}: attention over {tokens} latent tokens per step dominates, so it grows faster than linearly with resolution and frames.", "在 {gpu} 上生成一段视频约 {s} 秒：每步对 {tokens} 个潜变量 token 的注意力计算占主导，耗时随分辨率和帧数超线性增长。"),
    ("g.media.speed.audio", "On {gpu} one second of compute produces about {rtf} seconds of audio.", "在 {gpu} 上每秒计算约生成 {rtf} 秒音频。"),
    ("g.media.vendor", "{gpu} is not an NVIDIA card: before you rent, check that this pipeline and its attention kernels run on it ({stack}).", "{gpu} 不是 NVIDIA 的卡：租用前请确认这个生成流水线及其注意力内核能在上面运行（{stack}）。"),
    ("g.media.hostbound", "At {batch} item{batch:s} per batch this model waits on the CPU launching GPU kernels ({host} s of launches against {gpu} s of GPU work), so a faster GPU barely helps; more clips per batch, or a compiled runtime (torch.compile, CUDA graphs, TensorRT), does.", "每批 {batch} 个时，这个模型受限于 CPU 发起 GPU 内核（内核发起 {host} 秒，GPU 计算 {gpu} 秒），换更快的 GPU 几乎无用；每批生成更多片段，或使用编译运行时（torch.compile、CUDA Graphs、TensorRT）才有效。"),
    ("g.media.offload", "Moving the text encoders to the CPU (enc_offload=1) would free {enc} GiB of GPU memory at the cost of slower prompt encoding.", "把文本编码器放到 CPU（enc_offload=1）可释放 {enc} GiB 显存，代价是提示词编码变慢。"),
    // Training.
    ("g.train.memory.body.rl", "About {total} GiB per GPU on {gpus} GPU{gpus:s}: {weights} GiB of weights, {grads} GiB of gradients, {optim} GiB of optimizer states, {act} GiB of activations for micro-batch {mb} × {seq} tokens, {engine} GiB for vLLM's generation and {overhead} GiB of overhead.", "在 {gpus} 块 GPU 上每块约 {total} GiB：权重 {weights} GiB，梯度 {grads} GiB，优化器状态 {optim} GiB，微批 {mb} × {seq} 个 token 的激活 {act} GiB，vLLM 生成占 {engine} GiB，开销 {overhead} GiB。"),
    ("g.train.memory.body", "About {total} GiB per GPU on {gpus} GPU{gpus:s}: {weights} GiB of weights, {grads} GiB of gradients, {optim} GiB of optimizer states, {act} GiB of activations for micro-batch {mb} × {seq} tokens, and {overhead} GiB of overhead.", "在 {gpus} 块 GPU 上每块约 {total} GiB：权重 {weights} GiB，梯度 {grads} GiB，优化器状态 {optim} GiB，微批 {mb} × {seq} 个 token 的激活 {act} GiB，开销 {overhead} GiB。"),
    ("g.imgtrain.memory", "About {total} GiB on one GPU: {weights} GiB of weights (the frozen or trained denoiser, plus the text encoders and VAE unless their outputs are precomputed), {states} GiB of gradients and optimizer states, {act} GiB of activations for {mb} image{mb:s} of {res} per step, and about 1 GiB of runtime overhead.", "单块 GPU 约需 {total} GiB：权重 {weights} GiB（冻结或训练中的去噪网络，以及未预先计算输出时的文本编码器和 VAE），梯度与优化器状态 {states} GiB，每步 {mb} 张 {res} 图像的激活值 {act} GiB，另有约 1 GiB 运行时开销。"),
    ("g.imgtrain.methods", "Training the whole denoiser (DreamBooth) needs {full} GiB: fp32 weights, gradients and optimizer states for every parameter. LoRA keeps the denoiser frozen at 16 bits and trains small adapters ({lora} GiB); QLoRA stores the frozen denoiser in 4 bits ({qlora} GiB). Adapters are what bring these models onto 24–48 GB cards; the offers table shows which cards each method fits.", "训练整个去噪网络（DreamBooth）需要 {full} GiB：每个参数都有 fp32 权重、梯度和优化器状态。LoRA 把去噪网络以 16 位冻结、只训练小适配器（{lora} GiB）；QLoRA 用 4 位存放冻结的去噪网络（{qlora} GiB）。正是适配器让这些模型能在 24–48 GB 显卡上训练；报价表列出了每种方法能放进哪些显卡。"),
    ("g.imgtrain.time", "{steps} optimizer steps of {micro} micro-batches take about {hours} h on {gpu} ({step} s per step); most of a step is {part}. Each offer is timed on its own GPUs and ranked by the cost of the whole run; set the run's length with train_steps.", "{steps} 个优化器步（每步 {micro} 个微批次）在 {gpu} 上约需 {hours} 小时（每步 {step} 秒）；每步耗时最多的是{part}。每个报价按其自身 GPU 计时，并按整次训练的费用排序；可用 train_steps 设置训练步数。"),
    ("g.imgtrain.jobmin", "The run's length is yours: {min} minutes on every offer (jobmin), whatever its GPU. Give train_steps instead to time the run on each offer's own GPUs.", "训练时长由你设定：每个报价都按 {min} 分钟计（jobmin），与 GPU 无关。改用 train_steps 可按每个报价自身的 GPU 计时。"),
    ("g.imgtrain.part.denoiser", "the denoiser's forward and backward passes", "去噪网络的前向与反向计算"),
    ("g.imgtrain.part.recompute", "recomputing activations under gradient checkpointing", "梯度检查点下的激活重算"),
    ("g.imgtrain.part.dequant", "dequantizing the 4-bit base weights for every matmul", "每次矩阵乘法前对 4 位基础权重的反量化"),
    ("g.imgtrain.part.encoders", "running the text encoders and the VAE on every batch (enc_offload=1 precomputes them)", "每个批次都运行文本编码器和 VAE（enc_offload=1 可预先计算）"),
    ("g.imgtrain.part.host", "launching kernels from the CPU (the GPU waits on Python)", "CPU 发起内核（GPU 等待 Python）"),
    ("g.imgtrain.part.sync", "exchanging gradients between the GPUs", "GPU 之间交换梯度"),
    ("g.imgtrain.part.optimizer", "the optimizer step", "优化器更新"),
    ("g.imgtrain.cache", "Precomputing the prompt embeddings and latents once (enc_offload=1) takes the text encoders and the VAE off the GPU during training and frees {enc} GiB.", "预先计算一次提示词嵌入和潜变量（enc_offload=1），训练时文本编码器和 VAE 就不必留在 GPU 上，可释放 {enc} GiB。"),
    ("g.rl.gen.title", "Why does generation dominate?", "为什么生成占了大部分时间？"),
    ("g.rl.gen", "Each step samples {seqs} completions one token at a time and waits for the longest: generation takes {gen} s of the {step} s step ({share} %), the update and scoring passes {update} s. Decoding reads every weight once per token, far below the GPU's compute rate; shorter completions (completion_len) or more GPUs cut it.", "每一步逐个 token 采样 {seqs} 个补全，并等待最长的那个：生成占 {step} 秒中的 {gen} 秒（{share}%），更新与打分 {update} 秒。解码每个 token 都要读一遍全部权重，远低于 GPU 的算力；缩短补全（completion_len）或增加 GPU 可以减少它。"),
    ("g.rl.gen.minor", "Each step samples {seqs} completions: generation takes {gen} s of the {step} s step ({share} %), the update and scoring passes {update} s, so here training sets the pace.", "每一步采样 {seqs} 个补全：生成占 {step} 秒中的 {gen} 秒（{share}%），更新与打分 {update} 秒，因此这里由训练决定速度。"),
    ("g.rl.layout.title", "Colocate or split?", "共置还是拆分？"),
    ("g.rl.layout", "On {gpus} GPUs: colocated (vLLM in {engine} GiB of every GPU, generating and training in turn) {colocate}; split ({serve} GPU{serve:s} serving vLLM, {train} training) {split}. Faster here: gen={faster}. TRL's trainer waits for generation in both, so a split wins only by what it frees.", "在 {gpus} 块 GPU 上：共置（vLLM 占每块 GPU 的 {engine} GiB，生成与训练轮流进行）{colocate}；拆分（{serve} 块 GPU 运行 vLLM，{train} 块训练）{split}。这里更快的是 gen={faster}。TRL 的训练器在两种方式下都会等待生成，因此拆分只靠腾出的资源取胜。"),
    ("g.rl.layout.one", "On {gpus} GPU{gpus:s} only colocated vLLM can run: {colocate}; a split needs a GPU for vLLM beside those that train.", "在 {gpus} 块 GPU 上只能共置 vLLM：{colocate}；拆分需要在训练 GPU 之外再有一块 GPU 给 vLLM。"),
    ("g.rl.layout.time", "{step} s a step, {hours} h in all", "每步 {step} 秒，共 {hours} 小时"),
    ("g.rl.layout.nofit", "does not fit", "放不下"),
    ("g.rl.lora.title", "Can I use LoRA for GRPO?", "GRPO 可以用 LoRA 吗？"),
    ("g.rl.lora", "Yes (adapter=lora or qlora): TRL trains the adapter through PEFT, loads no reference model (it disables the adapter to score), and merges the adapter into the weights it sends to vLLM each step.", "可以（adapter=lora 或 qlora）：TRL 通过 PEFT 训练适配器，不加载参考模型（打分时禁用适配器），每步把合并了适配器的权重发给 vLLM。"),
    ("g.train.methods.title", "Full fine-tuning, LoRA or QLoRA?", "全量微调、LoRA 还是 QLoRA？"),
    ("g.train.methods", "On one GPU this model needs {full} GiB for full fine-tuning (weights, gradients and optimizer states for every parameter), {lora} GiB for LoRA (a frozen 16-bit base plus small trainable adapters) and {qlora} GiB for QLoRA (a 4-bit base).", "在单块 GPU 上，这个模型全量微调需要 {full} GiB（每个参数都有权重、梯度和优化器状态），LoRA 需要 {lora} GiB（冻结的 16 位底座加少量可训练适配器），QLoRA 需要 {qlora} GiB（4 位底座）。"),
    ("g.train.methods.offload", "On one GPU this model needs {full} GiB for full fine-tuning, {lora} GiB for LoRA (a frozen 16-bit base plus small trainable adapters) and {qlora} GiB for QLoRA (a 4-bit base); the states this job offloads sit in CPU memory and are not in these figures.", "在单块 GPU 上，这个模型全量微调需要 {full} GiB，LoRA 需要 {lora} GiB（冻结的 16 位底座加少量可训练适配器），QLoRA 需要 {qlora} GiB（4 位底座）；本任务卸载的状态放在 CPU 内存中，不计入这些数字。"),
    ("g.train.host.optim", "The optimizer states are offloaded to CPU memory: each instance ({instances} in all) needs about {host} GiB of RAM for them (DeepSpeed's own estimate, with its 1.5× buffer). {check}", "优化器状态卸载到 CPU 内存：{instances} 个实例每个约需 {host} GiB 内存来存放（DeepSpeed 自带估算，含 1.5 倍缓冲）。{check}"),
    ("g.train.host.all", "The parameters and optimizer states are offloaded to CPU memory: each instance ({instances} in all) needs about {host} GiB of RAM for them (DeepSpeed's own estimate, with its 1.5× buffer). {check}", "参数和优化器状态卸载到 CPU 内存：{instances} 个实例每个约需 {host} GiB 内存来存放（DeepSpeed 自带估算，含 1.5 倍缓冲）。{check}"),
    ("g.train.host.check", "The provider does not publish this instance's RAM: check it before you rent; the GPU figures above leave it out.", "服务商未公布该实例的内存：租用前请核对；上面的 GPU 数字不含这部分。"),
    ("g.train.host.has", "The pick's instance has {ram} GiB, and offers with less are not picked; the GPU figures above leave this memory out.", "所选实例有 {ram} GiB 内存，内存更少的方案不会被选中；上面的 GPU 数字不含这部分。"),
    ("g.train.time", "Training on {tokens} tokens takes about {hours} hours on {gpus} × {gpu} ({gpuh} GPU-hours), at the model-FLOPs utilisation published runs reach on this class of GPU.", "在 {gpus} × {gpu} 上训练 {tokens} 个 token 约需 {hours} 小时（{gpuh} GPU 小时），按同类 GPU 上公开训练记录的算力利用率估算。"),
    ("g.train.time.clock", "Training on {tokens} tokens takes about {hours} hours on {gpus} × {gpu} ({gpuh} GPU-hours): published runs' utilisation on this class of GPU, plus this stack's own overheads (below).", "在 {gpus} × {gpu} 上训练 {tokens} 个 token 约需 {hours} 小时（{gpuh} GPU 小时）：矩阵乘按同类 GPU 上公开训练记录的利用率计，再加上该训练栈自身的开销（见下）。"),
    ("g.train.long", "At this size the run takes about {days} days on the pick's {gpus} GPU{gpus:s}. Give it a deadline (days=…) and the plan adds GPUs and instances until the run meets it.", "按此规模，所选方案的 {gpus} 块 GPU 约需 {days} 天。设置截止期限（days=…）后，方案会增加 GPU 和实例，直到能按期完成。"),
    ("g.train.noshape", "No offer rents instances of {want} × {gpu}: the plan holds the job on {gpus} of them ({need} GiB per GPU), and the offers of this GPU come with {sizes} GPUs per instance. Set gpus to one of those sizes.", "没有报价按每实例 {want} × {gpu} 出租：方案在 {gpus} 块这种 GPU 上能装下此作业（每块 {need} GiB），而该 GPU 的报价每实例为 {sizes} 块。请把 gpus 设为其中之一。"),
    ("g.train.ckpt", "Each checkpoint is {size} GiB; keeping {n} of them is billed as storage every month.", "每个检查点 {size} GiB；保留 {n} 个会按月计入存储费用。"),
    // Notices: what the link asked for that was ignored or replaced.
    ("notice.unknown_key", "unknown key `{key}`, ignored", "未知的键 `{key}`，已忽略"),
    ("notice.empty_key", "a value without a key, ignored", "有值但没有键，已忽略"),
    ("notice.bad", "`{value}` is not valid for `{key}` (expected {expected}); using the default", "`{value}` 不是 `{key}` 的有效值（应为 {expected}）；改用默认值"),
    ("notice.version", "link format version `{value}` is unknown; reading it as version 1", "未知的链接格式版本 `{value}`；按版本 1 读取"),
    ("notice.duplicate", "`{key}` appears twice; the last value wins", "`{key}` 出现了两次；以最后一个值为准"),
    ("expect.number", "a number from {min} to {max}", "{min} 到 {max} 之间的数"),
    ("expect.whole", "a whole number from {min} to {max}", "{min} 到 {max} 之间的整数"),
    ("expect.flag", "0 or 1", "0 或 1"),
    ("expect.id", "a lowercase id", "小写 id"),
    ("expect.res", "WxH with each side from 64 to 8192", "宽x高，每边 64 到 8192"),
    ("expect.region", "a region name", "区域名称"),
    ("notice.model_task", "`{model}` is not a model for task `{task}` (it is for: {tasks})", "`{model}` 不是任务 `{task}` 的模型（它适用于：{tasks}）"),
    ("notice.model_near", "unknown model `{model}`; did you mean `{near}`?", "未知模型 `{model}`；是否要找 `{near}`？"),
    ("notice.model_unknown", "unknown model `{model}`: choose a catalog model, or import its config.json (`model=custom`)", "未知模型 `{model}`：请选择目录中的模型，或导入它的 config.json（`model=custom`）"),
    ("notice.gpu_unknown", "unknown GPU `{gpu}`; showing every GPU", "未知 GPU `{gpu}`；显示所有 GPU"),
    ("notice.cat_old", "this link was made with the catalog of {date}; prices have changed since (now {now})", "此链接基于 {date} 的目录生成；此后价格已有变化（当前为 {now}）"),
    ("notice.provider_unknown", "unknown provider `{providers}`; ignored", "未知云厂商 `{providers}`；已忽略"),
    ("notice.price_unknown", "unknown offer `{offer}` in price overrides", "自定义价格中有未知方案 `{offer}`"),
    ("notice.gpus", "gpus={gpus} cannot be used: {why}; choosing the GPU count per offer", "无法使用 gpus={gpus}：{why}；改为按方案选择 GPU 数"),
    ("notice.gpus.per_node", "{gpu} comes at most {most} per node", "{gpu} 每节点最多 {most} 块"),
    ("notice.gpus.heads", "{engine} needs a tensor-parallel size that divides the model's {heads} attention heads and divides or is a multiple of its {kv} KV heads", "{engine} 的张量并行数必须整除模型的 {heads} 个注意力头，并整除其 {kv} 个 KV 头或为其倍数"),
    ("notice.context", "{model} takes at most {most} tokens of context: a prompt of {in} and {out} generated tokens do not fit; estimating {in_fit} + {out_fit}", "{model} 最多接受 {most} 个 token 的上下文：{in} 个提示 token 加 {out} 个生成 token 放不下；按 {in_fit} + {out_fit} 估算"),
    ("notice.seconds", "{model} generates at most {window} s per clip; estimating a {window} s clip", "{model} 每段最多生成 {window} 秒；按 {window} 秒的片段估算"),
    ("notice.w_media", "weight format `{w}` is not used for generation models; using the model's own precision", "生成模型不使用权重格式 `{w}`；改用模型自身的精度"),
    ("notice.method.trainer", "{trainer} has no LoRA or QLoRA adapters: method={method} is planned as a full fine-tune (method=full); for adapters choose trainer=hf, axolotl, torchtune or unsloth", "{trainer} 没有 LoRA 或 QLoRA 适配器：method={method} 按全参数微调（method=full）规划；需要适配器请选择 trainer=hf、axolotl、torchtune 或 unsloth"),
    ("notice.rl.task", "method={method} is reinforcement-learning fine-tuning of a language model; with task={task} it is ignored", "method={method} 是语言模型的强化学习微调；task={task} 时忽略"),
    ("notice.rl.gens", "gens={gens}: each prompt needs at least {least} completions; estimating {to}", "gens={gens}：每个提示至少需要 {least} 个补全；按 {to} 估算"),
    ("notice.rl.completion_zero", "completion_len=0 generates nothing; estimating 1024 tokens", "completion_len=0 不生成任何内容；按 1024 个 token 估算"),
    ("notice.rl.completion_mean", "completion_mean={mean} is longer than completion_len={most}: a completion stops at completion_len; estimating a mean of {most}", "completion_mean={mean} 超过 completion_len={most}：补全在 completion_len 处停止；按平均 {most} 估算"),
    ("notice.rl.context", "{model} takes at most {most} tokens of context: a {prompt}-token prompt and a {completion}-token completion do not fit; estimating {prompt_fit} + {completion_fit}", "{model} 最多接受 {most} 个 token 的上下文：{prompt} 个 token 的提示加 {completion} 个 token 的补全放不下；按 {prompt_fit} + {completion_fit} 估算"),
    ("notice.rl.trainer", "RL fine-tuning (method={method}) is planned on TRL, not {trainer}; planned as trainer=trl", "强化学习微调（method={method}）按 TRL 规划，而不是 {trainer}；按 trainer=trl 规划"),
    ("notice.rl.gen", "gen applies to GRPO's vLLM; method={method} generates inside the trainer (or not at all), so it is ignored", "gen 只用于 GRPO 的 vLLM；method={method} 在训练器内生成（或不生成），因此忽略"),
    ("notice.rl.beta", "beta is GRPO's KL coefficient; method={method} always scores with its reference, so it is ignored", "beta 是 GRPO 的 KL 系数；method={method} 总是用参考模型打分，因此忽略"),
    ("notice.rl.colocate", "on {gpus} × {gpu}, colocated vLLM ({share} % of each GPU) and the policy do not both fit, nor does a split (gen=split): more GPUs, an adapter (adapter=lora) or offloaded optimizer states (optim_offload=1) would", "在 {gpus} × {gpu} 上，共置的 vLLM（每块 GPU 的 {share}%）与策略模型放不下，拆分（gen=split）也放不下：需要更多 GPU、适配器（adapter=lora）或把优化器状态卸载到 CPU（optim_offload=1）"),
    ("notice.rl.colocate_split", "on {gpus} × {gpu}, colocated vLLM ({share} % of each GPU) and the policy do not both fit; gen=split (a vLLM server on GPUs of its own) does", "在 {gpus} × {gpu} 上，共置的 vLLM（每块 GPU 的 {share}%）与策略模型放不下；gen=split（vLLM 服务器使用独立 GPU）可以"),
    ("notice.zero.unsloth", "Unsloth keeps a whole model on every GPU (data parallel, no ZeRO sharding): zero={zero} is planned as zero=0", "Unsloth 在每块 GPU 上保存完整模型（数据并行，不做 ZeRO 分片）：zero={zero} 按 zero=0 规划"),
    ("notice.param_offload.trainer", "{trainer} cannot keep parameters in CPU memory; param_offload is ignored", "{trainer} 不能把参数放在 CPU 内存中；已忽略 param_offload"),
    ("notice.days.task", "days is a deadline for training, or for a batch job of a stated size (use=jobs or once with per_job); this task={task} link has no work to time, so it is ignored", "days 是训练的截止期限，或给定工作量的批处理任务（use=jobs 或 once 且设置 per_job）的截止期限；这个 task={task} 链接没有可计时的工作量，已忽略"),
    ("notice.train_steps.jobmin", "train_steps and jobmin both set the run's length: train_steps wins (each offer is timed on its own GPUs), jobmin is ignored", "train_steps 和 jobmin 都设定了训练时长：以 train_steps 为准（每个报价按其自身 GPU 计时），jobmin 已忽略"),
    ("notice.train_steps.task", "train_steps counts the optimizer steps of an image-model fine-tune (task=finetune with an image model); this link is not one, so it is ignored", "train_steps 是图像模型微调（task=finetune 且为图像模型）的优化器步数；此链接不是，已忽略"),
    ("notice.zero.torchtune", "torchtune's distributed recipes always shard with FSDP2 (no DDP): zero={zero} is planned as zero=3 (zero=2 is its fsdp_reshard_after_forward=False)", "torchtune 的分布式配方总是用 FSDP2 分片（不支持 DDP）：zero={zero} 按 zero=3 规划（zero=2 对应其 fsdp_reshard_after_forward=False）"),
    ("notice.param_offload.zero", "parameter offload needs a fully sharded job; assuming zero=3 (FSDP / ZeRO-3) instead of zero={zero}", "参数卸载需要完全分片的训练；按 zero=3（FSDP / ZeRO-3）而非 zero={zero} 计算"),
    ("notice.params", "model=custom needs `params` (billions); assuming 7", "model=custom 需要 `params`（十亿）；按 7 计算"),
    ("notice.kv_heads", "{value} does not divide {heads} heads; using {kv}", "{value} 不能整除 {heads} 个注意力头；改用 {kv}"),
    ("notice.custom.moe", "`experts` needs `experts_active` (at most `experts`) and `expert_ffn`; treating the model as dense", "`experts` 需要 `experts_active`（不超过 `experts`）和 `expert_ffn`；按稠密模型计算"),
    ("notice.custom.rope_dim", "`rope_dim` must be below `head_dim` ({head_dim}); using {rope}", "`rope_dim` 必须小于 `head_dim`（{head_dim}）；改用 {rope}"),
    ("notice.custom.vision", "`vision_params` needs `image_tokens` or `image_px`; leaving the vision tower out", "`vision_params` 需要 `image_tokens` 或 `image_px`；不计视觉编码器"),
    ("notice.hf.json", "config.json is not valid JSON ({why}); keeping the last good architecture", "config.json 不是有效的 JSON（{why}）；保留上一个有效的架构"),
    ("notice.hf.object", "config.json is not a JSON object of model settings; keeping the last good architecture", "config.json 不是模型配置的 JSON 对象；保留上一个有效的架构"),
    ("notice.hf.missing", "config.json has no `{field}`; keeping the last good architecture", "config.json 缺少 `{field}`；保留上一个有效的架构"),
    ("notice.hf.whole", "`{field}` in config.json is {value}, not a positive whole number; keeping the last good architecture", "config.json 中的 `{field}` 为 {value}，不是正整数；保留上一个有效的架构"),
    ("notice.hf.bool", "`{field}` in config.json is {value}, not true or false; keeping the last good architecture", "config.json 中的 `{field}` 为 {value}，不是 true 或 false；保留上一个有效的架构"),
    ("notice.hf.section", "`{field}` in config.json is {value}, not a JSON object; keeping the last good architecture", "config.json 中的 `{field}` 为 {value}，不是 JSON 对象；保留上一个有效的架构"),
    ("notice.hf.divides", "`{field}` in config.json does not divide the {heads} attention heads; keeping the last good architecture", "config.json 中的 `{field}` 不能整除 {heads} 个注意力头；保留上一个有效的架构"),
    ("notice.hf.at_most", "`{field}` in config.json is more than the {most} experts; keeping the last good architecture", "config.json 中的 `{field}` 超过了专家总数 {most}；保留上一个有效的架构"),
    ("notice.hf.range", "config.json gives `{key}` = {value}, outside the range a link carries; keeping the last good architecture", "config.json 给出的 `{key}` = {value} 超出链接可承载的范围；保留上一个有效的架构"),
    ("notice.zh_texts", "the Chinese texts ({file}) could not be read: {error}; the page stays in English", "无法读取中文文本（{file}）：{error}；页面暂以英文显示"),
    ("notice.hf.worker", "config.json could not be read: the page's import module did not load ({why}); try again, or reload the page", "无法读取 config.json：本页的导入模块未能加载（{why}）；请重试，或重新加载页面"),
    ("notice.import.worker", "the offers file could not be read: the page's import module did not load ({why}); try again, or reload the page", "无法读取报价文件：本页的导入模块未能加载（{why}）；请重试，或重新加载页面"),
    ("notice.hf.hybrid", "config.json's `{field}` describes state-space layers not read yet: counted as attention layers, which overstates the KV cache", "config.json 的 `{field}` 描述了尚不读取的状态空间层：按注意力层计算，KV 缓存因此偏大"),
    ("notice.prefix.in", "`prefix` = {prefix} is above `in` = {in}; planned as {in}", "`prefix` = {prefix} 超过 `in` = {in}；按 {in} 规划"),
    ("notice.spec.task", "`spec` applies to serving only: ignored", "`spec` 只用于推理服务：已忽略"),
    ("notice.spec.unused", "`{key}` needs its `spec` method: ignored", "`{key}` 需配合相应的 `spec` 方法：已忽略"),
    ("notice.spec.engine", "{engine} has no `spec={method}`: planned without it", "{engine} 不支持 `spec={method}`：按不使用推测解码规划"),
    ("notice.spec.mtp", "{model} has no MTP layers: planned without `spec`", "{model} 没有 MTP 层：按不使用推测解码规划"),
    ("notice.spec.draft_missing", "`spec=draft` needs `draft`, a smaller catalog model with {model}'s vocabulary: planned without it", "`spec=draft` 需要 `draft`：与 {model} 词表相同的较小目录模型；按不使用推测解码规划"),
    ("notice.spec.draft_unknown", "`draft` = {draft} is not a catalog language model: planned without `spec`", "`draft` = {draft} 不是目录中的语言模型：按不使用推测解码规划"),
    ("notice.spec.draft_vocab", "`draft` = {draft} has {dv} vocabulary tokens, {model} {tv}: engines need one tokenizer; planned without `spec`", "`draft` = {draft} 词表 {dv} 个 token，{model} 为 {tv}：引擎须用同一分词器；按不使用推测解码规划"),
    ("notice.spec.draft_size", "`draft` = {draft} is not smaller than {model}: planned without `spec`", "`draft` = {draft} 并不比 {model} 小：按不使用推测解码规划"),
    ("notice.spec.accept", "a draft model's acceptance has no cited default: set `spec_accept`; planned without `spec`", "草稿模型的接受率没有可引用的默认值：请设置 `spec_accept`；按不使用推测解码规划"),
    ("notice.spec.head", "no published EAGLE-3 head is known for {model}: planned as one you train", "未知 {model} 有公开的 EAGLE-3 草稿头：按自行训练的草稿头规划"),
    ("g.spec", "Speculative decoding ({method}, {k} drafted, {alpha}% accepted): {tokens} tokens per step; at {batch} sequence{batch:s} on the pick {tps} tokens/s per sequence against {tps0} without: ×{ratio}. {verdict}", "推测解码（{method}，每步草拟 {k} 个，接受 {alpha}%）：每步 {tokens} 个 token；所选方案 {batch} 个序列时每序列 {tps} token/s，不用时 {tps0}：×{ratio}。{verdict}"),
    ("g.spec.pays", "It pays: the wider step still mostly reads memory.", "划算：加宽的一步主要仍是读取显存。"),
    ("g.spec.pays.compute", "It still pays, less than at a small batch: the wider step is compute-bound.", "仍然划算，但不如小批量：加宽的一步受算力限制。"),
    ("g.spec.loses", "It does not pay at this batch: the wider step is compute-bound; use `spec=off`.", "此批量下不划算：加宽的一步受算力限制；请用 `spec=off`。"),
    ("notice.prefix.none", "{engine} shares no prompt prefix between requests for {model} by default: each request stores and prefills its whole prompt", "{engine} 默认不在请求之间为 {model} 共享提示前缀：每个请求都存储并预填充完整提示"),
    ("notice.custom.state", "`state_layers` needs `state_size`; planned as attention layers", "`state_layers` 需要 `state_size`；按注意力层规划"),
    ("notice.hf.default", "config.json has no `{field}`; using {value}, the {class} default", "config.json 缺少 `{field}`；使用 {class} 的默认值 {value}"),
];

/// Page strings (labels, headings, buttons): `ui_texts`.
#[cfg(not(target_arch = "wasm32"))]
pub use super::ui_texts::UI;

/// Looks up a page string or a message, in either table.
pub fn ui(key: &str, lang: Lang) -> &'static str {
    let ui = UI.iter().enumerate().map(|(i, r)| (MESSAGES.len() + i, r));
    ui.chain(MESSAGES.iter().enumerate()).find(|(_, r)| r.0 == key).map_or("", |(i, r)| pick(r, i, lang))
}
