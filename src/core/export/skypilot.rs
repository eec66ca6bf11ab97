//! A SkyPilot task for one offer's plan, written by hand (a small fixed
//! shape; no YAML library in the Wasm build). It uses only fields of
//! SkyPilot's task schema (skypilot-org/skypilot sky/utils/schemas.py
//! `get_task_schema`, `get_resources_schema`, `get_service_schema`; the
//! list checked against is `tests/data/export/skypilot-fields.txt`).
//! `cloud`, `region` and `instance_type` are written only where the
//! catalog knows them in SkyPilot's terms; a provider without a SkyPilot
//! cloud is said plainly in a comment and in [`super::Export::unsupported`].

use std::fmt::Write;

use super::command::{engine, engine_on};
use super::install::{self, pinned};
use super::launch::{base_port, Launch};
use super::names::{accelerator_for, cloud_for};
use crate::core::config::{Engine, Task};

/// The task's YAML, and why SkyPilot cannot launch it as it stands (if so).
pub fn task(l: &Launch) -> (String, Option<String>) {
    let o = l.offer;
    let mut y = String::new();
    let mut unsupported = None;
    let _ = writeln!(
        y,
        "# whichgpu: SkyPilot task for offer {} ({} {} × {}, {})",
        o.id,
        o.provider,
        o.gpus,
        o.gpu,
        one_line(&o.instance)
    );
    let cloud = cloud_for(&o.provider);
    if cloud.is_none() {
        let why = format!(
            "provider `{}` has no SkyPilot cloud: SkyPilot cannot launch this offer; resources name no cloud",
            o.provider
        );
        let _ = writeln!(y, "# unsupported: {why}");
        if let Some(line) = l.serving().then(|| install::docker_run(l, &engine(l), None)).flatten() {
            // The same engine arguments in the engine's own image, to run
            // on the rented instance itself.
            let _ = writeln!(y, "# on the instance itself, the engine's image with the same arguments:");
            let _ = writeln!(y, "# {line}");
        }
        unsupported = Some(why);
    }
    if accelerator_for(&o.gpu).is_none() {
        // Without `accelerators` SkyPilot would start a machine with no GPU:
        // the task cannot get this plan as it stands.
        let why = format!(
            "GPU `{}` has no SkyPilot accelerator name in whichgpu's table: the task asks for \
            no GPU until you add one",
            o.gpu
        );
        let _ = writeln!(y, "# unsupported: {why}");
        unsupported.get_or_insert(why);
    }
    let (nodes, services) = l.nodes_and_services();
    if services > 1 {
        let _ = writeln!(y, "# {services} copies of this task behind SkyServe's load balancer: sky serve up");
    }
    let _ = writeln!(y, "name: {}", task_name(&o.id));
    y.push_str("resources:\n");
    if let Some(c) = cloud {
        let _ = writeln!(y, "  cloud: {c}");
        if is_region(&o.region) {
            let _ = writeln!(y, "  region: {}", o.region);
        } else {
            let _ = writeln!(
                y,
                "  # the catalog's region `{}` is not a cloud region name: SkyPilot picks one",
                one_line(&o.region)
            );
        }
        if is_token(&o.instance) {
            let _ = writeln!(y, "  instance_type: {}", o.instance);
        } else {
            let _ = writeln!(
                y,
                "  # the catalog's instance `{}` is not an instance type name: SkyPilot picks one",
                one_line(&o.instance)
            );
        }
    }
    match accelerator_for(&o.gpu) {
        Some((name, seen)) => {
            if !seen {
                let _ = writeln!(
                    y,
                    "  # `{name}`: not seen in a stored SkyPilot catalog; `sky show-gpus` \
                    lists the exact name"
                );
            }
            let _ = writeln!(y, "  accelerators: {name}:{}", o.gpus);
        }
        None => {
            let _ = writeln!(
                y,
                "  # GPU `{}` has no SkyPilot accelerator name in whichgpu's table: accelerators left out",
                o.gpu
            );
        }
    }
    if let Some(bytes) = l.offer.host_bytes {
        // SkyPilot reads a bare number as GiB and `N+` as at least that
        // (sky/resources.py `MEMORY_SIZE_UNITS`, docs.skypilot.co YAML spec
        // `memory: 32+`): a machine it picks, or checks, holds the states.
        let gib = (bytes / crate::core::units::GIB).ceil();
        let _ = writeln!(
            y,
            "  # the offloaded training states need about {gib} GiB of CPU memory per \
            instance (DeepSpeed's estimate)"
        );
        let _ = writeln!(y, "  memory: {gib}+");
    }
    let _ = writeln!(y, "  use_spot: {}", o.spot);
    let _ = writeln!(y, "  disk_size: {}", l.disk_size_gb());
    let port = base_port(l.cfg.engine);
    if l.serving() {
        let _ = writeln!(y, "  ports: {port}");
    }
    let _ = writeln!(y, "num_nodes: {nodes}");
    if matches!(l.cfg.task, Task::Serve | Task::Generate) {
        y.push_str("envs:\n");
        match (l.served_repo(), l.checkpoint.as_ref()) {
            (Some(repo), _) => {
                let _ = writeln!(
                    y,
                    "  # the catalog's repository (huggingface.co/{repo}); pass --env \
                    MODEL=<repository or path> for another\n  MODEL: {repo}"
                );
            }
            (None, Some(c)) if !c.repo.is_empty() => {
                let w = &l.answer.weight_format;
                let _ = writeln!(
                    y,
                    "  # the plan's {w} weights are a checkpoint of their own: pass --env MODEL=<a {w} \
                        conversion of {}> (the catalog's repository is the bf16 one)\n  MODEL: null",
                    c.repo
                );
            }
            (None, c) => {
                let why = c
                    .map(|c| one_line(&c.why_none))
                    .filter(|w| !w.is_empty())
                    .unwrap_or_else(|| "not a catalog model".to_string());
                let _ = writeln!(
                    y,
                    "  # no repository in the catalog ({why}): pass --env MODEL=<repository \
                    or path>\n  MODEL: null"
                );
            }
        }
    }
    if services > 1 {
        let _ = writeln!(y, "service:\n  readiness_probe: /health\n  replicas: {services}");
    }
    y.push_str("setup: |\n");
    for line in setup(l) {
        let _ = writeln!(y, "  {line}");
    }
    y.push_str("run: |\n");
    for line in run(l, port) {
        let _ = writeln!(y, "  {line}");
    }
    (y, unsupported)
}

