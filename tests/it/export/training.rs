//! The training launch of each stack (`trainer=`): every word the command
//! writes is a flag, config override or positional word of that stack's
//! list under `tests/data/export/<stack>.flags` (with its source), the
//! parallel degrees and process counts equal the plan's, the batch is the
//! plan's micro-batch, and the command is the chosen stack's own. The
//! Hugging Face Trainer and DeepSpeed keep `accelerate launch`
//! (`export::check_command`). Property tests run over generated jobs.

use std::collections::HashMap;
use std::fs;

use proptest::prelude::*;
use serde_json::Value;
use whichgpu::core::config::{Checkpointing, Config, Method, Task, Trainer};
use whichgpu::core::export::{for_answer, Export};

use crate::common::{answer, catalog};

/// A stored list: first word the flag, override (`key=`) or bare word,
/// the rest the values the export may write (`*` any).
fn stored(file: &str) -> HashMap<String, Vec<String>> {
    let text = fs::read_to_string(format!("tests/data/export/{file}")).expect("stored list");
    assert!(
        text.lines().any(|l| l.starts_with("# ") && l.contains('@') && l.contains("read 2026")),
        "{file} names its source and date"
    );
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut w = l.split_whitespace().map(str::to_string);
            (w.next().unwrap_or_default(), w.collect())
        })
        .collect()
}

/// The words of the one command line after `program`, each checked
/// against `allowed`: flags with their values, `key=value` overrides, bare
/// words. Returns flag or key → value ("" for a switch or bare word).
fn parse(command: &str, program: &str, allowed: &HashMap<String, Vec<String>>) -> HashMap<String, String> {
    let lines: Vec<&str> = command.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 1, "one command line: {command}");
    let args = lines[0].strip_prefix(program).unwrap_or_else(|| panic!("starts with `{program}`: {command}"));
    let words: Vec<&str> = args.split_whitespace().map(|w| w.trim_matches('\'')).collect();
    let check = |key: &str, value: &str| {
        let values =
            allowed.get(key).unwrap_or_else(|| panic!("`{key}` is not in the stored list: {command}"));
        assert!(
            values.iter().any(|a| a == "*" || a == value),
            "{key} {value} is not a stored value: {command}"
        );
    };
    let mut out = HashMap::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w.starts_with('-') {
            let values =
                allowed.get(w).unwrap_or_else(|| panic!("flag {w} is not in the stored list: {command}"));
            if values.is_empty() {
                out.insert(w.to_string(), String::new());
            } else {
                let v = words.get(i + 1).unwrap_or_else(|| panic!("{w} has a value: {command}"));
                check(w, v);
                out.insert(w.to_string(), v.to_string());
                i += 1;
            }
        } else if let Some((k, v)) = w.split_once('=') {
            let key = format!("{k}=");
            check(&key, v);
            out.insert(key, v.to_string());
        } else {
            let values =
                allowed.get(w).unwrap_or_else(|| panic!("word `{w}` is not in the stored list: {command}"));
            assert!(values.is_empty(), "`{w}` is listed as a flag with values: {command}");
            out.insert(w.to_string(), String::new());
        }
        i += 1;
    }
    out
}

fn num(m: &HashMap<String, String>, flag: &str) -> u64 {
    m.get(flag).unwrap_or_else(|| panic!("{flag} set in {m:?}")).parse().expect("a number")
}

/// The plan's layout as the JSON gives it.
struct Plan {
    gpus: u64,
    instances: u64,
    dp: u64,
    tp: u64,
    pp: u64,
    mb: u64,
    /// Sequences per optimizer step: the link's `gbs`, else 4,194,304
    /// tokens for pre-training (docs/link-format.md, `gbs`), else none.
    gbs: Option<u64>,
}

impl Plan {
    fn of(offer: &Value, cfg: &Config) -> Plan {
        let n = |k: &str| offer[k].as_u64().unwrap_or_else(|| panic!("{k}"));
        let mb = offer["batch"].as_f64().expect("batch").ceil().max(1.0) as u64;
        let gbs = cfg
            .gbs
            .map(u64::from)
            .or((cfg.task == Task::Pretrain).then(|| 4_194_304u64.div_ceil(u64::from(cfg.seq))));
        Plan { gpus: n("gpus"), instances: n("instances"), dp: n("dp"), tp: n("tp"), pp: n("pp"), mb, gbs }
    }

