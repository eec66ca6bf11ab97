"""Measures, on a real GPU, the per-layer-pass time of small transformers in
PyTorch eager mode at batch 1, the regime where whichgpu's media estimator
says the host's kernel launches, not the GPU, set the speed
(`HOST_S_AR`, `HOST_S_DIFFUSION` in src/core/estimate/media/efficiency.rs).

Random weights (no downloads): an autoregressive decoder with a KV cache
(GPT-2-style layers, like MusicGen/Bark/XTTS decoders) and a bidirectional
transformer over a fixed sequence (like F5-TTS's DiT). Prints JSON.

Usage: python3 tests/device/host_overhead.py [out.json]
"""
import json
import sys
import time

import torch
import torch.nn.functional as F


class Layer(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x, cache=None, causal=False):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
        if cache is not None:
            if cache[0] is not None:
                k = torch.cat([cache[0], k], dim=2)
                v = torch.cat([cache[1], v], dim=2)
            cache[0], cache[1] = k, v
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal and cache is None)
        x = x + self.out(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def timed(fn, reps):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / reps


@torch.inference_mode()
def ar_decode(layers, d, heads, batch, steps, dtype):
    net = torch.nn.ModuleList([Layer(d, heads) for _ in range(layers)]).cuda().to(dtype)
    head = torch.nn.Linear(d, 2048).cuda().to(dtype)
    emb = torch.nn.Embedding(2048, d).cuda().to(dtype)

    def run():
        caches = [[None, None] for _ in range(layers)]
        tok = torch.zeros(batch, 1, dtype=torch.long, device="cuda")
        for _ in range(steps):
            x = emb(tok)
            for layer, c in zip(net, caches):
                x = layer(x, cache=c)
            logits = head(x[:, -1])
            # Sampling needs the token on the host side of the loop, as the
            # generation loops of these models do.
            tok = torch.multinomial(torch.softmax(logits.float(), -1), 1)
        torch.cuda.synchronize()

    t = timed(run, 3)
    return {"layers": layers, "hidden": d, "batch": batch, "steps": steps, "s_total": t,
            "ms_per_layer_pass": 1e3 * t / (steps * layers)}


@torch.inference_mode()
def dit_forward(layers, d, heads, batch, tokens, passes, dtype):
    net = torch.nn.ModuleList([Layer(d, heads) for _ in range(layers)]).cuda().to(dtype)
    x0 = torch.randn(batch, tokens, d, device="cuda", dtype=dtype)

    def run():
        for _ in range(passes):
            x = x0
            for layer in net:
                x = layer(x)
        torch.cuda.synchronize()

    t = timed(run, 3)
    return {"layers": layers, "hidden": d, "batch": batch, "tokens": tokens, "passes": passes, "s_total": t,
            "ms_per_layer_pass": 1e3 * t / (passes * layers)}


def main():
    out = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "ar": [], "dit": []}
    for layers, d, heads in [(24, 1024, 16), (30, 1024, 16)]:
        for batch in (1, 16, 64):
            out["ar"].append(ar_decode(layers, d, heads, batch, 200, torch.float16))
    for batch in (1, 2, 8):
        out["dit"].append(dit_forward(22, 1024, 16, batch, 1000, 32, torch.float16))
    text = json.dumps(out, indent=1)
    print(text)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
