"""The workloads of bench/README.md for the Python peers: NumPy, numexpr, JAX, PyTorch and ONNX Runtime
(W16 only, bench/peers/minilm_peers.py).

Each is written as that library's users write it. `prepare(peer, workload, dtype, dims)` returns
(run, outputs): run() computes once and waits for the result; outputs() gives the last results as
NumPy arrays for the driver's check. Unsupported raises Unsupported with the reason.
"""
import math
import os

import numpy as np

from bench_inputs import embedding_ids, make_input
import minilm_peers

ADAM = dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, step=10)


class Unsupported(Exception):
    pass


# W13: random draws (each peer's own generator) and dropout's mask, with its baseline x * 2.
RANDOM = ("W13uniform", "W13normal", "W13dropout", "W13scale")
DROPOUT_P = 0.1
# W14's concat of 4 parts, the same with each part an elementwise op, and those ops alone.
CONCAT = ("W14concat", "W14concatops", "W14separate")
# W12: MiniLM's embedding block, and its gathered rows summed alone (what reading them costs).
EMBEDDING = ("W12", "W12rows")


def concat_functions(concatenate):
    """W14's concat workloads over an array library's concatenate (np.concatenate, torch.cat)."""
    return {
        "W14concat": lambda *parts: concatenate(parts),
        "W14concatops": lambda a, b, c, d: concatenate((a * 2, b + 1, c * 2, d + 1)),
        "W14separate": lambda a, b, c, d: (a * 2, b + 1, c * 2, d + 1),
    }


# W14 index_add's table: W12's words.
W14_VOCABULARY = 30522


def index_add_numpy(rows, ids, vocabulary):
    """W14 index_add in NumPy: unbuffered adds at repeated ids (np.add.at) into fresh zeros."""
    table = np.zeros((vocabulary, rows.shape[1]), dtype=rows.dtype)
    np.add.at(table, ids, rows)
    return table


def embedding_functions(take, layernorm):
    """W12 over a library's row gather (take(table, ids): the rows of table at ids) and its layernorm
    (x, gamma, beta, eps); BERT's eps, 1e-12."""
    def rows(word, position, type_row, gamma, beta, ids, positions):
        return take(word, ids) + take(position, positions) + type_row

    def block(word, position, type_row, gamma, beta, ids, positions):
        return layernorm(rows(word, position, type_row, gamma, beta, ids, positions), gamma, beta, 1e-12)

    return {"W12rows": rows, "W12": block}


def adam_step(sqrt, p, g, m, v):
    """PyTorch's Adam formula (no amsgrad, no weight decay) as array expressions."""
    a = ADAM
    correction1 = 1 - a["beta1"] ** a["step"]
    correction2 = 1 - a["beta2"] ** a["step"]
    m1 = m + (g - m) * (1 - a["beta1"])
    v1 = v * a["beta2"] + g * g * (1 - a["beta2"])
    p1 = p - (m1 / (sqrt(v1) / math.sqrt(correction2) + a["eps"])) * (a["lr"] / correction1)
    return p1, m1, v1


