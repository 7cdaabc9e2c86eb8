"""The cases of the workloads W1-W9, W11-W16 of bench/README.md (W10 is latency.py), with what
each moves and computes, so a time can be read as a fraction of the machine's limits, and the
tolerance a peer's answer must meet against tensorjit's before it is timed.

Tolerance: max |peer - tensorjit| <= tolerance * max |tensorjit| over every output element. It is
near f32's rounding for elementwise chains (peers may contract a*b + c into an FMA or use other
exp/tanh approximations), and wider where the summation order is free (reductions, products).
Random draws (check="distribution") differ element by element between generators: their mean and
standard deviation must agree within tolerance times tensorjit's standard deviation.
"""
from dataclasses import dataclass

KI, MI = 1 << 10, 1 << 20


@dataclass(frozen=True)
class Case:
    workload: str       # the name the workers know: W1, W3a, W4sum0, W8mlp, ...
    dtype: str          # f32 or f64
    dims: tuple
    title: str          # what the table shows
    bytes: int = 0      # least memory traffic of one call (inputs read once, outputs written once)
    flops: int = 0      # floating-point operations of one call, for the product workloads
    tolerance: float = 1e-6
    quick: bool = False  # part of --quick's reduced set
    check: str = "values"  # or "distribution": random draws, compared by their moments

    @property
    def group(self):
        """W1 ... W11: what --only selects."""
        digits = self.workload[1:]
        return "W" + digits[:len(digits) - len(digits.lstrip("0123456789"))]

    @property
    def key(self):
        return f"{self.workload}:{self.dtype}:{'x'.join(map(str, self.dims))}"


