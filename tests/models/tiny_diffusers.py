"""Tiny random-weight editing pipelines, built and saved by the tests (no hub, no download).

* InstructPix2Pix: the components and shapes of ``timbrooks/instruct-pix2pix`` (UNet with 8 input
  channels: 4 noise latents + 4 image latents; KL VAE; CLIP text encoder; CLIP BPE tokenizer;
  Euler-ancestral scheduler), only tiny: about 0.5 MB on disk, a 64 px edit in ~0.1 s on one core.
* FLUX.1 Kontext: FLUX transformer, CLIP + T5 encoders, flow-matching scheduler (the shapes of
  diffusers' own tests of that pipeline).

Their images are noise-like, which is all the wrapper's plumbing needs.
"""

from __future__ import annotations

import json
from pathlib import Path


def _byte_symbols() -> list[str]:
    """The 256 printable stand-ins for bytes that CLIP's byte-level BPE uses (GPT-2's table)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    symbols, extra = {}, 0
    for b in range(256):
        if b in keep:
            symbols[b] = chr(b)
        else:
            symbols[b] = chr(256 + extra)
            extra += 1
    return [symbols[b] for b in range(256)]


def write_clip_tokenizer_files(folder: Path) -> tuple[Path, Path]:
    """vocab.json + merges.txt of a CLIP tokenizer with no merges: every byte is a token (and its
    end-of-word form), so any text, in any script, tokenizes."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab: dict[str, int] = {}
    for suffix in ("", "</w>"):
        for symbol in _byte_symbols():
            vocab.setdefault(symbol + suffix, len(vocab))
    for special in ("<|startoftext|>", "<|endoftext|>"):
        vocab[special] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    return folder / "vocab.json", folder / "merges.txt"


def build_tiny_instruct_pix2pix(folder: Path) -> Path:
    """Save a tiny StableDiffusionInstructPix2PixPipeline at ``folder`` (model_index.json + parts)."""
    import torch
    from diffusers import (AutoencoderKL, EulerAncestralDiscreteScheduler, StableDiffusionInstructPix2PixPipeline,
                           UNet2DConditionModel)
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    folder = Path(folder)
    vocab_file, merges_file = write_clip_tokenizer_files(folder.parent / (folder.name + "_tokenizer_src"))
    tokenizer = CLIPTokenizer(str(vocab_file), str(merges_file), model_max_length=32)
    vocab = tokenizer.get_vocab()
    torch.manual_seed(0)  # the same weights every time the tests build it
    unet = UNet2DConditionModel(
        sample_size=16, in_channels=8, out_channels=4, block_out_channels=(8, 16), layers_per_block=1,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"), up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=16, attention_head_dim=4, norm_num_groups=4,
    )
    vae = AutoencoderKL(
        in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(8, 16), norm_num_groups=4, sample_size=32,
        down_block_types=("DownEncoderBlock2D",) * 2, up_block_types=("UpDecoderBlock2D",) * 2,
    )
    text_encoder = CLIPTextModel(CLIPTextConfig(
        vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        max_position_embeddings=32, bos_token_id=vocab["<|startoftext|>"], eos_token_id=vocab["<|endoftext|>"],
        pad_token_id=vocab["<|endoftext|>"],
    ))
    pipe = StableDiffusionInstructPix2PixPipeline(
        vae=vae, text_encoder=text_encoder, tokenizer=tokenizer, unet=unet, scheduler=EulerAncestralDiscreteScheduler(),
        safety_checker=None, feature_extractor=None, requires_safety_checker=False,
    )
    pipe.save_pretrained(folder)
    return folder


def build_tiny_flux_kontext(folder: Path) -> Path:
    """Save a tiny FluxKontextPipeline at ``folder``: FLUX transformer, CLIP + T5 text encoders (a
    T5 unigram tokenizer over letters, written here), 1-channel KL VAE, flow-matching scheduler.
    Call it with ``max_area`` and ``_auto_resize=False``: by default Kontext works at ~1 MP."""
    import torch
    from diffusers import AutoencoderKL, FlowMatchEulerDiscreteScheduler, FluxKontextPipeline, FluxTransformer2DModel
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer, T5Config, T5EncoderModel, T5Tokenizer

    folder = Path(folder)
    vocab_file, merges_file = write_clip_tokenizer_files(folder.parent / (folder.name + "_tokenizer_src"))
    clip_tokenizer = CLIPTokenizer(str(vocab_file), str(merges_file), model_max_length=32)
    clip_vocab = clip_tokenizer.get_vocab()
    t5_tokenizer = T5Tokenizer(vocab=[("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
                               + [(c, -1.0) for c in "\u2581abcdefghijklmnopqrstuvwxyz.,:;!?'-0123456789"], extra_ids=0)
    torch.manual_seed(0)
    transformer = FluxTransformer2DModel(
        patch_size=1, in_channels=4, num_layers=1, num_single_layers=1, attention_head_dim=16, num_attention_heads=2,
        joint_attention_dim=32, pooled_projection_dim=32, axes_dims_rope=[4, 4, 8],
    )
    clip = CLIPTextModel(CLIPTextConfig(
        vocab_size=len(clip_vocab), hidden_size=32, intermediate_size=37, num_hidden_layers=1, num_attention_heads=4,
        max_position_embeddings=32, projection_dim=32, bos_token_id=clip_vocab["<|startoftext|>"],
        eos_token_id=clip_vocab["<|endoftext|>"], pad_token_id=clip_vocab["<|endoftext|>"],
    ))
    t5 = T5EncoderModel(T5Config(vocab_size=len(t5_tokenizer), d_model=32, d_kv=8, d_ff=37, num_layers=1, num_heads=4,
                                 relative_attention_num_buckets=8))
    vae = AutoencoderKL(
        sample_size=32, in_channels=3, out_channels=3, block_out_channels=(4,), layers_per_block=1, latent_channels=1,
        norm_num_groups=1, use_quant_conv=False, use_post_quant_conv=False, shift_factor=0.0609, scaling_factor=1.5035,
    )
    pipe = FluxKontextPipeline(
        scheduler=FlowMatchEulerDiscreteScheduler(), vae=vae, text_encoder=clip, tokenizer=clip_tokenizer,
        text_encoder_2=t5, tokenizer_2=t5_tokenizer, transformer=transformer, image_encoder=None, feature_extractor=None,
    )
    pipe.save_pretrained(folder)
    return folder