    fn procs(&self) -> u64 {
        self.gpus * self.instances
    }

    /// Micro-batches per step of the pipeline alone: 4·pp under pipelining
    /// (the estimator's 1F1B schedule), else 1.
    fn pipeline(&self) -> u64 {
        if self.pp > 1 {
            4 * self.pp
        } else {
            1
        }
    }

    /// Micro-batches per optimizer step: whole rounds of the pipeline's,
    /// as many as fill the global batch.
    fn micro_batches(&self) -> u64 {
        let needed = self.gbs.map_or(1, |g| g.div_ceil(self.dp * self.mb));
        self.pipeline() * needed.div_ceil(self.pipeline()).max(1)
    }
}

/// torchrun's process counts (several GPUs), as the plan has them.
fn check_torchrun(m: &HashMap<String, String>, p: &Plan, command: &str) {
    assert_eq!(num(m, "--nproc_per_node"), p.gpus, "{command}");
    if p.instances > 1 {
        assert_eq!(num(m, "--nnodes"), p.instances, "{command}");
        assert!(command.contains("$HEAD_IP"), "multi-node from the SkyPilot task's head: {command}");
    } else {
        assert!(!m.contains_key("--nnodes"), "{command}");
    }
}

/// Checks one training export of a stack with its own launch.
pub fn check(e: &Export, offer: &Value, cfg: &Config) {
    let p = Plan::of(offer, cfg);
    let c = e.command.as_str();
    // Every GPU the offer rents runs one rank of the plan's layout.
    assert_eq!(p.dp * p.tp * p.pp, p.procs(), "dp × tp × pp = GPUs: {offer}");
    let mb = u64::from(cfg.mb().max(1));
    assert_eq!(p.mb, mb, "the plan's micro-batch is the link's");
    let finetune_adapter = cfg.task == Task::Finetune && cfg.method != Method::Full;
    // The SkyPilot task installs the stack it launches.
    let install = match cfg.trainer {
        Trainer::Megatron => "git clone https://github.com/NVIDIA/Megatron-LM",
        Trainer::Torchtitan => "git clone --branch v0.2.2 https://github.com/pytorch/torchtitan",
        Trainer::Torchtune => "pip install torchao \"torchtune==0.6.1\"",
        Trainer::Axolotl => "pip install \"axolotl[deepspeed]==0.18.0\"",
        Trainer::Deepspeed => "pip install deepspeed",
        _ => "pip install unsloth",
    };
    assert!(e.skypilot_yaml.contains(install), "{}", e.skypilot_yaml);
    assert!(
        cfg.trainer == Trainer::Deepspeed || !e.skypilot_yaml.contains("pip install accelerate"),
        "{}",
        e.skypilot_yaml
    );
    match cfg.trainer {
        Trainer::Megatron => {
            assert!(c.starts_with("# Megatron-LM "), "{c}");
            let m = parse(c, "torchrun ", &stored("megatron.flags"));
            assert!(m.contains_key("pretrain_gpt.py"));
            check_torchrun(&m, &p, c);
            assert_eq!(num(&m, "--tensor-model-parallel-size"), p.tp);
            assert_eq!(num(&m, "--pipeline-model-parallel-size"), p.pp);
            assert_eq!(
                m.contains_key("--sequence-parallel"),
                p.tp > 1,
                "sequence parallel exactly when tp > 1: {c}"
            );
            assert_eq!(num(&m, "--micro-batch-size"), mb);
            assert_eq!(num(&m, "--global-batch-size"), mb * p.dp * p.micro_batches());
            assert_eq!(num(&m, "--seq-length"), u64::from(cfg.seq));
            assert_eq!(
                m.get("--recompute-granularity").map(String::as_str),
                (cfg.gc == Checkpointing::Full).then_some("full")
            );
            assert_eq!(m.contains_key("--recompute-activations"), cfg.gc == Checkpointing::Selective);
            assert_eq!(m.contains_key("--use-distributed-optimizer"), cfg.zero_stage() == 1);
            assert_eq!(m.contains_key("--use-megatron-fsdp"), cfg.zero_stage() >= 2);
            if finetune_adapter {
                assert!(
                    c.contains(&format!("no flag for {}", cfg.method)),
                    "the missing adapters are said: {c}"
                );
            }
        }
        Trainer::Torchtitan => {
            assert!(c.starts_with("# torchtitan "), "{c}");
            let m = parse(c, "torchrun ", &stored("torchtitan.flags"));
            assert_eq!(m.get("-m").map(String::as_str), Some("torchtitan.train"));
            check_torchrun(&m, &p, c);
            let (shard, rep) = (
                num(&m, "--parallelism.data_parallel_shard_degree"),
                num(&m, "--parallelism.data_parallel_replicate_degree"),
            );
            assert_eq!(shard * rep, p.dp, "{c}");
            assert_eq!(
                shard > 1 || p.dp == 1,
                cfg.zero_stage() >= 1 || p.dp == 1,
                "FSDP2 shards under ZeRO: {c}"
            );
            assert_eq!(num(&m, "--parallelism.tensor_parallel_degree"), p.tp);
            assert_eq!(num(&m, "--parallelism.pipeline_parallel_degree"), p.pp);
            assert_eq!(shard * rep * p.tp * p.pp, p.procs(), "the degrees' product is the world size: {c}");
            assert_eq!(num(&m, "--training.local_batch_size"), mb * p.pipeline());
            let global = (p.micro_batches() > p.pipeline()).then(|| mb * p.micro_batches() * p.dp);
            assert_eq!(
                m.contains_key("--training.global_batch_size")
                    .then(|| num(&m, "--training.global_batch_size")),
                global,
                "{c}"
            );
            assert_eq!(num(&m, "--training.seq_len"), u64::from(cfg.seq));
            assert_eq!(m.get("--activation_checkpoint.mode").map(String::as_str), Some(cfg.gc.as_str()));
            assert_eq!(m.contains_key("--training.enable_cpu_offload"), cfg.param_offload);
        }
        Trainer::Torchtune => {
            assert!(c.starts_with("# torchtune "), "{c}");
            assert_eq!((p.tp, p.pp), (1, 1), "torchtune plans are data parallel");
            let m = parse(c, "tune run ", &stored("torchtune.flags"));
            let full = cfg.method == Method::Full || cfg.task == Task::Pretrain;
            let recipe = format!(
                "{}_finetune_{}",
                if full { "full" } else { "lora" },
                if p.procs() == 1 { "single_device" } else { "distributed" }
            );
            assert!(m.contains_key(&recipe), "{recipe}: {c}");
            if p.procs() > 1 {
                check_torchrun(&m, &p, c);
            } else {
                assert!(!m.contains_key("--nproc_per_node"));
            }
            assert_eq!(num(&m, "batch_size="), mb);
            assert_eq!(num(&m, "gradient_accumulation_steps="), p.micro_batches());
            assert_eq!(num(&m, "tokenizer.max_seq_len="), u64::from(cfg.seq));
            let gc = if cfg.gc == Checkpointing::None { "False" } else { "True" };
            assert_eq!(m.get("enable_activation_checkpointing=").map(String::as_str), Some(gc));
            // FSDP2 always; zero=2 is its SHARD_GRAD_OP.
            assert!(cfg.zero_stage() >= 2, "torchtune always shards: {c}");
            assert_eq!(
                m.contains_key("fsdp_reshard_after_forward="),
                p.procs() > 1 && cfg.zero_stage() == 2,
                "{c}"
            );
            assert_eq!(m.contains_key("model.lora_rank="), finetune_adapter);
            if finetune_adapter {
                assert_eq!(num(&m, "model.lora_rank="), u64::from(cfg.rank));
            }
        }
        Trainer::Axolotl => {
            assert!(c.starts_with("# Axolotl "), "{c}");
            let m = parse(c, "axolotl train config.yml", &stored("axolotl.flags"));
            assert_eq!(num(&m, "--micro-batch-size"), mb);
            assert_eq!(num(&m, "--gradient-accumulation-steps"), p.micro_batches());
            assert_eq!(num(&m, "--sequence-len"), u64::from(cfg.seq));
            assert_eq!(m.get("--adapter").map(String::as_str), finetune_adapter.then(|| cfg.method.as_str()));
            if finetune_adapter {
                assert_eq!(num(&m, "--lora-r"), u64::from(cfg.rank));
            }
            assert_eq!(p.pp, 1, "Axolotl plans have no pipeline");
            if p.tp > 1 {
                assert_eq!(num(&m, "--tensor-parallel-size"), p.tp);
                if cfg.zero_stage() >= 3 {
                    assert_eq!(num(&m, "--dp-shard-size") * p.tp, p.procs(), "{c}");
                }
            } else {
                assert!(!m.contains_key("--tensor-parallel-size"));
            }
            let ds = m.get("--deepspeed").map(String::as_str);
            if cfg.zero_stage() > 0 && !(p.tp > 1 && cfg.zero_stage() >= 3) {
                assert!(
                    ds.is_some_and(|d| d.starts_with(&format!("deepspeed_configs/zero{}", cfg.zero_stage()))),
                    "{c}"
                );
            } else {
                assert!(ds.is_none(), "{c}");
            }
            if p.procs() > 1 {
                assert_eq!(m.get("--launcher").map(String::as_str), Some("torchrun"));
                check_torchrun(&m, &p, c);
            } else {
                assert!(!m.contains_key("--launcher"));
            }
        }
        Trainer::Unsloth => {
            assert!(c.starts_with("# Unsloth "), "{c}");
            assert_eq!((p.tp, p.pp), (1, 1), "Unsloth plans are data parallel");
            assert!(
                c.contains(&format!("per_device_train_batch_size={mb}"))
                    && c.contains(&format!("max_seq_length={}", cfg.seq)),
                "{c}"
            );
            assert!(c.contains(&format!("gradient_accumulation_steps={}", p.micro_batches())), "{c}");
            if p.procs() > 1 {
                let m = parse(c, "torchrun ", &stored("unsloth.flags"));
                check_torchrun(&m, &p, c);
                assert!(m.contains_key("train.py"));
            } else {
                let m = parse(c, "python ", &stored("unsloth.flags"));
                assert!(m.contains_key("train.py"));
            }
        }
        // Pipeline stages run DeepSpeed's pipeline engine under its own launcher.
        Trainer::Deepspeed => {
            assert!(p.pp > 1, "only pipelined DeepSpeed plans leave accelerate: {c}");
            let m = parse(c, "deepspeed ", &stored("deepspeed.flags"));
            assert_eq!(num(&m, "--num_gpus"), p.gpus, "{c}");
            if p.instances > 1 {
                assert_eq!(num(&m, "--num_nodes"), p.instances, "{c}");
                assert!(m.contains_key("--no_ssh") && c.contains("$HEAD_IP"), "{c}");
            }
            assert!(m.contains_key("train.py") && m.contains_key("--deepspeed"), "{c}");
            assert!(c.contains(&format!("num_stages={}", p.pp)), "{c}");
            assert!(c.contains(&format!("\"train_micro_batch_size_per_gpu\": {mb}")), "{c}");
            assert!(c.contains(&format!("\"gradient_accumulation_steps\": {}", p.micro_batches())), "{c}");
            assert!(c.contains(&format!("\"stage\": {}", cfg.zero_stage().min(1))), "{c}");
        }
        Trainer::Hf | Trainer::Trl => unreachable!("accelerate: export::check_command"),
    }
}