def inputs_for(workload, dtype, d):
    """The input arrays of a workload, in the order every peer (C++ included) makes them."""
    def x(stream, shape, positive=False):
        return make_input(stream, shape, dtype, positive)

    if workload in ("W1", "W11"):
        return [x(1, (d[0],)), x(2, (d[0],)), x(3, (d[0],))]
    if workload in ("W2", "W4sum", "W14cumsum", "W14sort", "W14sortvalues"):
        return [x(1, (d[0],))]
    if workload == "W14topk":
        return [x(1, (d[0], d[1]))]
    if workload in CONCAT:
        return [x(stream, (d[1],)) for stream in range(1, d[0] + 1)]
    if workload == "W14indexadd":  # rows, hidden, vocabulary
        return [x(1, (d[0], d[1])), embedding_ids(6, (d[0],), d[2])]
    if workload in EMBEDDING:  # batch, tokens, vocabulary, positions, hidden; positions as BERT's [1, tokens]
        batch, tokens, vocabulary, positions, hidden = d
        return [x(1, (vocabulary, hidden)), x(2, (positions, hidden)), x(3, (hidden,)), x(4, (hidden,)),
                x(5, (hidden,)), embedding_ids(6, (batch, tokens), vocabulary), np.arange(tokens, dtype=np.int64)[None, :]]
    if workload == "W3a":
        return [x(1, (d[0], d[1])), x(2, (d[1],)), x(3, (d[0],))]
    if workload == "W3b":
        return [x(1, (d[0], d[1])), x(2, (d[1], d[0]))]
    if workload in ("W4sum0", "W4sum1", "W4max", "W5"):
        return [x(1, (d[0], d[1]))]
    if workload == "W6":
        return [x(1, (d[0], d[1])), x(2, (d[1],)), x(3, (d[1],))]
    if workload == "W7":
        return [x(1, (d[0], d[1])), x(2, (d[1], d[2]))]
    if workload == "W8dense":
        return [x(1, (d[0], d[1])), x(2, (d[1], d[2])), x(3, (d[2],))]
    if workload == "W8mlp":
        return [x(1, (d[0], d[1])), x(2, (d[1], d[2])), x(3, (d[2],)), x(4, (d[2], d[3])), x(5, (d[3],))]
    if workload == "W9":
        return [x(1, (d[0],)), x(2, (d[0],)), x(3, (d[0],)), x(4, (d[0],), positive=True)]
    if workload in RANDOM:
        return [x(1, (d[0],))]
    if workload == "W15step":  # the W8 MLP's inputs and parameters, then the labels
        # The parameters at nn.Linear's initial scale, uniform in ±1/sqrt(fan_in) (bench/README.md).
        labels = ((x(6, (d[0],)) + 1) * 5).astype(np.int64)
        data, w1, b1, w2, b2 = inputs_for("W8mlp", dtype, d)
        first, second = (np.asarray(1 / math.sqrt(fan_in), dtype) for fan_in in (d[1], d[2]))
        return [data, w1 * first, b1 * first, w2 * second, b2 * second, labels]
    if workload == "W15softmax":
        return [x(1, (d[0], d[1])), x(2, (d[0], d[1]))]
    if workload == "W15layernorm":
        return inputs_for("W6", dtype, d) + [x(4, (d[0], d[1]))]
    raise Unsupported(f"unknown workload {workload}")


def array_functions(xp, relu, sigmoid, softmax_max, transpose):
    """The workloads over an array module: NumPy, jax.numpy and torch share these spellings."""
    def layernorm(x, gamma, beta, eps=1e-5):
        centred = x - x.mean(-1, keepdims=True)
        variance = (centred * centred).mean(-1, keepdims=True)
        return centred / xp.sqrt(variance + eps) * gamma + beta

    def softmax(x):
        e = xp.exp(x - softmax_max(x))
        return e / e.sum(-1, keepdims=True)

    return {
        "W1": lambda a, b, c: relu(a * b + c) * 0.5,
        "W2": lambda x: xp.tanh(x) * sigmoid(x) + xp.exp(-x * x),
        "W3a": lambda a, b, c: a + b[None, :] * c[:, None],
        "W3b": lambda a, b: a + transpose(b),
        "W4sum": lambda x: x.sum(),
        "W4sum0": lambda x: x.sum(0),
        "W4sum1": lambda x: x.sum(1),
        "W4max": lambda x: x.max(),
        "W5": softmax,
        "W6": layernorm,
        "W7": lambda a, b: a @ b,
        "W8dense": lambda x, w, b: relu(x @ w + b),
        "W8mlp": lambda x, w1, b1, w2, b2: relu(x @ w1 + b1) @ w2 + b2,
        "W9": lambda p, g, m, v: adam_step(xp.sqrt, p, g, m, v),
        "W11": lambda a, b, c: a * b + c,
    }


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def numpy_peer(threads):
    functions = array_functions(np, lambda v: np.maximum(v, 0), lambda v: 1 / (1 + np.exp(-v)),
                                lambda v: v.max(-1, keepdims=True), lambda v: v.T)

    functions["W14cumsum"] = np.cumsum
    functions.update(concat_functions(np.concatenate))
    functions.update(embedding_functions(lambda table, ids: table[ids], functions["W6"]))
    functions["W14indexadd"] = lambda rows, ids: index_add_numpy(rows, ids, W14_VOCABULARY)
    functions["W14sort"] = np.sort  # its default kind: x86-simd-sort's AVX-512 quicksort from NumPy 1.26
    functions["W14sortvalues"] = np.sort
    rng = np.random.default_rng(0)
    functions.update({
        "W13uniform": lambda x: rng.random(x.shape, dtype=np.float32),
        "W13normal": lambda x: rng.standard_normal(x.shape, dtype=np.float32),
        "W13dropout": lambda x: x * (rng.random(x.shape, dtype=np.float32) > DROPOUT_P),
        "W13scale": lambda x: x * np.float32(2),
    })

    def prepare(workload, dtype, d):
        if workload == "W14topk":
            raise Unsupported("NumPy has no topk")
        if workload.startswith("W15"):
            raise Unsupported("NumPy has no gradients")
        arrays = inputs_for(workload, dtype, d)
        function = functions[workload]
        return (lambda: function(*arrays)), (lambda result: [np.asarray(r) for r in as_tuple(result)])

    # Debian's NumPy calls the BLAS the libblas.so.3 alternative points to (OpenBLAS when installed).
    blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    return prepare, f"NumPy {np.__version__}, BLAS {blas}"