def size_text(count):
    for unit, scale in (("Mi", MI), ("Ki", KI)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return str(count)


def all_cases():
    cases = []
    for n, quick in ((64 * KI, False), (MI, True), (16 * MI, False)):
        cases.append(Case("W1", "f32", (n,), f"W1 max(a*b+c,0)*0.5, {size_text(n)}", bytes=16 * n, quick=quick))
    n = 16 * MI
    cases.append(Case("W2", "f32", (n,), f"W2 tanh·sigmoid+exp, {size_text(n)}", bytes=8 * n, tolerance=1e-5,
                      quick=True))
    side = 4096
    cases += [
        Case("W3a", "f32", (side, side), "W3 a + b[None,:]*c[:,None], 4096²", bytes=8 * side * side, quick=True),
        Case("W3b", "f32", (side, side), "W3 a + b.T, 4096²", bytes=12 * side * side),
        Case("W4sum", "f32", (16 * MI,), "W4 sum, 16 Mi", bytes=4 * 16 * MI, tolerance=1e-4, quick=True),
        Case("W4sum0", "f32", (side, side), "W4 sum axis 0, 4096²", bytes=4 * side * side, tolerance=1e-5),
        Case("W4sum1", "f32", (side, side), "W4 sum axis 1, 4096²", bytes=4 * side * side, tolerance=1e-5),
        Case("W4max", "f32", (side, side), "W4 max, 4096²", bytes=4 * side * side),
        Case("W5", "f32", (side, side), "W5 softmax, 4096² f32", bytes=8 * side * side, tolerance=1e-5,
             quick=True),
        Case("W5", "f64", (side, side), "W5 softmax, 4096² f64", bytes=16 * side * side, tolerance=1e-12),
        Case("W6", "f32", (side, 1024), "W6 layernorm, 4096×1024", bytes=8 * side * 1024, tolerance=1e-5,
             quick=True),
    ]
    for dtype in ("f32", "f64"):
        for m, k, n in ((64, 64, 64), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
                        (256, 784, 512)):
            shape = f"{m}³" if m == k == n else f"{m}×{k}×{n}"
            cases.append(Case("W7", dtype, (m, k, n), f"W7 matmul {shape} {dtype}", flops=2 * m * k * n,
                              tolerance=1e-5 if dtype == "f32" else 1e-13,
                              quick=(m, dtype) == (512, "f32")))
    cases += [
        Case("W8dense", "f32", (256, 784, 512), "W8 relu(x@W+b), 256×784→512", flops=2 * 256 * 784 * 512,
             tolerance=1e-5, quick=True),
        Case("W8mlp", "f32", (256, 784, 512, 10), "W8 MLP 784-512-10, batch 256",
             flops=2 * 256 * (784 * 512 + 512 * 10), tolerance=1e-5),
        Case("W9", "f32", (10 * MI,), "W9 Adam step, 10 Mi params", bytes=7 * 4 * 10 * MI, tolerance=1e-6,
             quick=True),
        Case("W11", "f32", (8,), "W11 a*b+c, 8 elements (per eval)", quick=True),
        Case("W14cumsum", "f32", (16 * MI,), "W14 cumsum, 16 Mi", bytes=8 * 16 * MI, tolerance=1e-3),
        Case("W14sort", "f32", (16 * MI,), "W14 sort (values and positions), 16 Mi", bytes=16 * 16 * MI,
             tolerance=0),
        Case("W14sortvalues", "f32", (16 * MI,), "W14 sort (values only), 16 Mi", bytes=8 * 16 * MI, tolerance=0),
        Case("W14topk", "f32", (side, side), "W14 topk(10) over rows, 4096²", bytes=4 * side * side, tolerance=0),
    ]
    # W14 index_add: the gradient of W12's word table, 32×128 rows of 384 added by id into zeros of
    # 30522×384 (its least traffic: the zeros written, the rows and ids read, the touched rows
    # read and written once more).
    rows, hidden, vocabulary = 32 * 128, 384, 30522
    cases.append(Case("W14indexadd", "f32", (rows, hidden, vocabulary),
                      "W14 index_add(zeros(30522×384), 0, ids, rows), 4096 rows of 384",
                      bytes=4 * vocabulary * hidden + 8 * rows + 4 * 3 * rows * hidden, tolerance=1e-6))
    # W14 concat: 4 parts of 4 Mi f32 joined (the C++ loop peer is a memcpy of each part to its
    # place); the same with each part computed by an elementwise op, beside those ops writing four
    # outputs of their own (what a concat fused into its parts' kernels should cost).
    parts, n = 4, 4 * MI
    cases += [
        Case("W14concat", "f32", (parts, n), "W14 concat of 4 parts of 4 Mi f32", bytes=8 * parts * n, tolerance=0,
             quick=True),
        Case("W14concatops", "f32", (parts, n), "W14 concat(a*2, b+1, c*2, d+1), 4 × 4 Mi f32", bytes=8 * parts * n),
        Case("W14separate", "f32", (parts, n), "W14 a*2, b+1, c*2, d+1 as four outputs, 4 × 4 Mi f32",
             bytes=8 * parts * n),
    ]
    # W12: MiniLM's embedding block (all-MiniLM-L6-v2's tables: 30522 words, 512 positions, hidden
    # 384), batch 32 x 128 tokens; its least traffic reads each token's two gathered rows and its
    # id once and writes the result once. W12rows is that traffic alone (the rows summed, no
    # layernorm): its C++ loop is the limit W12 is measured against.
    batch, tokens, hidden = 32, 128, 384
    traffic = 4 * 3 * batch * tokens * hidden + 8 * batch * tokens
    cases += [
        Case("W12", "f32", (batch, tokens, 30522, 512, hidden),
             "W12 embedding block: layernorm(take(words, ids) + take(positions, pos) + type), 32×128×384",
             bytes=traffic, tolerance=1e-5, quick=True),
        Case("W12rows", "f32", (batch, tokens, 30522, 512, hidden),
             "W12 its rows alone: take(words, ids) + take(positions, pos) + type, 32×128×384", bytes=traffic),
    ]
    # W15: a training step of the W8 MLP (forward, gradients, Adam); the backward passes of W5 and
    # W6, whose least traffic reads the inputs and dy and writes the gradients once.
    cases += [
        Case("W15step", "f32", (256, 784, 512, 10), "W15 training step, MLP 784-512-10, batch 256, Adam",
             flops=2 * 256 * (2 * 784 * 512 + 3 * 512 * 10), tolerance=2e-3, quick=True),
        Case("W15softmax", "f32", (side, side), "W15 softmax backward, 4096² f32", bytes=12 * side * side,
             tolerance=1e-5),
        Case("W15layernorm", "f32", (side, 1024), "W15 layernorm backward (dx, dgamma, dbeta), 4096×1024",
             bytes=4 * (3 * side * 1024 + 3 * 1024), tolerance=1e-4),
    ]
    # W16: all-MiniLM-L6-v2 (6 layers, hidden 384, FFN 1536) on ids already tokenized; its flops are
    # the products': per token and layer 2·(4·384² + 2·384·1536) for the dense layers and 4·384·T
    # for the attention's scores and context.
    for sentences, tokens in ((1, 16), (1, 128), (32, 128)):
        flops = sentences * tokens * 6 * (2 * (4 * 384 * 384 + 2 * 384 * 1536) + 4 * 384 * tokens)
        cases.append(Case("W16", "f32", (sentences, tokens), f"W16 all-MiniLM-L6-v2, {sentences}×{tokens} tokens",
                          flops=flops, tolerance=1e-4, quick=(sentences, tokens) == (1, 128)))
    # W13: random numbers drawn in the kernel (a new key each call), and dropout's mask fused into
    # its use against the same pass without the mask (x * 2).
    n = 16 * MI
    cases += [
        Case("W13uniform", "f32", (n,), "W13 uniform, 16 Mi f32", bytes=4 * n, tolerance=1e-2,
             check="distribution", quick=True),
        Case("W13normal", "f32", (n,), "W13 normal, 16 Mi f32", bytes=4 * n, tolerance=1e-2, check="distribution"),
        Case("W13dropout", "f32", (n,), "W13 x * (uniform > 0.1), 16 Mi f32", bytes=8 * n, tolerance=1e-2,
             check="distribution"),
        Case("W13scale", "f32", (n,), "W13 x * 2 (dropout's pass without the mask), 16 Mi f32", bytes=8 * n),
    ]
    return cases


def select(quick, only):
    """The cases to run: --quick's reduced set or all, narrowed to the groups in `only` (W1, W5, ...)."""
    chosen = [case for case in all_cases() if case.quick or not quick]
    if only:
        chosen = [case for case in chosen if case.group in only]
    return chosen