/// Every export of a training answer checked through `export::check`;
/// returns the plans' (tp, pp) layouts.
fn exports(q: &str) -> Vec<(u64, u64)> {
    let a = answer(q);
    crate::export::texts::check(&a);
    let json = serde_json::to_value(&a).expect("JSON");
    for_answer(&a, catalog())
        .iter()
        .map(|e| {
            let offer = json["offers"]
                .as_array()
                .expect("offers")
                .iter()
                .find(|o| o["id"].as_str() == Some(&e.offer))
                .expect("the offer");
            (offer["tp"].as_u64().expect("tp"), offer["pp"].as_u64().expect("pp"))
        })
        .collect()
}

#[test]
fn each_stack_launches_its_own_command_with_the_plans_split() {
    // Jobs big enough to split layers where the stack can.
    let split = [
        "task=pretrain&model=llama-3.1-70b&trainer=megatron&nodes=2&zero=1&gc=selective",
        "task=pretrain&model=llama-3.1-70b&trainer=torchtitan&zero=0&gc=selective",
        "task=pretrain&model=llama-3.1-70b&trainer=torchtitan&zero=1",
        "task=finetune&model=llama-3.1-70b&method=lora&trainer=axolotl&zero=1",
    ];
    for q in split {
        let layouts = exports(q);
        assert!(!layouts.is_empty(), "{q} exports its pick");
        assert!(
            layouts.iter().any(|&(tp, pp)| tp > 1 || pp > 1),
            "{q}: some plan splits layers, so the degrees are checked"
        );
    }
    let single = [
        "task=finetune&model=llama-3.1-8b&method=qlora&trainer=unsloth",
        "task=finetune&model=llama-3.1-8b&method=lora&trainer=torchtune&gpus=2",
        "task=finetune&model=llama-3.1-8b&method=full&trainer=torchtune",
        "task=finetune&model=llama-3.1-8b&method=lora&trainer=axolotl&nodes=2&gpus=8",
        "task=finetune&model=qwen2.5-7b&method=full&trainer=unsloth&gpus=4",
    ];
    for q in single {
        assert!(!exports(q).is_empty(), "{q} exports its pick");
    }
}