/// transformers' package (the engine table's `hf` row).
fn hf_package() -> &'static str {
    crate::core::engines::launch(Engine::Hf).package.unwrap_or_default()
}

fn setup(l: &Launch) -> Vec<String> {
    let v = pinned(&l.engine_version);
    let pin = |pkg: &str| match &v {
        Some(v) => format!("pip install \"{pkg}=={v}\""),
        None => format!(
            "pip install {pkg}  # the catalog names version `{}`: pin the one you test",
            one_line(&l.engine_version)
        ),
    };
    match l.cfg.task {
        Task::Finetune | Task::Pretrain
            if !l.media_training && super::command::stack(l.cfg.trainer).is_some() =>
        {
            super::command::stack(l.cfg.trainer).map(|s| s.setup).unwrap_or_default()
        }
        Task::Finetune | Task::Pretrain => {
            let mut s = vec![
                if l.media_training { "pip install diffusers peft".to_string() } else { pin(hf_package()) },
                "pip install accelerate".to_string(),
            ];
            if super::command::uses_deepspeed(l) {
                s.push("pip install deepspeed".to_string());
            }
            s
        }
        Task::Generate => vec!["pip install diffusers".to_string()],
        Task::Serve if install::setup(l).is_some() => install::setup(l).unwrap_or_default(),
        Task::Serve => match crate::core::engines::launch(l.cfg.engine).package {
            Some(pkg) if l.cfg.engine == Engine::Vllm && l.nodes_per_replica() > 1 => {
                vec![pin(pkg), "pip install ray".to_string()]
            }
            Some(pkg) => vec![pin(pkg)],
            None => {
                vec![format!(
                    "# llama.cpp {}: build llama-server with CUDA from its repository, or use a \
                    release build",
                    one_line(&l.engine_version)
                )]
            }
        },
    }
}