def numpy_sort_peer(threads):
    """bench/.venv's NumPy, for W14's sort alone: from NumPy 1.26, np.sort is x86-simd-sort's
    AVX-512 quicksort on CPUs that have it, which Debian's 1.24 (the NumPy peer) lacks."""
    def prepare(workload, dtype, d):
        if workload not in ("W14sort", "W14sortvalues"):
            raise Unsupported("runs W14's sorts only; the NumPy peer runs the rest")
        arrays = inputs_for(workload, dtype, d)
        return (lambda: np.sort(*arrays)), (lambda result: [np.asarray(result)])

    return prepare, f"NumPy {np.__version__} (bench/.venv), np.sort only"


def numexpr_peer(threads):
    import numexpr

    numexpr.set_num_threads(threads)
    a = ADAM
    correction1 = 1 - a["beta1"] ** a["step"]
    correction2 = 1 - a["beta2"] ** a["step"]
    # numexpr evaluates one expression string per output; W9 then needs three. A float literal in
    # the string would make numexpr compute in f64, so constants are passed as variables of the
    # inputs' dtype.
    constants = {"half": 0.5, "keep2": a["beta2"], "take1": 1 - a["beta1"],
                 "take2": 1 - a["beta2"], "root2": math.sqrt(correction2), "eps": a["eps"],
                 "step_size": a["lr"] / correction1}
    expressions = {
        "W1": ["where(a * b + c >= 0, a * b + c, 0) * half"],
        "W2": ["tanh(x) * (1 / (1 + exp(-x))) + exp(-x * x)"],
        "W3a": ["a + b2 * c2"],
        "W3b": ["a + bt"],
        "W4sum": ["sum(x)"],
        "W9": ["m + (g - m) * take1", "v * keep2 + g * g * take2", "p - (m1 / (sqrt(v1) / root2 + eps)) * step_size"],
        "W11": ["a * b + c"],
    }
    names = {"W1": "abc", "W11": "abc", "W2": "x", "W4sum": "x", "W3a": ["a", "b2", "c2"], "W3b": ["a", "bt"],
             "W9": ["p", "g", "m", "v"]}

    def prepare(workload, dtype, d):
        if workload not in expressions:
            raise Unsupported("numexpr evaluates elementwise expressions and full sums only")
        arrays = inputs_for(workload, dtype, d)
        if workload == "W3a":
            arrays = [arrays[0], arrays[1][None, :], arrays[2][:, None]]
        if workload == "W3b":
            arrays = [arrays[0], arrays[1].T]
        variables = dict(zip(names[workload], arrays))
        variables.update({name: np.dtype(dtype).type(value) for name, value in constants.items()})
        outputs = ("m1", "v1", "p1") if workload == "W9" else ("y",)

        def run():
            scope = dict(variables)
            for text, output in zip(expressions[workload], outputs):
                scope[output] = numexpr.evaluate(text, local_dict=scope)
            return (scope["p1"], scope["m1"], scope["v1"]) if workload == "W9" else scope["y"]

        return run, (lambda result: [np.asarray(r, dtype=dtype) for r in as_tuple(result)])

    return prepare, f"numexpr {numexpr.__version__}, {threads} thread(s)"