#[test]
fn a_megatron_plan_that_splits_layers_says_so_in_its_flags() {
    // Megatron's distributed optimizer (zero=1) keeps whole layers per rank.
    let q = "task=pretrain&model=llama-3.1-70b&trainer=megatron&nodes=2&zero=1";
    let a = answer(q);
    let json = serde_json::to_value(&a).expect("JSON");
    let mut split = 0;
    for e in for_answer(&a, catalog()) {
        let offer = json["offers"]
            .as_array()
            .expect("offers")
            .iter()
            .find(|o| o["id"].as_str() == Some(&e.offer))
            .expect("the offer");
        let (tp, pp) = (offer["tp"].as_u64().expect("tp"), offer["pp"].as_u64().expect("pp"));
        if tp > 1 || pp > 1 {
            split += 1;
            assert!(
                e.command.contains(&format!(
                    "--tensor-model-parallel-size {tp} --pipeline-model-parallel-size {pp}"
                )),
                "{}",
                e.command
            );
        }
        assert!(
            e.skypilot_yaml.contains("git -C Megatron-LM checkout")
                && e.skypilot_yaml.contains("cd Megatron-LM"),
            "{}",
            e.skypilot_yaml
        );
        assert!(!e.command.contains("accelerate"), "{}", e.command);
    }
    assert!(split > 0, "a 70B pre-training plan on Megatron-LM splits layers somewhere");
}

