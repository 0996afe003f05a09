#!/usr/bin/env python3
"""Writes the tiny chat models the real-server suite runs on llama.cpp's llama-server.

No chat model can be downloaded where the suite runs, so it makes its own: a `llama`-architecture GGUF with
2 layers and width 64, random weights from a fixed seed, Qwen2's tokenizer (copied from the vocab-only
GGUF llama.cpp ships) and the Qwen2.5 chat template, which supports tools. It writes gibberish at about a
millisecond a token, which is all the suite needs: real sampling, real grammars, a real tool-call parser.

Two variants:
- tiny-runaway.gguf never ends a turn on its own: every answer runs to its limit (a broken template or
  EOS token, common on local servers);
- tiny-stops.gguf ends turns on its own after tens to hundreds of tokens when sampling: hidden dimension
  0 carries a constant (no layer writes into it), and the output row of <|im_end|> reads only that
  dimension, so its logit gets a roughly constant bias (llama has no output bias tensor).

usage: make-model.py LLAMA_CPP_DIR OUT_DIR
"""
import sys
from pathlib import Path

import numpy as np

LLAMA, OUT = Path(sys.argv[1]), Path(sys.argv[2])
sys.path.insert(0, str(LLAMA / 'gguf-py'))
import gguf  # noqa: E402

SEED = 20261123
N_EMBD, N_FF, N_LAYER, N_HEAD = 64, 128, 2, 4
# The constant of dimension 0, the spread of the logits, and the weight that turns dimension 0 into the
# end-of-turn token's logit, all tuned by measurement on llama-server (docs/real-server-evidence.md): with
# these, the stopping variant never ends at temperature 0 within 400 tokens on the suite's prompts (one
# in five ended after 363), and ends after 2 to 350 tokens at temperature 1 and under the server's
# default sampling; a flatter spread keeps samples at temperature 1 varied.
CONST, LOGIT_STD = 30.0, 0.6
EOS_BIAS = {'tiny-runaway': None, 'tiny-stops': 38.0}

vocab = gguf.GGUFReader(str(LLAMA / 'models' / 'ggml-vocab-qwen2.gguf'))


def field(name):
    return vocab.fields[name].contents()


tokens = field('tokenizer.ggml.tokens')
token_types = field('tokenizer.ggml.token_type')
merges = field('tokenizer.ggml.merges')
n_vocab = len(tokens)
im_end = tokens.index('<|im_end|>')
endoftext = tokens.index('<|endoftext|>')
template = (LLAMA / 'models' / 'templates' / 'Qwen-Qwen2.5-7B-Instruct.jinja').read_text()


def write(name, eos_bias):
    rng = np.random.default_rng(SEED)
    w = gguf.GGUFWriter(str(OUT / f'{name}.gguf'), 'llama')
    w.add_name(name)
    w.add_context_length(4096)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_tokenizer_model('gpt2')
    w.add_tokenizer_pre('qwen2')
    w.add_token_list(tokens)
    w.add_token_types(token_types)
    w.add_token_merges(merges)
    w.add_eos_token_id(im_end)
    w.add_bos_token_id(endoftext)
    w.add_pad_token_id(endoftext)
    w.add_add_bos_token(False)
    w.add_chat_template(template)

    def normal(*shape, std):
        return (rng.standard_normal(shape) * std).astype(np.float32)

    embd = normal(n_vocab, N_EMBD, std=1.0)
    embd[:, 0] = CONST
    w.add_tensor('token_embd.weight', embd.astype(np.float16))
    for i in range(N_LAYER):
        p = f'blk.{i}'
        w.add_tensor(f'{p}.attn_norm.weight', np.ones(N_EMBD, dtype=np.float32))
        for t in ('attn_q', 'attn_k', 'attn_v'):
            w.add_tensor(f'{p}.{t}.weight', normal(N_EMBD, N_EMBD, std=0.3).astype(np.float16))
        out = normal(N_EMBD, N_EMBD, std=0.3)
        out[0, :] = 0  # nothing writes into the constant dimension
        w.add_tensor(f'{p}.attn_output.weight', out.astype(np.float16))
        w.add_tensor(f'{p}.ffn_norm.weight', np.ones(N_EMBD, dtype=np.float32))
        w.add_tensor(f'{p}.ffn_gate.weight', normal(N_FF, N_EMBD, std=0.3).astype(np.float16))
        w.add_tensor(f'{p}.ffn_up.weight', normal(N_FF, N_EMBD, std=0.3).astype(np.float16))
        down = normal(N_EMBD, N_FF, std=0.3)
        down[0, :] = 0
        w.add_tensor(f'{p}.ffn_down.weight', down.astype(np.float16))
    w.add_tensor('output_norm.weight', np.ones(N_EMBD, dtype=np.float32))
    # A first guess at the size of the other dimensions after the final RMS norm, to scale the logits.
    rest = np.sqrt(N_EMBD) / np.sqrt(CONST**2 / (N_EMBD - 1) + 1) / np.sqrt(N_EMBD - 1)
    output = normal(n_vocab, N_EMBD, std=LOGIT_STD / (rest * np.sqrt(N_EMBD - 1)))
    output[:, 0] = 0
    if eos_bias is not None:
        normed = CONST / np.sqrt((CONST**2 + (N_EMBD - 1)) / N_EMBD)
        output[im_end, :] = 0
        output[im_end, 0] = eos_bias / normed
    w.add_tensor('output.weight', output.astype(np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


OUT.mkdir(parents=True, exist_ok=True)
for name, bias in EOS_BIAS.items():
    write(name, bias)
    print(OUT / f'{name}.gguf')