fn run(l: &Launch, port: u32) -> Vec<String> {
    let mut lines = Vec::new();
    let copies = l.replicas_per_node();
    if copies > 1 {
        let per = l.gpus_per_replica();
        for i in 0..copies {
            let devices: Vec<String> = (i * per..(i + 1) * per).map(|d| d.to_string()).collect();
            let c = engine_on(l, port + i);
            if i == 0 {
                lines.extend(c.notes.iter().map(|n| format!("# {n}")));
                lines.push(format!(
                    "# SkyServe probes port {port}: put a load balancer over the {copies} \
                    ports to use every copy"
                ));
            }
            // ROCm selects GPUs by HIP_VISIBLE_DEVICES (rocm.docs.amd.com
            // conceptual/gpu-isolation.html), passed into the container.
            match install::from_image(l)
                .then(|| {
                    install::docker_run(l, &c, Some(&format!("HIP_VISIBLE_DEVICES={}", devices.join(","))))
                })
                .flatten()
            {
                Some(line) => lines.push(format!("{line} &")),
                None => {
                    lines.push(format!("CUDA_VISIBLE_DEVICES={} {} &", devices.join(","), c.argv.join(" ")))
                }
            }
        }
        lines.push("wait".to_string());
        return lines;
    }
    if !l.serving() && l.offer.instances > 1 {
        if l.cfg.is_training() {
            lines.push("HEAD_IP=$(echo \"$SKYPILOT_NODE_IPS\" | head -n1)".to_string());
        } else {
            // A batch job spread over instances for its deadline: no node
            // waits on another, each takes its share of the items.
            lines.push(format!(
                "# {} nodes share the job: node $SKYPILOT_NODE_RANK takes the items whose index modulo \
                    $SKYPILOT_NUM_NODES is its rank",
                l.offer.instances
            ));
        }
    }
    if install::from_image(l) {
        let c = engine(l);
        lines.extend(c.notes.iter().map(|n| format!("# {n}")));
        if l.nodes_per_replica() > 1 {
            lines.push(
                "# one copy over several nodes in the ROCm image: start Ray inside the container on \
                every node first (not scripted here)"
                    .to_string(),
            );
        }
        lines.extend(install::docker_run(l, &c, None));
        return lines;
    }
    if l.serving() && l.nodes_per_replica() > 1 && l.cfg.engine == Engine::Vllm {
        // One copy over several nodes: vLLM's Ray cluster (the first node
        // leads and serves, the others join and wait), as the engine's
        // multi-node guide starts it; serving waits until every node joined.
        lines.extend(
            [
                "HEAD_IP=$(echo \"$SKYPILOT_NODE_IPS\" | head -n1)",
                "if [ \"$SKYPILOT_NODE_RANK\" != \"0\" ]; then ray start --address=$HEAD_IP:6379 --block; \
                    exit 0; fi",
                "ray start --head --port=6379",
                "until python3 -c \"import os, sys, ray; ray.init(address='auto'); sys.exit(sum(n['Alive'] \
                    for n in ray.nodes()) < int(os.environ['SKYPILOT_NUM_NODES']))\"; do sleep 5; done",
            ]
            .map(String::from),
        );
    }
    if let Some(dir) = super::command::stack(l.cfg.trainer)
        .filter(|_| l.cfg.is_training() && !l.media_training)
        .and_then(|s| s.workdir)
    {
        lines.push(format!("cd {dir}"));
    }
    lines.extend(engine(l).render().lines().map(str::to_string));
    lines
}

/// A cloud region id: lower-case letters, digits and dashes, with a digit
/// (`us-east-1`, `eastus2`, `eu-north1`); catalog labels such as
/// `unspecified` or `US (multiple)` are not.
fn is_region(r: &str) -> bool {
    !r.is_empty()
        && r.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && r.chars().any(|c| c.is_ascii_digit())
}

/// An instance type name: one token of letters, digits, `.`, `_` and `-`.
fn is_token(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn task_name(id: &str) -> String {
    let clean: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c.to_ascii_lowercase() } else { '-' })
        .collect();
    format!("whichgpu-{clean}")
}

/// Text for a comment: one line, no characters YAML would read otherwise.
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}