/// A DeepSpeed plan with pipeline stages runs DeepSpeed's pipeline engine
/// under its own launcher, not `accelerate launch`, and installs DeepSpeed.
#[test]
fn deepspeed_pipeline_stages_use_the_deepspeed_launcher() {
    let mut pipelined = 0;
    for nodes in [1, 2] {
        // On 48 GB cards a 70B LoRA needs pipeline stages.
        // ZeRO-1: pipeline stages run with ZeRO stage < 2 only.
        let a = answer(&format!("task=finetune&model=llama-3.1-70b&method=lora&trainer=deepspeed&nodes={nodes}&tokens=1e7&gpu=l40s-48gb&zero=1"));
        let json = serde_json::to_value(&a).expect("json");
        for e in for_answer(&a, catalog()) {
            let offer = json["offers"]
                .as_array()
                .expect("offers")
                .iter()
                .find(|o| o["id"].as_str() == Some(&*e.offer))
                .expect("offer");
            if offer["pp"].as_u64() > Some(1) {
                pipelined += 1;
                assert!(e.command.lines().any(|l| l.starts_with("deepspeed --num_gpus ")), "{}", e.command);
                assert!(
                    !e.command.contains("accelerate launch")
                        && e.skypilot_yaml.contains("pip install deepspeed"),
                    "{}",
                    e.skypilot_yaml
                );
            }
        }
    }
    assert!(pipelined > 0, "a 70B LoRA plan under DeepSpeed uses pipeline stages somewhere");
}