def jax_peer(threads):
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)  # for the f64 cases; f32 inputs stay f32
    functions = array_functions(jnp, jax.nn.relu, jax.nn.sigmoid, lambda v: v.max(-1, keepdims=True),
                                lambda v: v.T)
    functions["W14cumsum"] = jnp.cumsum
    functions.update(concat_functions(jnp.concatenate))
    functions.update(embedding_functions(lambda table, ids: jnp.take(table, ids, axis=0), functions["W6"]))
    functions["W14sort"] = lambda x: jax.lax.sort_key_val(x, jnp.arange(x.shape[0]))[0]
    functions["W14sortvalues"] = jnp.sort
    functions["W14topk"] = lambda x: jax.lax.top_k(x, 10)[0]
    functions["W14indexadd"] = lambda rows, ids: jnp.zeros((W14_VOCABULARY, rows.shape[1]), rows.dtype).at[ids].add(rows)

    draws = {
        "W13uniform": lambda key, x: jax.random.uniform(key, x.shape),
        "W13normal": lambda key, x: jax.random.normal(key, x.shape),
        "W13dropout": lambda key, x: x * (jax.random.uniform(key, x.shape) > DROPOUT_P),
        "W13scale": lambda key, x: x * 2,
    }

    layernorm = functions["W6"]
    functions["W15softmax"] = lambda x, dy: jax.vjp(lambda v: jax.nn.softmax(v, -1), x)[1](dy)
    functions["W15layernorm"] = lambda x, gamma, beta, dy: jax.vjp(layernorm, x, gamma, beta)[1](dy)

    def prepare(workload, dtype, d):
        if workload == "W15step":
            raise Unsupported("the training step is written for PyTorch only (JAX has no optimizer without optax)")
        arrays = [jnp.asarray(a) for a in inputs_for(workload, dtype, d)]
        if workload in RANDOM:
            draw, calls = jax.jit(draws[workload]), [0]

            def run():  # a new key each call, as tensorjit's worker draws
                calls[0] += 1
                return jax.block_until_ready(draw(jax.random.PRNGKey(calls[0]), *arrays))
            return run, (lambda result: [np.asarray(result)])
        function = jax.jit(functions[workload])
        return (lambda: jax.block_until_ready(function(*arrays))), \
            (lambda result: [np.asarray(r) for r in as_tuple(result)])

    return prepare, f"JAX {jax.__version__} (jax.jit, XLA CPU)"


