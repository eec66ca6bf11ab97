//! A serving plan's layout: tensor-parallel groups inside a node, pipeline
//! stages across nodes, data-parallel attention and expert parallelism
//! (`engine_rules::Layout`: which of them an engine loads).

use super::super::config::Engine;
use super::engine_rules::Layout;

/// A way to run the job: `tp` GPUs per node in one tensor-parallel group,
/// `pp` nodes as pipeline stages; under data-parallel attention `dp`
/// groups of `tp` GPUs each attend over their own sequences, and the FFN
/// and experts run over all `tp × dp` GPUs of the stage, experts dealt out
/// whole where `ep` (expert parallel) (`engine_rules::Layout`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub ep: bool,
}

impl Plan {
    /// Tensor parallel `tp` over `pp` stages.
    pub fn tp_pp(tp: u32, pp: u32) -> Plan {
        Plan { tp, pp, dp: 1, ep: false }
    }

    /// How an engine uses `gpus` GPUs of one node: vLLM, SGLang and
    /// TensorRT-LLM shard tensors (tensor parallel); llama.cpp and HF
    /// transformers give each GPU a run of layers, which then work one after
    /// another (a pipeline within the node, [`Engine::splits_layers`]).
    pub fn in_node(engine: Engine, gpus: u32, nodes: u32) -> Plan {
        if engine.splits_layers() {
            Plan::tp_pp(1, gpus.max(1) * nodes.max(1))
        } else {
            Plan::tp_pp(gpus.max(1), nodes.max(1))
        }
    }

    /// A layout of one node's group over `nodes` stages (a layer split's group is its stages).
    pub fn of_layout(engine: Engine, l: Layout, nodes: u32) -> Plan {
        if engine.splits_layers() || (l.dp <= 1 && !l.ep) {
            Plan::in_node(engine, l.gpus(), nodes)
        } else {
            Plan { tp: l.tp.max(1), pp: nodes.max(1), dp: l.dp.max(1), ep: l.ep }
        }
    }

    /// The layout of one stage.
    pub fn layout(&self) -> Layout {
        Layout { tp: self.tp, dp: self.dp, ep: self.ep }
    }

    /// One stage of this plan (its group, without the pipeline).
    pub fn stage(&self) -> Plan {
        Plan { pp: 1, ..*self }
    }

    /// GPUs of one stage's group.
    pub fn group(&self) -> u32 {
        self.tp.max(1) * self.dp.max(1)
    }

    /// GPUs per node in this plan.
    pub fn per_node(&self, engine: Engine) -> u32 {
        if engine.splits_layers() {
            self.pp
        } else {
            self.group()
        }
    }

    pub fn gpus(&self) -> u32 {
        self.group() * self.pp
    }
}