#[test]
fn hf_and_deepspeed_keep_accelerate() {
    for t in ["hf", "deepspeed"] {
        let a = answer(&format!("task=finetune&model=llama-3.1-8b&method=full&zero=2&trainer={t}"));
        for e in for_answer(&a, catalog()) {
            assert!(e.command.lines().any(|l| l.starts_with("accelerate launch ")), "{}", e.command);
            assert!(e.skypilot_yaml.contains("pip install \"transformers=="), "{}", e.skypilot_yaml);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn generated_stack_launches_match_their_plans(
        trainer in prop::sample::select(vec!["megatron", "torchtitan", "torchtune", "axolotl", "unsloth"]),
        m in prop::sample::select(vec!["llama-3.1-8b", "qwen2.5-7b", "llama-3.1-70b"]),
        task in prop::sample::select(vec!["finetune", "pretrain"]),
        method in prop::sample::select(vec!["full", "lora", "qlora"]),
        zero in 0u8..4,
        nodes in 1u32..3,
        gc in prop::sample::select(vec!["none", "selective", "full"]),
        mb in 1u32..4,
    ) {
        let tokens = if task == "pretrain" { "&tokens=1e10" } else { "" };
        exports(&format!("task={task}&model={m}&method={method}&zero={zero}&nodes={nodes}&trainer={trainer}&gc={gc}&mb={mb}{tokens}"));
    }
}

/// A plan that counts the optimizer states (and parameters) as living in
/// CPU memory launches with DeepSpeed's offload: without the flags the
/// states stay on the GPU and a 14B full fine-tune on one H100 runs out of
/// memory. The accumulation is DeepSpeed's own flag, the plan's.
#[test]
fn offload_and_accumulation_reach_the_accelerate_launch() {
    let a = answer("task=finetune&model=qwen2.5-14b&method=full&zero=3&param_offload=1&optim_offload=1&tokens=1e8&gpu=h100-sxm-80gb&gpus=1&gbs=32");
    crate::export::texts::check(&a);
    let exports = for_answer(&a, catalog());
    assert!(!exports.is_empty());
    for e in exports {
        assert!(
            e.command.contains("--offload_optimizer_device cpu --offload_param_device cpu"),
            "{}",
            e.command
        );
        assert!(e.command.contains("--gradient_accumulation_steps 32"), "{}", e.command);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn generated_offloads_reach_the_accelerate_launch(
        trainer in prop::sample::select(vec!["hf", "deepspeed"]),
        m in prop::sample::select(vec!["llama-3.1-8b", "qwen2.5-14b"]),
        zero in 0u8..4,
        optim in any::<bool>(),
        param in any::<bool>(),
        gbs in prop::sample::select(vec![0u32, 16, 64]),
        nodes in 1u32..3,
    ) {
        let gbs = if gbs > 0 { format!("&gbs={gbs}") } else { String::new() };
        let q = format!(
            "task=finetune&model={m}&method=full&trainer={trainer}&zero={zero}&optim_offload={}&param_offload={}&nodes={nodes}&tokens=1e7{gbs}",
            u8::from(optim),
            u8::from(param)
        );
        // export::check_command asserts the offload and accumulation flags.
        exports(&q);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `gpus` (per instance) and `nodes` in the link are the shape every
    /// fitting training offer rents: instances of exactly that size, that
    /// many, every GPU one rank.
    #[test]
    fn a_training_link_with_gpus_rents_that_shape(
        task in prop::sample::select(vec!["finetune", "pretrain"]),
        m in prop::sample::select(vec!["llama-3.2-1b", "llama-3.1-8b", "qwen2.5-14b"]),
        method in prop::sample::select(vec!["full", "lora", "qlora"]),
        gpus in prop::sample::select(vec![1u32, 2, 4, 8]),
        nodes in 1u32..3,
        days in prop::sample::select(vec![0u32, 3]),
    ) {
        let days = if days > 0 { format!("&days={days}") } else { String::new() };
        let a = answer(&format!("task={task}&model={m}&method={method}&gpus={gpus}&nodes={nodes}&tokens=1e9{days}"));
        let json = serde_json::to_value(&a).expect("JSON");
        for o in json["offers"].as_array().expect("offers").iter().filter(|o| o["fits"].as_bool() == Some(true)) {
            prop_assert_eq!(o["gpus"].as_u64(), Some(u64::from(gpus)), "{}", o);
            prop_assert_eq!(o["instances"].as_u64(), Some(u64::from(nodes)), "{}", o);
            let ranks = ["dp", "tp", "pp"].iter().map(|k| o[*k].as_u64().expect("degree")).product::<u64>();
            prop_assert_eq!(ranks, u64::from(gpus * nodes), "{}", o);
        }
    }
}
