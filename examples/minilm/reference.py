"""all-MiniLM-L6-v2 in PyTorch, written out from its safetensors weights: the reference for
tensorjit's model (models/src/bert_encoder.cpp computes the same steps).

    bench/.venv/bin/python examples/minilm/reference.py MODEL_DIR SENTENCES.txt OUT.npy [--check]

Reads one sentence a line, tokenizes them with the `tokenizers` package (no padding, the file's
truncation at 128), pads the batch to its longest sentence, runs the model in float32 and writes
the L2-normalised mean-pooled embeddings [sentences, 384] as .npy. With --check it also runs
`transformers`' BertModel from the same folder, pools and normalises its output the same way, and
prints the largest absolute difference. tests/models/minilm_reference.npy was written by

    bench/.venv/bin/python examples/minilm/reference.py ~/.cache/tensorjit/all-MiniLM-L6-v2 \\
        tests/models/minilm_sentences.txt tests/models/minilm_reference.npy --check
"""
import json
import math
import sys

import numpy as np
import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer


def tokenize(model_dir, sentences):
    tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tokenizer.no_padding()
    encoded = [e.ids for e in tokenizer.encode_batch(sentences)]
    longest = max(len(ids) for ids in encoded)
    ids = torch.zeros(len(encoded), longest, dtype=torch.int64)
    mask = torch.zeros(len(encoded), longest, dtype=torch.int64)
    for row, sequence in enumerate(encoded):
        ids[row, :len(sequence)] = torch.tensor(sequence)
        mask[row, :len(sequence)] = 1
    return ids, mask


def layernorm(x, w, prefix, eps):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], w[prefix + ".weight"], w[prefix + ".bias"], eps)


def linear(x, w, prefix):
    return x @ w[prefix + ".weight"].T + w[prefix + ".bias"]


def forward(w, config, ids, mask):
    """BERT's encoder as BertModel computes it, then mean pooling over the mask and L2 norm."""
    batch, length = ids.shape
    heads = config["num_attention_heads"]
    head_size = config["hidden_size"] // heads
    eps = config["layer_norm_eps"]
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = layernorm(x, w, "embeddings.LayerNorm", eps)
    # A padded key gets the most negative float added to its score: its probability is 0.
    bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."

        def split_heads(t):
            return t.view(batch, length, heads, head_size).permute(0, 2, 1, 3)

        q = split_heads(linear(x, w, p + "attention.self.query"))
        k = split_heads(linear(x, w, p + "attention.self.key"))
        v = split_heads(linear(x, w, p + "attention.self.value"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(head_size) + bias
        context = (torch.softmax(scores, dim=-1) @ v).permute(0, 2, 1, 3).reshape(batch, length, heads * head_size)
        x = layernorm(linear(context, w, p + "attention.output.dense") + x, w, p + "attention.output.LayerNorm", eps)
        h = torch.nn.functional.gelu(linear(x, w, p + "intermediate.dense"))  # the erf form
        x = layernorm(linear(h, w, p + "output.dense") + x, w, p + "output.LayerNorm", eps)
    return pool_and_normalise(x, mask)


def pool_and_normalise(x, mask):
    m = mask[:, :, None].float()
    pooled = (x * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, p=2, dim=1)


def transformers_embeddings(model_dir, ids, mask):
    from transformers import BertModel
    model = BertModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    with torch.no_grad():
        hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    return pool_and_normalise(hidden, mask)


def main():
    model_dir, sentences_path, out_path = sys.argv[1:4]
    with open(sentences_path, encoding="utf-8") as f:
        sentences = f.read().split("\n")[:-1]
    with open(f"{model_dir}/config.json") as f:
        config = json.load(f)
    weights = load_file(f"{model_dir}/model.safetensors")
    ids, mask = tokenize(model_dir, sentences)
    torch.set_num_threads(1)
    with torch.no_grad():
        embeddings = forward(weights, config, ids, mask)
    np.save(out_path, embeddings.numpy().astype(np.float32))
    print(f"{len(sentences)} sentences, {ids.shape[1]} tokens at most: {out_path}")
    if "--check" in sys.argv:
        difference = (embeddings - transformers_embeddings(model_dir, ids, mask)).abs().max().item()
        print(f"largest absolute difference from transformers' BertModel + mean pooling: {difference:.3g}")


if __name__ == "__main__":
    main()
