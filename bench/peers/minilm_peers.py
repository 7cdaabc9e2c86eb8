"""W16, all-MiniLM-L6-v2's sentence embeddings of a batch already tokenized, for the Python peers:
PyTorch eager (transformers' BertModel, as its users run it) and ONNX Runtime (the same model
exported by torch.onnx at the case's fixed shape, ONNX Runtime's best case: PyTorch's legacy
exporter fails on this model's shape arithmetic with dynamic axes). Both pool over the mask and
L2-normalise as sentence-transformers does.
"""
import os
import tempfile

import numpy as np


class Unavailable(Exception):
    """The model is not in the cache (bash scripts/fetch_minilm.sh)."""


def minilm_folder():
    """The folder scripts/fetch_minilm.sh fills; the C++ worker and the tests look there too."""
    chosen = os.environ.get("TENSORJIT_MINILM_DIR")
    if chosen:
        return chosen
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "tensorjit", "all-MiniLM-L6-v2")


def minilm_ids(sentences, tokens):
    """[CLS], words from the vocabulary's middle, [SEP], no padding: synthetic_ids() of
    bench/peers/minilm_case.cpp."""
    s = np.arange(sentences, dtype=np.int64)[:, None]
    t = np.arange(tokens, dtype=np.int64)[None, :]
    ids = 2000 + (s * 7 + t * 13) % 20000
    ids[:, 0], ids[:, -1] = 101, 102
    return ids


def sentence_model(torch, attention):
    """BertModel with mean pooling and L2 normalisation, as one torch.nn.Module."""
    from transformers import BertModel

    folder = minilm_folder()
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        raise Unavailable(f"all-MiniLM-L6-v2 is not in {folder}: bash scripts/fetch_minilm.sh")
    bert = BertModel.from_pretrained(folder, attn_implementation=attention).eval()

    class SentenceEmbedding(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, ids, mask):
            hidden = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask[:, :, None].to(hidden.dtype)
            pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    return SentenceEmbedding().eval()


def torch_case(torch, sentences, tokens):
    """run() and its output as NumPy, for PyTorch eager (BertModel's default attention, SDPA)."""
    model = sentence_model(torch, "sdpa")
    ids = torch.from_numpy(minilm_ids(sentences, tokens))
    mask = torch.ones_like(ids)

    def run():
        with torch.inference_mode():
            return model(ids, mask)
    return run, (lambda result: [result.numpy()])


def onnx_session(torch, onnxruntime, sentences, tokens, threads):
    """An InferenceSession of the model exported at [sentences, tokens]; the export is kept in the
    system's temporary folder, so later runs only load it."""
    folder = os.path.join(tempfile.gettempdir(), "tensorjit-bench-onnx")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"all-MiniLM-L6-v2-{sentences}x{tokens}.onnx")
    if not os.path.exists(path):
        model = sentence_model(torch, "eager")
        ids = torch.from_numpy(minilm_ids(sentences, tokens))
        partial = path + f".{os.getpid()}"
        with torch.no_grad():
            torch.onnx.export(model, (ids, torch.ones_like(ids)), partial, input_names=["ids", "mask"],
                              output_names=["embeddings"], opset_version=17, dynamo=False)
        os.replace(partial, path)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def onnxruntime_case(torch, onnxruntime, sentences, tokens, threads):
    session = onnx_session(torch, onnxruntime, sentences, tokens, threads)
    ids = minilm_ids(sentences, tokens)
    feeds = {"ids": ids, "mask": np.ones_like(ids)}
    return (lambda: session.run(None, feeds)[0]), (lambda result: [result])