def torch_peer(threads, compiled):
    import torch

    torch.set_num_threads(threads)
    functions = array_functions(torch, torch.relu, torch.sigmoid, lambda v: v.amax(-1, keepdim=True),
                                lambda v: v.T)
    functions["W5"] = lambda x: torch.softmax(x, -1)
    functions["W6"] = lambda x, gamma, beta: torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, 1e-5)
    functions["W14cumsum"] = lambda x: torch.cumsum(x, 0)
    functions.update(concat_functions(torch.cat))
    functions.update(embedding_functions(
        lambda table, ids: torch.nn.functional.embedding(ids, table),
        lambda x, gamma, beta, eps: torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps)))
    functions["W14sort"] = lambda x: torch.sort(x, stable=True).values  # computes values and indices
    functions["W14sortvalues"] = lambda x: torch.sort(x).values  # PyTorch has no values-only sort
    functions["W14indexadd"] = lambda rows, ids: torch.zeros(W14_VOCABULARY, rows.shape[1]).index_add_(0, ids, rows)
    functions["W14topk"] = lambda x: torch.topk(x, 10).values
    functions.update({
        "W13uniform": lambda x: torch.rand(x.shape),
        "W13normal": lambda x: torch.randn(x.shape),
        "W13dropout": lambda x: x * (torch.rand(x.shape) > DROPOUT_P),
        "W13scale": lambda x: x * 2,
    })

    def training_step(x, w1, b1, w2, b2, labels):
        """W15: a training step as PyTorch users write it, Adam with foreach=True; each call the next step."""
        parameters = [p.clone().requires_grad_() for p in (w1, b1, w2, b2)]
        optimizer = torch.optim.Adam(parameters, lr=1e-3, foreach=True)
        w1, b1, w2, b2 = parameters

        def loss_of():
            return torch.nn.functional.cross_entropy(torch.relu(x @ w1 + b1) @ w2 + b2, labels)

        def step():
            optimizer.zero_grad()
            loss = loss_of()
            loss.backward()
            optimizer.step()
            return (loss.detach(), *(p.detach() for p in parameters))

        return step

    def backward(forward, x, dy, *weights):
        """W15: the gradients of forward(x, *weights) for dy, the forward recomputed each call."""
        leaves = [v.clone().requires_grad_() for v in (x, *weights)]

        def run():
            return torch.autograd.grad(forward(*leaves), leaves, dy)

        return run

    def prepare(workload, dtype, d):
        arrays = [torch.from_numpy(a) for a in inputs_for(workload, dtype, d)] if workload.startswith("W15") else None
        if workload == "W15step":
            run = training_step(*arrays)
            if compiled:  # the whole step, optimizer included; the first step compiles it (as step 1 of a loop)
                run = torch.compile(run)
            return run, (lambda result: [r.numpy() for r in result])
        if workload in ("W15softmax", "W15layernorm"):
            if workload == "W15softmax":
                run = backward(lambda v: torch.softmax(v, -1), arrays[0], arrays[1])
            else:
                x, gamma, beta, dy = arrays
                run = backward(lambda v, g, b: torch.nn.functional.layer_norm(v, (v.shape[-1],), g, b, 1e-5),
                               x, dy, gamma, beta)
            if compiled:
                run = torch.compile(run, dynamic=False)
                run()
            return run, (lambda result: [r.numpy() for r in result])
        if compiled and workload in RANDOM:
            raise Unsupported("the random workloads run eager PyTorch only")
        if workload == "W16":
            if compiled:
                raise Unsupported("W16 runs eager PyTorch and ONNX Runtime")
            return minilm_case(lambda: minilm_peers.torch_case(torch, *d))
        arrays = [torch.from_numpy(a) for a in inputs_for(workload, dtype, d)]
        function = functions[workload]
        if compiled:
            function = torch.compile(function, dynamic=False)
        with torch.no_grad():
            function(*arrays)  # torch.compile compiles here, before the timed runs
        return (lambda: function(*arrays)), (lambda result: [r.numpy() for r in as_tuple(result)])

    mode = "torch.compile (Inductor CPU)" if compiled else "eager"
    blas = "MKL" if torch.backends.mkl.is_available() else "its own"
    return prepare, f"PyTorch {torch.__version__} {mode}, matmul through {blas}, {threads} thread(s)"


def minilm_case(make):
    try:
        return make()
    except minilm_peers.Unavailable as why:
        raise Unsupported(str(why))


def onnxruntime_peer(threads):
    import onnxruntime
    import torch

    torch.set_num_threads(threads)  # for the export

    def prepare(workload, dtype, d):
        if workload != "W16":
            raise Unsupported("ONNX Runtime runs W16's exported model only")
        return minilm_case(lambda: minilm_peers.onnxruntime_case(torch, onnxruntime, *d, threads))

    return prepare, (f"ONNX Runtime {onnxruntime.__version__} (CPUExecutionProvider, all graph optimizations), "
                     f"the model exported by torch.onnx {torch.__version__} at each shape, {threads} thread(s)")


PEERS = {
    "numpy": numpy_peer,
    "numpy-sort": numpy_sort_peer,
    "numexpr": numexpr_peer,
    "jax": jax_peer,
    "torch": lambda threads: torch_peer(threads, compiled=False),
    "torch-compile": lambda threads: torch_peer(threads, compiled=True),
    "onnxruntime": onnxruntime_peer,
}
